/* SPDX-License-Identifier: MIT */
#include "settings.h"

#include "url.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HINT "see docs/backends/e2b.md for the e2b backend's settings"

static int oom(sbio_bk_error *err) {
  return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory reading the e2b backend's settings");
}

static int bad(sbio_bk_error *err, const char *key, const char *what) {
  return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "e2b settings: '%s' %s", key, what);
}

static const char *const KNOWN[] = {"api_url",
                                    "sandbox_url",
                                    "domain",
                                    "api_key_env",
                                    "template",
                                    "workdir",
                                    "connect_timeout",
                                    "request_timeout",
                                    "max_retries",
                                    "retry_backoff",
                                    "retry_backoff_max",
                                    "keepalive_interval",
                                    NULL};

static int check_keys(const cJSON *root, sbio_bk_error *err) {
  for (const cJSON *item = root->child; item; item = item->next) {
    const char *key = item->string ? item->string : "";
    size_t i = 0;
    while (KNOWN[i] && strcmp(KNOWN[i], key) != 0) i++;
    if (!KNOWN[i]) return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "e2b settings: unknown key '%.100s'", key);
    for (const cJSON *prev = root->child; prev != item; prev = prev->next)
      if (prev->string && strcmp(prev->string, key) == 0)
        return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "e2b settings: duplicate key '%s'", key);
  }
  return SBIO_OK;
}

/* A string setting, else the environment variable `env` (may be NULL). */
static int get_string(const cJSON *root, const char *key, const char *env, char **out, sbio_bk_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  const char *text = NULL;
  if (v) {
    if (!cJSON_IsString(v) || !v->valuestring) return bad(err, key, "must be a string");
    text = v->valuestring;
  } else if (env) {
    const char *e = getenv(env);
    if (e && e[0]) text = e;
  }
  if (!text) return SBIO_OK;
  free(*out);
  *out = strdup(text);
  return *out ? SBIO_OK : oom(err);
}

static int get_number(const cJSON *root, const char *key, double min, double max, double *out, sbio_bk_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!v) return SBIO_OK;
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!isfinite(d) || d < min || d > max) {
    char what[96];
    snprintf(what, sizeof what, "must be a number from %g to %g", min, max);
    return bad(err, key, what);
  }
  *out = d;
  return SBIO_OK;
}

/* A URL setting (or its environment fallback), checked and normalised. */
static int get_url(const cJSON *root, const char *key, const char *env, char **out, sbio_bk_error *err) {
  char *raw = NULL;
  int rc = get_string(root, key, env, &raw, err);
  if (rc != SBIO_OK || !raw) return rc;
  char why[256];
  char *clean = NULL;
  if (sbio__e2b_url_check(raw, &clean, why, sizeof why) != 0) {
    int from_env = !cJSON_GetObjectItemCaseSensitive(root, key);
    free(raw);
    return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "e2b %s %s: %s", from_env ? "environment variable" : "setting",
                             from_env ? env : key, why);
  }
  free(raw);
  free(*out);
  *out = clean;
  return SBIO_OK;
}

static int valid_env_name(const char *s) {
  if (!s[0] || isdigit((unsigned char)s[0])) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

static int parse_root(const cJSON *root, e2b_settings *s, sbio_bk_error *err) {
  if (!cJSON_IsObject(root)) return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "e2b settings must be a mapping");
  int rc = check_keys(root, err);
  if (rc == SBIO_OK) rc = get_string(root, "domain", "E2B_DOMAIN", &s->domain, err);
  if (rc == SBIO_OK && !sbio__e2b_is_hostname(s->domain))
    rc = bad(err, "domain", "must be a DNS name such as e2b.app (lower case letters, digits, dots, dashes)");
  if (rc == SBIO_OK) rc = get_url(root, "api_url", "E2B_API_URL", &s->api_url, err);
  if (rc == SBIO_OK && !s->api_url) {
    size_t n = strlen(s->domain) + 16;
    s->api_url = malloc(n);
    if (!s->api_url) return oom(err);
    snprintf(s->api_url, n, "https://api.%s", s->domain);
  }
  if (rc == SBIO_OK) rc = get_url(root, "sandbox_url", "E2B_SANDBOX_URL", &s->sandbox_url, err);
  if (rc == SBIO_OK) rc = get_string(root, "api_key_env", NULL, &s->api_key_env, err);
  if (rc == SBIO_OK && !valid_env_name(s->api_key_env))
    rc = bad(err, "api_key_env", "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
  if (rc == SBIO_OK) rc = get_string(root, "template", NULL, &s->template_name, err);
  if (rc == SBIO_OK && !s->template_name[0]) rc = bad(err, "template", "must not be empty");
  if (rc == SBIO_OK) rc = get_string(root, "workdir", NULL, &s->workdir, err);
  if (rc == SBIO_OK && s->workdir[0] != '/') rc = bad(err, "workdir", "must be an absolute path");
  if (rc == SBIO_OK) rc = get_number(root, "connect_timeout", 0.1, 600, &s->connect_timeout_s, err);
  if (rc == SBIO_OK) rc = get_number(root, "request_timeout", 0.1, 3600, &s->request_timeout_s, err);
  double retries = s->max_retries;
  if (rc == SBIO_OK) rc = get_number(root, "max_retries", 0, 10, &retries, err);
  if (rc == SBIO_OK && retries != floor(retries)) rc = bad(err, "max_retries", "must be a whole number");
  s->max_retries = (int)retries;
  if (rc == SBIO_OK) rc = get_number(root, "retry_backoff", 0.001, 60, &s->retry_base_s, err);
  if (rc == SBIO_OK) rc = get_number(root, "retry_backoff_max", 0.001, 600, &s->retry_max_s, err);
  double keepalive = s->keepalive_s;
  if (rc == SBIO_OK) rc = get_number(root, "keepalive_interval", 1, 3600, &keepalive, err);
  if (rc == SBIO_OK && keepalive != floor(keepalive)) rc = bad(err, "keepalive_interval", "must be whole seconds");
  s->keepalive_s = (int)keepalive;
  return rc;
}

static int set_defaults(e2b_settings *s) {
  s->domain = strdup(E2B_DEFAULT_DOMAIN);
  s->api_key_env = strdup(E2B_DEFAULT_KEY_ENV);
  s->template_name = strdup(E2B_DEFAULT_TEMPLATE);
  s->workdir = strdup(E2B_DEFAULT_WORKDIR);
  s->connect_timeout_s = 10;
  s->request_timeout_s = 60;
  s->max_retries = 3;
  s->retry_base_s = 0.25;
  s->retry_max_s = 8;
  s->keepalive_s = 50;
  return s->domain && s->api_key_env && s->template_name && s->workdir ? 0 : -1;
}

int sbio__e2b_settings_parse(const char *json, e2b_settings *out, sbio_bk_error *err) {
  memset(out, 0, sizeof *out);
  if (set_defaults(out) != 0) {
    sbio__e2b_settings_free(out);
    return oom(err);
  }
  cJSON *root = cJSON_ParseWithOpts(json ? json : "{}", NULL, 1);
  if (!root) {
    sbio__e2b_settings_free(out);
    return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "e2b settings are not valid JSON");
  }
  int rc = parse_root(root, out, err);
  cJSON_Delete(root);
  if (rc == SBIO_OK && out->retry_max_s < out->retry_base_s) out->retry_max_s = out->retry_base_s;
  if (rc != SBIO_OK) sbio__e2b_settings_free(out);
  return rc;
}

void sbio__e2b_settings_free(e2b_settings *s) {
  free(s->api_url);
  free(s->sandbox_url);
  free(s->domain);
  free(s->api_key_env);
  free(s->template_name);
  free(s->workdir);
  memset(s, 0, sizeof *s);
}
