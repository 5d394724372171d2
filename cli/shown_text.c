/* SPDX-License-Identifier: MIT */
/* Valid UTF-8 for JSON, visible escapes for terminals; see shown_text.h. */
#include "shown_text.h"

#include <stdlib.h>
#include <string.h>

size_t cli_utf8_char_len(const char *s, size_t n) {
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
    return 0;
  }
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((u[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (u[i] & 0x3fu);
  }
  /* Overlong forms, surrogates and values above U+10FFFF are malformed. */
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  return len;
}

char *cli_utf8_valid_copy(const char *s) {
  size_t n = strlen(s);
  /* Each malformed byte grows to the three bytes of U+FFFD. */
  char *out = malloc(n * 3 + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    size_t len = cli_utf8_char_len(s + i, n - i);
    if (len == 0) {
      memcpy(out + o, "\xef\xbf\xbd", 3);
      o += 3;
      i++;
    } else {
      memcpy(out + o, s + i, len);
      o += len;
      i += len;
    }
  }
  out[o] = '\0';
  return out;
}

static unsigned decode(const unsigned char *u, size_t len) {
  static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
  unsigned cp = u[0] & lead_mask[len];
  for (size_t i = 1; i < len; i++) cp = cp << 6 | (u[i] & 0x3fu);
  return cp;
}

/* Characters that change how a terminal shows what follows them. */
static int unsafe_code_point(unsigned cp) {
  if (cp == '\t') return 0;
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) ||
         cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

/* The rendering of the character at s into out (at least 12 bytes); its
 * length there, and in *used the bytes of s it took. */
static size_t render_char(const char *s, size_t n, char *out, size_t *used) {
  size_t len = cli_utf8_char_len(s, n);
  if (len == 0) {
    *used = 1;
    return (size_t)snprintf(out, 12, "\\x%02x", (unsigned char)s[0]);
  }
  *used = len;
  unsigned cp = decode((const unsigned char *)s, len);
  if (!unsafe_code_point(cp)) {
    memcpy(out, s, len);
    return len;
  }
  if (cp < 0x80) return (size_t)snprintf(out, 12, "\\x%02x", cp);
  return (size_t)snprintf(out, 12, "\\u{%04x}", cp);
}

void cli_fputs_shown(const char *s, FILE *f) {
  size_t n = strlen(s);
  char piece[12];
  for (size_t i = 0, used; i < n; i += used) fwrite(piece, 1, render_char(s + i, n - i, piece, &used), f);
}

char *cli_shown_dup(const char *s) {
  size_t n = strlen(s);
  /* \u{NNNN} is the longest rendering: 8 bytes for at least 2 of s. */
  char *out = malloc(n * 4 + 1);
  if (!out) return NULL;
  size_t o = 0;
  char piece[12];
  for (size_t i = 0, used; i < n; i += used) {
    size_t k = render_char(s + i, n - i, piece, &used);
    memcpy(out + o, piece, k);
    o += k;
  }
  out[o] = '\0';
  return out;
}

void cli_utf8_trim_tail(char *s) {
  size_t n = strlen(s);
  for (size_t back = 1; back <= 4 && back <= n; back++) {
    unsigned char c = (unsigned char)s[n - back];
    if ((c & 0xc0) == 0x80) continue;
    size_t need = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
    if (need > back) s[n - back] = '\0';
    return;
  }
}
