/* SPDX-License-Identifier: MIT */
/* The backend's `settings` (the YAML subtree, handed over as JSON), with
 * the environment variables Daytona's own SDKs read as fallbacks. */
#ifndef SBIO_DAYTONA_SETTINGS_H
#define SBIO_DAYTONA_SETTINGS_H

#include <sandboxio/sdk.h>

#define DT_DEFAULT_API_URL "https://app.daytona.io/api"
#define DT_DEFAULT_KEY_ENV "DAYTONA_API_KEY"

typedef struct dt_settings {
  char *api_url;            /* no trailing '/'; https, or http to a loopback host */
  const char *api_url_from; /* "settings.api_url", "DAYTONA_API_URL" or "the default" */
  char *api_key_env;        /* the variable holding the key (never the key) */
  char *organization_id;    /* X-Daytona-Organization-ID, NULL when unset */
  char *target;             /* region, NULL: the organisation's default */
  char *snapshot;           /* default snapshot when the URI names none */
  char *user;               /* OS user in the sandbox, NULL: the snapshot's */
  double request_timeout_s; /* one HTTP request, at most */
  double connect_timeout_s;
  int max_retries;   /* extra attempts of a retryable request */
  int retry_base_ms; /* first backoff; doubles per attempt */
  int retry_max_ms;
  int poll_initial_ms; /* state polling while a sandbox starts */
  int poll_max_ms;
  double cleanup_timeout_s; /* deleting what a failed create left */
} dt_settings;

/* Parses `json` (NULL or "" means "{}") with the SDK's settings reader and
 * applies defaults and the environment (DAYTONA_API_URL, DAYTONA_TARGET).
 * Unknown keys, wrong types, out-of-range numbers and a URL that is
 * neither https nor loopback http fail with SBIO_E_CONFIG naming the key,
 * never its value. */
int sbio__dt_settings_parse(const char *json, dt_settings *out, sbio_bk_error *err);
void sbio__dt_settings_free(dt_settings *s);

#endif
