/* SPDX-License-Identifier: MIT */
/* The E2B backend's settings: the `settings` mapping of
 * backends.e2b in the configuration, read with the SDK's settings reader,
 * with E2B's own environment variables (E2B_API_URL, E2B_SANDBOX_URL,
 * E2B_DOMAIN) as fallbacks. The API key is never a setting: only the name
 * of the variable that holds it. */
#ifndef SBIO_E2B_SETTINGS_H
#define SBIO_E2B_SETTINGS_H

#include <sandboxio/backend.h>

typedef struct e2b_settings {
  char *api_url;     /* control plane, no trailing slash */
  char *sandbox_url; /* envd for every sandbox (routing headers pick it); NULL: per-sandbox host */
  char *domain;      /* for per-sandbox hosts: https://49983-<id>.<domain> */
  char *api_key_env; /* name of the variable holding the API key */
  char *template_name;
  char *workdir; /* where relative paths and commands start */
  double connect_timeout_s;
  double request_timeout_s; /* the longest one control-plane, RPC or small file request may take */
  int max_retries;          /* extra attempts of a request the SDK may repeat */
  double retry_base_s;      /* first backoff; doubles, capped by retry_max_s */
  double retry_max_s;
  int keepalive_s; /* Keepalive-Ping-Interval asked of envd */
} e2b_settings;

#define E2B_DEFAULT_DOMAIN "e2b.app"
#define E2B_DEFAULT_TEMPLATE "base"
#define E2B_DEFAULT_WORKDIR "/home/user"
#define E2B_DEFAULT_KEY_ENV "E2B_API_KEY"

/* Parses settings_json (NULL or "{}" for none), reading the fallbacks
 * from the environment. SBIO_E_CONFIG names the offending key (or
 * variable), never its value. */
int sbio__e2b_settings_parse(const char *settings_json, e2b_settings *out, sbio_bk_error *err);
void sbio__e2b_settings_free(e2b_settings *s);

/* 1 when text is a DNS name: labels of [a-z0-9-], dots between. */
int sbio__e2b_is_hostname(const char *text);

#endif
