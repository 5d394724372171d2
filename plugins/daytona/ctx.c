/* SPDX-License-Identifier: MIT */
/* Operation contexts: the key, and a call that the SDK's client polls for
 * cancellation, which also ends when the sandbox is killed meanwhile. */
#include "ctx.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLICE_S 0.02

static int ctx_cancelled(const sbio_bk_call *call) {
  const dt_ctx *ctx = (const dt_ctx *)(const void *)((const char *)call - offsetof(dt_ctx, call));
  return sbio__dt_cancelled(ctx);
}

int sbio__dt_cancelled(const dt_ctx *ctx) {
  if (ctx->killed && atomic_load(ctx->killed)) return 1;
  /* The host's cancelled() may look at the identity of its call: ask it
   * about the parent, never about this copy. */
  return ctx->parent && ctx->parent->cancelled && ctx->parent->cancelled(ctx->parent);
}

int sbio__dt_ctx_init(dt_ctx *ctx, dt_instance *inst, const sbio_bk_call *call, atomic_int *killed,
                      sbio_bk_error *err) {
  memset(ctx, 0, sizeof *ctx);
  ctx->inst = inst;
  ctx->parent = call;
  ctx->killed = killed;
  ctx->call.size = sizeof ctx->call;
  ctx->call.deadline_ns = call->deadline_ns;
  ctx->call.host = call->host;
  ctx->call.host_call_data = call->host_call_data;
  ctx->call.cancelled = ctx_cancelled;
  ctx->json_headers[0] = ctx->download_headers[0] = ctx->auth;
  ctx->json_headers[1] = "Accept: application/json";
  ctx->download_headers[1] = "Accept: */*";
  const char *var = inst->settings.api_key_env;
  char *key = NULL;
  int rc = sbio_sdk_secret_from_setting(inst->secrets, "daytona", "api_key_env", var, DT_DEFAULT_KEY_ENV, &key, err);
  /* The SDK's check, shared with every backend: visible ASCII only, and
   * short enough for ctx->auth. */
  if (rc == SBIO_OK) rc = sbio_sdk_secret_check_header("daytona", var, key, DT_KEY_MAX, err);
  if (rc == SBIO_OK) snprintf(ctx->auth, sizeof ctx->auth, "Authorization: Bearer %s", key);
  if (key) memset(key, 0, strlen(key));
  free(key);
  return rc;
}

void sbio__dt_ctx_done(dt_ctx *ctx) {
  /* volatile: the compiler may not drop a wipe of memory about to die. */
  volatile char *p = ctx->auth;
  for (size_t i = 0; i < sizeof ctx->auth; i++) p[i] = 0;
}

sbio_sdk_http_request sbio__dt_request(const dt_ctx *ctx, const char *method, const char *path) {
  return (sbio_sdk_http_request){.method = method, .path = path, .headers = ctx->json_headers, .n_headers = 2};
}

double sbio__dt_remaining_s(const dt_ctx *ctx) {
  return (double)sbio_bk_remaining_ns(&ctx->call) / 1e9;
}

int sbio__dt_sleep(dt_ctx *ctx, double seconds) {
  while (seconds > 0) {
    if (sbio__dt_cancelled(ctx)) return 1;
    double step = seconds < SLICE_S ? seconds : SLICE_S;
    struct timespec ts = {(time_t)step, (long)((step - (double)(time_t)step) * 1e9)};
    nanosleep(&ts, NULL);
    seconds -= step;
  }
  return sbio__dt_cancelled(ctx);
}
