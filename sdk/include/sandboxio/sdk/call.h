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

/* How far past its call's deadline a backend's clean-up of that call (the
 * kill of a command whose exec deadline passed, the removal of what a
 * timed-out create left) may go: the first part of SBIO_DEADLINE_MARGIN_S,
 * the rest being the core's teardown of the sandbox. */
#define SBIO_SDK_CLEANUP_MARGIN_S 2.0

/* As sbio_sdk_call_cleanup, but never past `from`'s deadline plus
 * SBIO_SDK_CLEANUP_MARGIN_S, whatever `seconds` says: a clean-up that
 * follows a deadline (or that runs once the deadline passed) ends a fixed
 * margin after it, even against an engine that stopped answering. When
 * even that is already past, the call still gets a quarter of a second, so
 * that its first request can be sent (an engine that is merely slow may
 * act on it). */
void sbio_sdk_call_cleanup_bounded(sbio_bk_call *out, const sbio_bk_call *from, double seconds);

#ifdef __cplusplus
}
#endif
#endif
