/* SPDX-License-Identifier: MIT */
/* The API key: read from the environment for every operation (so a rotated
 * key is picked up), checked for characters that could not travel in a
 * header, and wiped from memory when the operation ends. */
#include "http.h"

#include <stdlib.h>
#include <string.h>

int sbio__dt_ctx_init(dt_ctx *ctx, dt_instance *inst, const sbio_bk_call *call, atomic_int *killed,
                      sbio_bk_error *err) {
  memset(ctx, 0, sizeof *ctx);
  ctx->inst = inst;
  ctx->call = call;
  ctx->killed = killed;
  const char *var = inst->settings.api_key_env;
  const char *key = getenv(var);
  char hint[200];
  snprintf(hint, sizeof hint, "export %s=... (an API key from Daytona's dashboard)", var);
  if (!key || !*key)
    return sbio_bk_error_set(err, SBIO_E_AUTH, hint, "Daytona credentials missing: %s is not set", var);
  size_t n = strlen(key);
  int usable = n < sizeof ctx->api_key;
  for (size_t i = 0; usable && i < n; i++) usable = key[i] > 0x20 && key[i] < 0x7f;
  if (!usable)
    return sbio_bk_error_set(err, SBIO_E_AUTH, hint,
                             "the value of %s is not a usable API key (too long, or it contains spaces or control "
                             "characters)",
                             var);
  memcpy(ctx->api_key, key, n + 1);
  return SBIO_OK;
}

void sbio__dt_ctx_done(dt_ctx *ctx) {
  /* volatile: the compiler may not drop a wipe of memory about to die. */
  volatile char *p = ctx->api_key;
  for (size_t i = 0; i < sizeof ctx->api_key; i++) p[i] = 0;
}
