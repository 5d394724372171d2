/* SPDX-License-Identifier: MIT */
/* SDK: several HTTP transfers of one operation in flight at once.
 *
 * Some provider protocols keep one request open while others go next to
 * it: a command's output streams back on one request while its stdin, or
 * a signal to stop it, goes out on others (E2B's Connect streams). A group
 * drives such transfers together, on the thread that calls
 * sbio_sdk_http_group_wait():
 *
 *   sbio_sdk_http_group *g;
 *   if (sbio_sdk_http_group_new(client, call, &g, err)) return err->code;
 *   sbio_sdk_http_transfer *out = sbio_sdk_http_group_start(g, &stream);  (sink gets the output)
 *   while (out && !sbio_sdk_http_transfer_done(out)) {
 *     if (have_input && !in) in = sbio_sdk_http_group_start(g, &send_input);
 *     if (in && sbio_sdk_http_transfer_done(in)) { ...; sbio_sdk_http_transfer_free(g, in); in = NULL; }
 *     if (sbio_sdk_http_group_wait(g, 20) < 0) break;
 *   }
 *   rc = sbio_sdk_http_fail(client, sbio_sdk_http_transfer_response(out), SBIO_SDK_OP_EXEC, "run", err);
 *   sbio_sdk_http_group_free(g);
 *
 * - Bounded by the group's call: once its deadline passes, every transfer
 *   still running ends SBIO_SDK_HTTP_TIMEOUT, and once it is cancelled,
 *   SBIO_SDK_HTTP_CANCELLED. A request's timeout_ms (or the client's
 *   request_timeout_ms) bounds a transfer further; a stream sets
 *   SBIO_SDK_HTTP_NO_TIMEOUT. Nothing in a group outlives its call: work
 *   that must follow the deadline (killing the command) is a request of
 *   its own on a clean-up call (<sandboxio/sdk/call.h>).
 * - Transfers in a group are not retried: each is one attempt, and its
 *   response says how it ended, as sbio_sdk_http_send's would.
 * - Connections: a group uses one of the client's pooled connection caches,
 *   so a side request reuses the connection the previous one left open,
 *   and the group's connections go back to the pool when it is freed.
 * - One thread uses a group; sinks run inside sbio_sdk_http_group_wait().
 *   The client itself may serve other threads meanwhile. */
#ifndef SANDBOXIO_SDK_HTTP_GROUP_H
#define SANDBOXIO_SDK_HTTP_GROUP_H

#include <sandboxio/sdk/http.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbio_sdk_http_group sbio_sdk_http_group;
typedef struct sbio_sdk_http_transfer sbio_sdk_http_transfer;

/* A group of transfers to `client`, bounded by `call` (both must outlive
 * the group). SBIO_E_INTERNAL on out-of-memory. */
int sbio_sdk_http_group_new(sbio_sdk_http *client, const sbio_bk_call *call, sbio_sdk_http_group **out,
                            sbio_bk_error *err);
/* Abandons every transfer still running and frees them all. */
void sbio_sdk_http_group_free(sbio_sdk_http_group *group);

/* Starts `req`; it and everything it points to must stay valid until the
 * transfer is done or freed. A request that cannot start (the deadline
 * passed, the call is cancelled, a malformed header) gives a transfer that
 * is already done, with the reason in its response. NULL on
 * out-of-memory. */
sbio_sdk_http_transfer *sbio_sdk_http_group_start(sbio_sdk_http_group *group, const sbio_sdk_http_request *req);

/* Drives every running transfer for at most wait_ms, returning as soon as
 * one of them is done (or the call's deadline passed or it was cancelled,
 * which ends them all). Returns how many are still running, or -1 when
 * libcurl failed (every running transfer then ended SBIO_SDK_HTTP_BROKEN). */
int sbio_sdk_http_group_wait(sbio_sdk_http_group *group, long wait_ms);

int sbio_sdk_http_transfer_done(const sbio_sdk_http_transfer *transfer);
/* How the transfer ended (meaningful once it is done); owned by the
 * transfer. */
const sbio_sdk_http_response *sbio_sdk_http_transfer_response(const sbio_sdk_http_transfer *transfer);
/* Abandons the transfer if it still runs, and frees it with its response. */
void sbio_sdk_http_transfer_free(sbio_sdk_http_group *group, sbio_sdk_http_transfer *transfer);

#ifdef __cplusplus
}
#endif
#endif
