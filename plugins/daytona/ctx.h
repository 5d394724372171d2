/* SPDX-License-Identifier: MIT */
/* What one operation carries: its call (cancelled also once the sandbox
 * is killed from another thread) and the API key for its requests, read
 * from the environment for every operation (so a rotated key is picked
 * up), checked, registered for redaction, and wiped when it ends. */
#ifndef SBIO_DAYTONA_CTX_H
#define SBIO_DAYTONA_CTX_H

#include "dt.h"

#define DT_KEY_MAX 1024

typedef struct dt_ctx {
  sbio_bk_call call; /* what requests are bounded by; first, so cancelled() finds the ctx */
  const sbio_bk_call *parent;
  dt_instance *inst;
  atomic_int *killed;              /* NULL outside a sandbox (and for kill itself) */
  char auth[DT_KEY_MAX + 32];      /* "Authorization: Bearer <key>" */
  const char *json_headers[2];     /* auth, Accept: application/json */
  const char *download_headers[2]; /* auth, Accept: * / * */
} dt_ctx;

/* Prepares a context for one operation on `call`. A missing or unusable
 * key is SBIO_E_AUTH naming the variable (never showing the value). */
int sbio__dt_ctx_init(dt_ctx *ctx, dt_instance *inst, const sbio_bk_call *call, atomic_int *killed, sbio_bk_error *err);
/* Wipes the key from the context. */
void sbio__dt_ctx_done(dt_ctx *ctx);

/* A request of this operation: the method, the path (relative to the
 * client's base), the key and Accept: application/json. */
sbio_sdk_http_request sbio__dt_request(const dt_ctx *ctx, const char *method, const char *path);

/* Sleeps up to `seconds` in short slices, stopping early on cancellation;
 * returns non-zero when cancelled. */
int sbio__dt_sleep(dt_ctx *ctx, double seconds);
/* Non-zero once the call is cancelled or the sandbox killed. */
int sbio__dt_cancelled(const dt_ctx *ctx);
/* Seconds left before the call's deadline (0 when past it). */
double sbio__dt_remaining_s(const dt_ctx *ctx);

#endif
