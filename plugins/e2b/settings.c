/* SPDX-License-Identifier: MIT */
/* Settings through the SDK's reader (typed, ranges, unknown keys refused),
 * the environment fallbacks E2B's own SDKs read, and the URL policy of the
 * SDK for endpoints that receive the API key. */
#include "settings.h"

#include <ctype.h>
#include <sandboxio/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HINT "see docs/backends/e2b.md for the e2b backend's settings"

static int oom(sbio_bk_error *err) {
  return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory reading the e2b backend's settings");
}

static int bad(sbio_bk_error *err, const char *key, const char *what) {
  return sbio_sdk_error(err, SBIO_E_CONFIG, HINT, "e2b settings: '%s' %s", key, what);
}

int sbio__e2b_is_hostname(const char *text) {
  size_t n = text ? strlen(text) : 0, label = 0;
  if (n == 0 || n > 253) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)text[i];
    if (ch == '.') {
      if (label == 0) return 0;
      label = 0;
    } else if (islower(ch) || isdigit(ch) || ch == '-') {
      if (++label > 63) return 0;
    } else {
      return 0;
    }
  }
  return label > 0;
}

static int valid_env_name(const char *s) {
  if (!s[0] || isdigit((unsigned char)s[0])) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

/* The environment variable `env` when the setting `key` is absent. */
static int env_fallback(sbio_sdk_settings *r, const char *key, const char *env, char **out, sbio_bk_error *err) {
  if (sbio_sdk_settings_has(r, key)) return SBIO_OK;
  const char *v = getenv(env);
  if (!v || !v[0]) return SBIO_OK;
  char *copy = strdup(v);
  if (!copy) return oom(err);
  free(*out);
  *out = copy;
  return SBIO_OK;
}

/* A URL setting (or its variable) that will receive the API key: https,
 * or plain http to this machine; stored without trailing slashes. */
static int check_url(sbio_sdk_settings *r, const char *key, const char *env, char **url, sbio_bk_error *err) {
  if (!*url) return SBIO_OK;
  char why[300];
  if (sbio_sdk_url_check(*url, SBIO_SDK_URL_LOOPBACK_HTTP, why, sizeof why) != 0) {
    int from_env = !sbio_sdk_settings_has(r, key);
    return sbio_sdk_error(err, SBIO_E_CONFIG, HINT, "e2b %s %s: %s", from_env ? "environment variable" : "setting",
                          from_env ? env : key, why);
  }
  size_t n = strlen(*url);
  while (n > 0 && (*url)[n - 1] == '/') (*url)[--n] = '\0';
  return SBIO_OK;
}

static int read_all(sbio_sdk_settings *r, e2b_settings *s, sbio_bk_error *err) {
  const unsigned line = SBIO_SDK_NONEMPTY | SBIO_SDK_ONELINE;
  int64_t retries = s->max_retries, keepalive = s->keepalive_s;
  int rc = sbio_sdk_settings_string(r, "domain", line, &s->domain, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "api_url", line, &s->api_url, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "sandbox_url", line, &s->sandbox_url, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "api_key_env", line, &s->api_key_env, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "template", line, &s->template_name, err);
  if (!rc) rc = sbio_sdk_settings_string(r, "workdir", line, &s->workdir, err);
  if (!rc) rc = sbio_sdk_settings_number(r, "connect_timeout", 0, 0.1, 600, &s->connect_timeout_s, err);
  if (!rc) rc = sbio_sdk_settings_number(r, "request_timeout", 0, 0.1, 3600, &s->request_timeout_s, err);
  if (!rc) rc = sbio_sdk_settings_int(r, "max_retries", 0, 0, 10, &retries, err);
  if (!rc) rc = sbio_sdk_settings_number(r, "retry_backoff", 0, 0.001, 60, &s->retry_base_s, err);
  if (!rc) rc = sbio_sdk_settings_number(r, "retry_backoff_max", 0, 0.001, 600, &s->retry_max_s, err);
  if (!rc) rc = sbio_sdk_settings_int(r, "keepalive_interval", 0, 1, 3600, &keepalive, err);
  if (!rc) rc = sbio_sdk_settings_finish(r, err);
  s->max_retries = (int)retries;
  s->keepalive_s = (int)keepalive;
  if (rc) return rc;
  /* E2B's SDKs read these variables; a setting wins over them. */
  rc = env_fallback(r, "domain", "E2B_DOMAIN", &s->domain, err);
  if (!rc && !sbio__e2b_is_hostname(s->domain))
    rc = bad(err, "domain", "must be a DNS name such as e2b.app (lower case letters, digits, dots, dashes)");
  if (!rc) rc = env_fallback(r, "api_url", "E2B_API_URL", &s->api_url, err);
  if (!rc) rc = env_fallback(r, "sandbox_url", "E2B_SANDBOX_URL", &s->sandbox_url, err);
  if (!rc) rc = check_url(r, "api_url", "E2B_API_URL", &s->api_url, err);
  if (!rc) rc = check_url(r, "sandbox_url", "E2B_SANDBOX_URL", &s->sandbox_url, err);
  if (!rc && !s->api_url) {
    size_t n = strlen(s->domain) + 16;
    if (!(s->api_url = malloc(n))) return oom(err);
    snprintf(s->api_url, n, "https://api.%s", s->domain);
  }
  if (!rc && !valid_env_name(s->api_key_env))
    rc = bad(err, "api_key_env", "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
  if (!rc && s->workdir[0] != '/') rc = bad(err, "workdir", "must be an absolute path");
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
  sbio_sdk_settings *r = NULL;
  int rc = sbio_sdk_settings_parse(json, "e2b", HINT, &r, err);
  if (!rc) rc = read_all(r, out, err);
  sbio_sdk_settings_free(r);
  if (!rc && out->retry_max_s < out->retry_base_s) out->retry_max_s = out->retry_base_s;
  if (rc) sbio__e2b_settings_free(out);
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
