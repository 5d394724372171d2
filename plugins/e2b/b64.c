/* SPDX-License-Identifier: MIT */
#include "b64.h"

#include <stdint.h>
#include <stdlib.h>

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *sbio__e2b_b64_encode(const void *data, size_t len) {
  const unsigned char *in = data;
  if (len > (SIZE_MAX - 1) / 4 * 3 - 3) return NULL;
  size_t n = (len + 2) / 3 * 4;
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < len) v |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < len) v |= in[i + 2];
    out[j++] = ALPHABET[(v >> 18) & 63];
    out[j++] = ALPHABET[(v >> 12) & 63];
    out[j++] = i + 1 < len ? ALPHABET[(v >> 6) & 63] : '=';
    out[j++] = i + 2 < len ? ALPHABET[v & 63] : '=';
  }
  out[j] = '\0';
  return out;
}

static int value_of(unsigned char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+' || ch == '-') return 62;
  if (ch == '/' || ch == '_') return 63;
  return -1;
}

int sbio__e2b_b64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  while (len && text[len - 1] == '=') len--; /* padding is optional */
  if (len % 4 == 1) return -1;
  unsigned char *buf = malloc(len / 4 * 3 + 3);
  if (!buf) return -1;
  size_t j = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; i++) {
    int v = value_of((unsigned char)text[i]);
    if (v < 0) {
      free(buf);
      return -1;
    }
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      buf[j++] = (unsigned char)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  buf[j] = '\0';
  *out = buf;
  *out_len = j;
  return 0;
}
