/* SPDX-License-Identifier: MIT */
/* UTF-8 validation, cutting and showing names; see utf8.h. */
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sbio__utf8_char_len(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  unsigned char c = u[0];
  size_t len;
  unsigned cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1fu;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0fu;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07u;
  } else {
    return 0; /* a continuation byte, or a lead byte no character uses */
  }
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((u[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (u[i] & 0x3fu);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  return len;
}

int sbio__utf8_valid(const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0, len; i < n; i += len)
    if (!(len = sbio__utf8_char_len(s + i, n - i))) return 0;
  return 1;
}

char *sbio__utf8_valid_copy(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(n * 3 + 1); /* each malformed byte grows to three */
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0, len; i < n; i += len) {
    len = sbio__utf8_char_len(s + i, n - i);
    if (len) {
      memcpy(out + o, s + i, len);
      o += len;
    } else {
      memcpy(out + o, "\xef\xbf\xbd", 3);
      o += 3;
      len = 1;
    }
  }
  out[o] = '\0';
  return out;
}

void sbio__utf8_trim_tail(char *s) {
  size_t n = strlen(s);
  /* The last lead byte within the final four: if its character needs more
   * bytes than follow it, the cut went through that character. */
  for (size_t back = 1; back <= 4 && back <= n; back++) {
    unsigned char c = (unsigned char)s[n - back];
    if ((c & 0xc0) == 0x80) continue;
    size_t need = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (need > back) s[n - back] = '\0';
    return;
  }
}

/* The code point of a well-formed character of len bytes. */
static unsigned decode(const unsigned char *u, size_t len) {
  static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  unsigned cp = u[0] & lead_mask[len];
  for (size_t i = 1; i < len; i++) cp = cp << 6 | (u[i] & 0x3fu);
  return cp;
}

/* Characters that change how a terminal shows what follows (a tab only
 * moves the cursor, which a caller showing whole lines may allow). */
static int unsafe_code_point(unsigned cp, int tab_ok) {
  if (cp == '\t' && tab_ok) return 0;
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

size_t sbio__utf8_render_char(const char *s, size_t n, char *out, size_t *used, int tab_ok) {
  size_t len = sbio__utf8_char_len(s, n);
  if (len == 0) {
    *used = 1;
    return (size_t)snprintf(out, 12, "\\x%02x", (unsigned char)s[0]);
  }
  *used = len;
  unsigned cp = decode((const unsigned char *)s, len);
  if (!unsafe_code_point(cp, tab_ok)) {
    memcpy(out, s, len);
    return len;
  }
  if (cp < 0x80) return (size_t)snprintf(out, 12, "\\x%02x", cp);
  return (size_t)snprintf(out, 12, "\\u{%04x}", cp);
}

const char *sbio__utf8_shown_name(const char *name, char *buf, size_t size) {
  size_t n = strlen(name), total = 0;
  char piece[12];
  for (size_t i = 0, used; i < n; i += used) total += sbio__utf8_render_char(name + i, n - i, piece, &used, 0);
  size_t skip_to = 0; /* bytes of name left out at the start */
  if (total >= size) {
    /* Keep the end: find the first character from which the rest fits
     * behind "...". */
    size_t room = size - 4, from = 0;
    for (size_t i = 0, used; i < n && total - from > room; i += used) {
      from += sbio__utf8_render_char(name + i, n - i, piece, &used, 0);
      skip_to = i + used;
    }
  }
  size_t o = 0;
  if (skip_to) {
    memcpy(buf, "...", 3);
    o = 3;
  }
  for (size_t i = skip_to, used; i < n; i += used) {
    size_t k = sbio__utf8_render_char(name + i, n - i, piece, &used, 0);
    if (o + k >= size) break; /* cannot happen after the skip; kept as a guard */
    memcpy(buf + o, piece, k);
    o += k;
  }
  buf[o] = '\0';
  return buf;
}
