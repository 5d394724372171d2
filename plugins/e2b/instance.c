/* SPDX-License-Identifier: MIT */
/* The backend instance's shared services: reference counting, the SDK
 * client options every E2B endpoint shares, call checks, envd version
 * gates. */
#include "e2b.h"

#include <stdlib.h>
#include <string.h>

void sbio__e2b_instance_ref(e2b_instance *inst) {
  atomic_fetch_add(&inst->refs, 1);
}

void sbio__e2b_instance_unref(e2b_instance *inst) {
  if (!inst || atomic_fetch_sub(&inst->refs, 1) != 1) return;
  sbio_sdk_http_free(inst->api);
  sbio_sdk_secrets_free(inst->secrets);
  sbio__e2b_settings_free(&inst->settings);
  free(inst);
}

sbio_sdk_http_options sbio__e2b_client_options(const e2b_instance *inst) {
  const e2b_settings *s = &inst->settings;
  return (sbio_sdk_http_options){
      .backend = "e2b",
      .secrets = inst->secrets,
      .host = &inst->host,
      .user_agent = E2B_USER_AGENT,
      .credential_env = s->api_key_env,
      .connect_timeout_ms = (long)(s->connect_timeout_s * 1000),
      .request_timeout_ms = (long)(s->request_timeout_s * 1000),
      .max_attempts = s->max_retries + 1,
      .backoff_initial_ms = (long)(s->retry_base_s * 1000) > 0 ? (long)(s->retry_base_s * 1000) : 1,
      .backoff_max_ms = (long)(s->retry_max_s * 1000) > 0 ? (long)(s->retry_max_s * 1000) : 1,
      /* However long E2B asks to wait, the operation's deadline decides. */
      .retry_after_max_ms = SBIO_SDK_RETRY_AFTER_CAP_MS,
      .loopback_http_only = 1,
  };
}

int sbio__e2b_call_ok(const sbio_bk_call *call) {
  return call && call->host && call->host->monotonic_ns;
}

/* Dotted numeric versions, compared field by field ("0.5.10" > "0.5.9");
 * a leading "v" is ignored. An unreadable version counts as old. */
int sbio__e2b_version_at_least(const char *version, const char *minimum) {
  if (!version) return 0;
  if (*version == 'v') version++;
  const char *a = version, *b = minimum;
  for (int i = 0; i < 4; i++) {
    char *ea, *eb;
    long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
    if (ea == a) x = 0;
    if (eb == b) y = 0;
    if (x != y) return x > y;
    a = *ea == '.' ? ea + 1 : ea;
    b = *eb == '.' ? eb + 1 : eb;
    if (!*a && !*b) break;
  }
  return 1;
}
