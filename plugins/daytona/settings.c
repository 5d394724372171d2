/* SPDX-License-Identifier: MIT */
/* Settings through the SDK's reader: every key known, typed and
 * range-checked, so a typo in the configuration is an error that names it
 * rather than a silent default. */
#include "settings.h"

#include <sandboxio/sdk.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_HINT "see docs/backends/daytona.md for the settings and their ranges"

static void defaults(dt_settings *s) {
  memset(s, 0, sizeof *s);
  s->request_timeout_s = 30;
  s->connect_timeout_s = 10;
  s->cleanup_timeout_s = 15;
  s->max_retries = 4;
  s->retry_base_ms = 250;
  s->retry_max_ms = 5000;
  s->poll_initial_ms = 100;
  s->poll_max_ms = 1000;
}

/* "daytona settings: '<key>' <problem>" */
static int bad(sbio_bk_error *err, const char *key, const char *problem) {
  return sbio_sdk_error(err, SBIO_E_CONFIG, CONFIG_HINT, "daytona settings: '%s' %s", key, problem);
}

static int whole(sbio_sdk_settings *r, const char *key, int64_t min, int64_t max, int *out, sbio_bk_error *err) {
  int64_t v = *out;
  int rc = sbio_sdk_settings_int(r, key, 0, min, max, &v, err);
  *out = (int)v;
  return rc;
}

static int read_all(sbio_sdk_settings *r, dt_settings *s, sbio_bk_error *err) {
  const unsigned line = SBIO_SDK_NONEMPTY | SBIO_SDK_ONELINE;
  int rc = sbio_sdk_settings_string(r, "api_url", line, &s->api_url, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "api_key_env", line, &s->api_key_env, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "organization_id", line, &s->organization_id, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "target", line, &s->target, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "snapshot", line, &s->snapshot, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "user", line, &s->user, err);
  if (!rc) rc = sbio_sdk_settings_number(r, "request_timeout_s", 0, 0.05, 3600, &s->request_timeout_s, err);
  if (!rc) rc = sbio_sdk_settings_number(r, "connect_timeout_s", 0, 0.05, 600, &s->connect_timeout_s, err);
  if (!rc) rc = sbio_sdk_settings_number(r, "cleanup_timeout_s", 0, 0.05, 600, &s->cleanup_timeout_s, err);
  if (!rc) rc = whole(r, "max_retries", 0, 20, &s->max_retries, err);
  if (!rc) rc = whole(r, "retry_base_ms", 1, 60000, &s->retry_base_ms, err);
  if (!rc) rc = whole(r, "retry_max_ms", 1, 600000, &s->retry_max_ms, err);
  if (!rc) rc = whole(r, "poll_initial_ms", 1, 60000, &s->poll_initial_ms, err);
  if (!rc) rc = whole(r, "poll_max_ms", 1, 600000, &s->poll_max_ms, err);
  if (!rc) rc = sbio_sdk_settings_finish(r, err);
  return rc;
}

/* A setting wins over the environment, which wins over the default. */
static int from_env(char **slot, const char *var) {
  const char *v = getenv(var);
  if (*slot || !v || !*v) return 0;
  *slot = strdup(v);
  return *slot ? 0 : -1;
}

static int check_api_url(dt_settings *s, sbio_bk_error *err) {
  const char *from = "settings.api_url";
  if (!s->api_url) {
    const char *env = getenv("DAYTONA_API_URL");
    from = env && *env ? "DAYTONA_API_URL" : "the default";
    s->api_url = strdup(env && *env ? env : DT_DEFAULT_API_URL);
    if (!s->api_url) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory reading daytona settings");
  }
  s->api_url_from = from;
  size_t n = strlen(s->api_url);
  while (n > 1 && s->api_url[n - 1] == '/') s->api_url[--n] = '\0';
  /* The key travels in a header of every request: https, or plain http
   * to this machine (a local emulator or a port-forward). */
  char why[300];
  if (sbio_sdk_url_check(s->api_url, SBIO_SDK_URL_LOOPBACK_HTTP, why, sizeof why) != 0)
    return sbio_sdk_error(err, SBIO_E_CONFIG,
                          "point it at https://app.daytona.io/api, your own Daytona's https API, or a local "
                          "emulator on 127.0.0.1",
                          "daytona: the API URL from %s is refused: %s", from, why);
  return SBIO_OK;
}

int sbio__dt_settings_parse(const char *json, dt_settings *out, sbio_bk_error *err) {
  defaults(out);
  sbio_sdk_settings *r = NULL;
  int rc = sbio_sdk_settings_parse(json && *json ? json : NULL, "daytona", CONFIG_HINT, &r, err);
  if (rc == SBIO_OK) rc = read_all(r, out, err);
  sbio_sdk_settings_free(r);
  if (rc == SBIO_OK && out->retry_max_ms < out->retry_base_ms)
    rc = bad(err, "retry_max_ms", "must not be below retry_base_ms");
  if (rc == SBIO_OK && out->poll_max_ms < out->poll_initial_ms)
    rc = bad(err, "poll_max_ms", "must not be below poll_initial_ms");
  if (rc == SBIO_OK && (from_env(&out->target, "DAYTONA_TARGET") != 0 ||
                        (!out->api_key_env && !(out->api_key_env = strdup(DT_DEFAULT_KEY_ENV)))))
    rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory reading daytona settings");
  if (rc == SBIO_OK) rc = check_api_url(out, err);
  if (rc != SBIO_OK) sbio__dt_settings_free(out);
  return rc;
}

void sbio__dt_settings_free(dt_settings *s) {
  free(s->api_url);
  free(s->api_key_env);
  free(s->organization_id);
  free(s->target);
  free(s->snapshot);
  free(s->user);
  memset(s, 0, sizeof *s);
}
