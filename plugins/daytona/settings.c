/* SPDX-License-Identifier: MIT */
/* Settings: every key known, typed and range-checked, so a typo in the
 * configuration is an error that names it rather than a silent default. */
#include "settings.h"

#include "url.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_HINT "see docs/backends/daytona.md for the settings and their ranges"

typedef enum { K_STRING, K_SECONDS, K_MILLIS, K_COUNT } kind;

typedef struct {
  const char *key;
  kind type;
  size_t offset;
  double min, max;
} field;

#define STR(k)                                                                                                         \
  { #k, K_STRING, offsetof(dt_settings, k), 0, 0 }
#define NUM(k, t, lo, hi)                                                                                              \
  { #k, t, offsetof(dt_settings, k), lo, hi }

static const field fields[] = {
    STR(api_url),
    STR(api_key_env),
    STR(organization_id),
    STR(target),
    STR(snapshot),
    STR(user),
    NUM(request_timeout_s, K_SECONDS, 0.05, 3600),
    NUM(connect_timeout_s, K_SECONDS, 0.05, 600),
    NUM(cleanup_timeout_s, K_SECONDS, 0.05, 600),
    NUM(max_retries, K_COUNT, 0, 20),
    NUM(retry_base_ms, K_MILLIS, 1, 60000),
    NUM(retry_max_ms, K_MILLIS, 1, 600000),
    NUM(poll_initial_ms, K_MILLIS, 1, 60000),
    NUM(poll_max_ms, K_MILLIS, 1, 600000),
};

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
  return sbio_bk_error_set(err, SBIO_E_CONFIG, CONFIG_HINT, "daytona settings: '%s' %s", key, problem);
}

static int take(const field *f, const cJSON *item, dt_settings *s, sbio_bk_error *err) {
  char *base = (char *)s + f->offset;
  if (f->type == K_STRING) {
    if (!cJSON_IsString(item) || !item->valuestring[0]) return bad(err, f->key, "must be a non-empty string");
    char **slot = (char **)(void *)base;
    free(*slot);
    *slot = strdup(item->valuestring);
    return *slot ? SBIO_OK : sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory reading daytona settings");
  }
  if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < f->min || item->valuedouble > f->max)
    return sbio_bk_error_set(err, SBIO_E_CONFIG, CONFIG_HINT, "daytona settings: '%s' must be a number in %g..%g",
                             f->key, f->min, f->max);
  if (f->type == K_SECONDS) {
    *(double *)(void *)base = item->valuedouble;
  } else {
    if (item->valuedouble != floor(item->valuedouble)) return bad(err, f->key, "must be a whole number");
    *(int *)(void *)base = (int)item->valuedouble;
  }
  return SBIO_OK;
}

static int parse_object(const char *json, dt_settings *s, sbio_bk_error *err) {
  if (!json || !*json) return SBIO_OK;
  cJSON *root = cJSON_Parse(json);
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return sbio_bk_error_set(err, SBIO_E_CONFIG, CONFIG_HINT, "daytona settings: not a mapping");
  }
  int rc = SBIO_OK;
  for (const cJSON *item = root->child; item && rc == SBIO_OK; item = item->next) {
    const field *f = NULL;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
      if (strcmp(fields[i].key, item->string) == 0) f = &fields[i];
    if (!f)
      rc = sbio_bk_error_set(err, SBIO_E_CONFIG, CONFIG_HINT, "daytona settings: unknown key '%.64s'", item->string);
    else
      rc = take(f, item, s, err);
  }
  cJSON_Delete(root);
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
    if (!s->api_url) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory reading daytona settings");
  }
  s->api_url_from = from;
  size_t n = strlen(s->api_url);
  while (n > 1 && s->api_url[n - 1] == '/') s->api_url[--n] = '\0';
  char why[300];
  if (sbio__dt_url_check(s->api_url, why, sizeof why) != 0)
    return sbio_bk_error_set(err, SBIO_E_CONFIG,
                             "point it at https://app.daytona.io/api, your own Daytona's https API, or a local "
                             "emulator on 127.0.0.1",
                             "daytona: the API URL from %s is refused: %s", from, why);
  return SBIO_OK;
}

int sbio__dt_settings_parse(const char *json, dt_settings *out, sbio_bk_error *err) {
  defaults(out);
  int rc = parse_object(json, out, err);
  if (rc == SBIO_OK && out->retry_max_ms < out->retry_base_ms)
    rc = bad(err, "retry_max_ms", "must not be below retry_base_ms");
  if (rc == SBIO_OK && out->poll_max_ms < out->poll_initial_ms)
    rc = bad(err, "poll_max_ms", "must not be below poll_initial_ms");
  if (rc == SBIO_OK && (from_env(&out->target, "DAYTONA_TARGET") != 0 ||
                        (!out->api_key_env && !(out->api_key_env = strdup(DT_DEFAULT_KEY_ENV)))))
    rc = sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory reading daytona settings");
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
