/* SPDX-License-Identifier: MIT */
/* SDK: calls for the bounded work that follows an operation's end.
 *
 * Every wait on an operation's path is bounded by its call's deadline. Two
 * steps come after that deadline, or after the operation failed, and must
 * still run: removing what a failed create left behind, and killing a
 * command whose exec deadline passed. They get a call of their own, with a
 * short budget of their own, that is never cancelled (the caller giving up
 * is exactly when the cleanup must happen). */
#ifndef SANDBOXIO_SDK_CALL_H
#define SANDBOXIO_SDK_CALL_H

#include <sandboxio/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills *out with a call on `from`'s host (clock and services) whose
 * deadline is `seconds` from now and which is never cancelled. `from` may
 * be NULL (the system's monotonic clock, no host). Keep `seconds` a small
 * constant of the backend, named for what it bounds. */
void sbio_sdk_call_cleanup(sbio_bk_call *out, const sbio_bk_call *from, double seconds);

#ifdef __cplusplus
}
#endif
#endif
