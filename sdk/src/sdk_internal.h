/* SPDX-License-Identifier: MIT */
/* Internals shared by the SDK's source files (never installed). */
#ifndef SBIO_SDK_INTERNAL_H
#define SBIO_SDK_INTERNAL_H

#include <sandboxio/sdk.h>

#include <stddef.h>

/* A growable byte buffer, always NUL-terminated once it holds anything.
 * ok < 0 after an allocation failed; further adds are ignored. */
typedef struct sbio__sdk_buf {
  char *data;
  size_t len, cap;
  int ok;
} sbio__sdk_buf;

void sbio__sdk_buf_add(sbio__sdk_buf *b, const char *data, size_t len);
/* The contents (an empty string when nothing was added), or NULL after an
 * allocation failure; the buffer is reset either way. */
char *sbio__sdk_buf_take(sbio__sdk_buf *b);

/* Overwrites memory that held a credential; not optimised away. */
void sbio__sdk_wipe(void *p, size_t len);

/* A copy of text with the values of `secrets` replaced; NULL on OOM. */
char *sbio__sdk_secrets_apply(const sbio_sdk_secrets *secrets, const char *text);

/* Monotonic nanoseconds: the host's clock when there is a call, so the
 * client and the core agree on deadlines. */
int64_t sbio__sdk_now_ns(const sbio_bk_call *call);

#endif
