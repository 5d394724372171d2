/* SPDX-License-Identifier: MIT */
/* Display-safe text; see safe_text.h. */
#include "safe_text.h"

#include "buf.h"
#include "page_text.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/* Cuts text (valid UTF-8) to at most max bytes at a character boundary,
 * marking the cut. */
static void shorten(char *text, size_t *len, size_t max) {
  if (*len <= max || max < 4) return;
  size_t keep = max - 3;
  while (keep > 0 && ((unsigned char)text[keep] & 0xc0) == 0x80) keep--;
  while (keep > 0 && text[keep - 1] == ' ') keep--;
  memcpy(text + keep, "...", 4);
  *len = keep + 3;
}

char *src_safe_text(const char *s, size_t len, size_t max_bytes) {
  size_t out_len = 0;
  char *out = src_text_clean(s ? s : "", s ? len : 0, &out_len);
  if (out) shorten(out, &out_len, max_bytes);
  return out;
}

static void add_encoded(src_buf *b, unsigned char c) {
  static const char hex[] = "0123456789ABCDEF";
  if (c > 0x20 && c < 0x7f && c != '"' && c != '\\') {
    src_buf_addc(b, (char)c);
    return;
  }
  char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
  src_buf_add(b, esc, 3);
}

char *src_safe_url(const char *url, size_t max_bytes) {
  src_buf b = {0};
  const char *p = url ? url : "";
  const char *scheme_end = strstr(p, "://");
  size_t authority_start = scheme_end ? (size_t)(scheme_end - p) + 3 : 0;
  for (size_t i = 0; i < authority_start; i++) add_encoded(&b, (unsigned char)p[i]);
  p += authority_start;
  size_t authority = strcspn(p, "/?#");
  const char *at = memchr(p, '@', authority);
  if (at) { /* drop the userinfo */
    authority -= (size_t)(at + 1 - p);
    p = at + 1;
  }
  for (size_t i = 0; i < authority; i++) add_encoded(&b, (unsigned char)p[i]);
  p += authority;
  size_t path = strcspn(p, "?#");
  for (size_t i = 0; i < path; i++) add_encoded(&b, (unsigned char)p[i]);
  p += path;
  if (*p == '?') {
    /* Keep the names, never the values. */
    src_buf_addc(&b, '?');
    p++;
    size_t query = strcspn(p, "#");
    const char *end = p + query;
    while (p < end) {
      size_t field = strcspn(p, "&");
      if (p + field > end) field = (size_t)(end - p);
      const char *eq = memchr(p, '=', field);
      size_t name = eq ? (size_t)(eq - p) : field;
      for (size_t i = 0; i < name; i++) add_encoded(&b, (unsigned char)p[i]);
      if (eq) src_buf_add(&b, "=***", 4);
      p += field;
      if (p < end && *p == '&') {
        src_buf_addc(&b, '&');
        p++;
      }
    }
  }
  size_t len = 0;
  char *out = src_buf_take(&b, &len);
  if (out) shorten(out, &len, max_bytes);
  return out;
}
