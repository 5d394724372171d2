/* SPDX-License-Identifier: MIT */
/* The growable buffer; see buf.h. */
#include "buf.h"

#include <stdlib.h>
#include <string.h>

static int grow(src_buf *b, size_t more) {
  if (b->failed) return -1;
  if (b->len + more + 1 <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1) {
    if (cap > ((size_t)-1) / 2) {
      b->failed = 1;
      return -1;
    }
    cap *= 2;
  }
  char *grown = realloc(b->data, cap);
  if (!grown) {
    b->failed = 1;
    return -1;
  }
  b->data = grown;
  b->cap = cap;
  return 0;
}

void src_buf_add(src_buf *b, const char *data, size_t len) {
  if (grow(b, len) != 0) return;
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

void src_buf_addc(src_buf *b, char c) {
  src_buf_add(b, &c, 1);
}

void src_buf_add_cp(src_buf *b, unsigned cp) {
  char out[4];
  size_t n;
  if (cp < 0x80) {
    out[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    n = 2;
  } else if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    n = 3;
  } else {
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    n = 4;
  }
  src_buf_add(b, out, n);
}

char *src_buf_take(src_buf *b, size_t *len) {
  if (b->failed) {
    src_buf_free(b);
    return NULL;
  }
  char *out = b->data ? b->data : calloc(1, 1);
  if (len) *len = b->data ? b->len : 0;
  b->data = NULL;
  b->len = b->cap = 0;
  return out;
}

void src_buf_free(src_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->failed = 0;
}
