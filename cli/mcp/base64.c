/* SPDX-License-Identifier: MIT */
#include "base64.h"

#include <stdint.h>
#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *mcp_base64_encode(const unsigned char *data, size_t len, size_t *out_len) {
  size_t n = (len + 2) / 3 * 4;
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16;
    if (i + 1 < len) v |= (uint32_t)data[i + 1] << 8;
    if (i + 2 < len) v |= data[i + 2];
    out[o++] = alphabet[(v >> 18) & 63];
    out[o++] = alphabet[(v >> 12) & 63];
    out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
    out[o++] = i + 2 < len ? alphabet[v & 63] : '=';
  }
  out[o] = '\0';
  if (out_len) *out_len = o;
  return out;
}

static int digit(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

int mcp_base64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  if (len % 4) return -1;
  unsigned char *buf = malloc(len / 4 * 3 + 1);
  if (!buf) return -2;
  size_t o = 0;
  for (size_t i = 0; i < len; i += 4) {
    int d[4];
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      unsigned char c = (unsigned char)text[i + k];
      /* '=' only as the last one or two characters of the text. */
      if (c == '=' && i + 4 == len && k >= 2 && (k == 3 || text[i + 3] == '=')) {
        d[k] = 0;
        pad++;
        continue;
      }
      if (pad || (d[k] = digit(c)) < 0) {
        free(buf);
        return -1;
      }
    }
    uint32_t v = (uint32_t)d[0] << 18 | (uint32_t)d[1] << 12 | (uint32_t)d[2] << 6 | (uint32_t)d[3];
    buf[o++] = (unsigned char)(v >> 16);
    if (pad < 2) buf[o++] = (unsigned char)(v >> 8);
    if (pad < 1) buf[o++] = (unsigned char)v;
  }
  *out = buf;
  *out_len = o;
  return 0;
}
