/* SPDX-License-Identifier: MIT */
/* A growable byte buffer that remembers running out of memory, so the
 * text transformations can append freely and check once at the end. */
#ifndef SBIO_SOURCES_BUF_H
#define SBIO_SOURCES_BUF_H

#include <stddef.h>

typedef struct src_buf {
  char *data; /* NUL-terminated whenever non-NULL */
  size_t len, cap;
  int failed; /* an append ran out of memory: the contents are incomplete */
} src_buf;

void src_buf_add(src_buf *b, const char *data, size_t len);
void src_buf_addc(src_buf *b, char c);
/* Appends the UTF-8 encoding of code point cp (which must be valid). */
void src_buf_add_cp(src_buf *b, unsigned cp);
/* The contents (malloc'd, NUL-terminated, "" when empty) and their length;
 * the buffer is emptied. NULL when an append failed. */
char *src_buf_take(src_buf *b, size_t *len);
void src_buf_free(src_buf *b);

#endif
