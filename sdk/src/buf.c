/* SPDX-License-Identifier: MIT */
/* Small memory helpers: a growable buffer and credential wiping. */
#include "sdk_internal.h"

#include <stdlib.h>
#include <string.h>

void sbio__sdk_buf_add(sbio__sdk_buf *b, const char *data, size_t len) {
  if (b->ok < 0) return;
  if (b->len + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + len + 1) cap *= 2;
    char *grown = realloc(b->data, cap);
    if (!grown) {
      b->ok = -1;
      return;
    }
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

char *sbio__sdk_buf_take(sbio__sdk_buf *b) {
  char *out = b->ok < 0 ? NULL : b->data ? b->data : strdup("");
  if (b->ok < 0) free(b->data);
  memset(b, 0, sizeof *b);
  return out;
}

void sbio__sdk_wipe(void *p, size_t len) {
  /* A volatile pointer keeps the compiler from dropping the stores. */
  volatile unsigned char *v = p;
  while (len--) *v++ = 0;
}
