/* SPDX-License-Identifier: MIT */
/* Base64 as proto3 JSON spells `bytes`: standard alphabet with padding on
 * output; on input also the URL-safe alphabet and missing padding, which
 * protojson accepts too. */
#ifndef SBIO_E2B_B64_H
#define SBIO_E2B_B64_H

#include <stddef.h>

/* malloc'd, NUL-terminated; NULL on OOM. */
char *sbio__e2b_b64_encode(const void *data, size_t len);
/* Decodes into a malloc'd buffer (*out, *out_len; NUL-terminated for
 * convenience). -1 on malformed input or OOM. */
int sbio__e2b_b64_decode(const char *text, size_t len, unsigned char **out, size_t *out_len);

#endif
