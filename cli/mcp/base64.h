/* SPDX-License-Identifier: MIT */
/* Base64 (RFC 4648, standard alphabet, padded) for file contents that are
 * not UTF-8 text: read_file returns them so, write_file accepts them so. */
#ifndef SBIO_MCP_BASE64_H
#define SBIO_MCP_BASE64_H

#include <stddef.h>

/* malloc'd, NUL-terminated; NULL on out of memory. */
char *mcp_base64_encode(const unsigned char *data, size_t len, size_t *out_len);
/* Strict: only the alphabet and '=' padding at the end; whitespace is not
 * allowed. Returns 0 and a malloc'd buffer, -1 when malformed, -2 on out of
 * memory. */
int mcp_base64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len);

#endif
