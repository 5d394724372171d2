/* SPDX-License-Identifier: MIT */
/* Waiting for a sandbox to reach "started". */
#ifndef SBIO_DAYTONA_WAIT_H
#define SBIO_DAYTONA_WAIT_H

#include "rest.h"

/* Polls GET /sandbox/{id} (backoff from poll_initial_ms to poll_max_ms)
 * until `rec` is started, under the call's deadline. "error" and
 * "build_failed" fail with Daytona's errorReason (op->fail_code), so do a
 * sandbox destroyed or stopped meanwhile and one that disappears; the
 * deadline is op->timeout_code. `rec` always holds the last state seen. */
int sbio__dt_wait_started(dt_ctx *ctx, dt_record *rec, const dt_op *op, sbio_bk_error *err);

/* 1 for the states a starting sandbox passes through. */
int sbio__dt_state_transitional(const char *state);

#endif
