/* SPDX-License-Identifier: MIT */
/* Strict UTF-8 decoding; see utf8.h. */
#include "utf8.h"

static int continuation(unsigned char c) {
  return (c & 0xc0) == 0x80;
}

size_t src_utf8_next(const char *text, size_t len, unsigned *cp) {
  const unsigned char *s = (const unsigned char *)text;
  *cp = SRC_REPLACEMENT;
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  if (s[0] >= 0xc2 && s[0] <= 0xdf) {
    if (len < 2 || !continuation(s[1])) return 1;
    *cp = ((unsigned)(s[0] & 0x1f) << 6) | (s[1] & 0x3f);
    return 2;
  }
  if (s[0] >= 0xe0 && s[0] <= 0xef) {
    unsigned char lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
    if (len < 3 || s[1] < lo || s[1] > hi || !continuation(s[2])) return 1;
    *cp = ((unsigned)(s[0] & 0x0f) << 12) | ((unsigned)(s[1] & 0x3f) << 6) | (s[2] & 0x3f);
    return 3;
  }
  if (s[0] >= 0xf0 && s[0] <= 0xf4) {
    unsigned char lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
    if (len < 4 || s[1] < lo || s[1] > hi || !continuation(s[2]) || !continuation(s[3])) return 1;
    *cp = ((unsigned)(s[0] & 0x07) << 18) | ((unsigned)(s[1] & 0x3f) << 12) | ((unsigned)(s[2] & 0x3f) << 6) |
          (s[3] & 0x3f);
    return 4;
  }
  return 1;
}
