/* SPDX-License-Identifier: MIT */
/* The docker backend's settings, read with the SDK's settings reader: a
 * key nobody asked for (a typo in a security knob) and a duplicate are
 * refused, and no message repeats a value. */
#include "settings.h"

#include <sandboxio/sdk.h>
#include <stdlib.h>
#include <string.h>

#define HINT "see docs/backends/docker.md for the docker backend's settings"
#define RUNTIME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"
#define STRING (SBIO_SDK_NONEMPTY | SBIO_SDK_ONELINE)

static int bad(sbio_bk_error *err, const char *key, const char *what) {
  return sbio_sdk_error(err, SBIO_E_CONFIG, HINT, "docker settings: '%s' %s", key, what);
}

static int oom(sbio_bk_error *err) {
  return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory reading the docker backend's settings");
}

/* "socket" is a unix socket path; "host" a docker host URL. One of them. */
static int read_host(sbio_sdk_settings *r, dk_settings *s, sbio_bk_error *err) {
  char *socket = NULL;
  int rc = sbio_sdk_settings_string(r, "host", STRING, &s->host, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_string(r, "socket", STRING, &socket, err);
  if (rc != SBIO_OK || !socket) {
    free(socket);
    return rc;
  }
  if (s->host)
    rc = bad(err, "socket", "cannot be combined with 'host'; give one of them");
  else if (socket[0] != '/')
    rc = bad(err, "socket", "must be an absolute path to the engine's unix socket");
  else {
    size_t n = strlen(socket) + sizeof "unix://";
    s->host = malloc(n);
    if (!s->host)
      rc = oom(err);
    else
      snprintf(s->host, n, "unix://%s", socket);
  }
  free(socket);
  return rc;
}

static int read_all(sbio_sdk_settings *r, dk_settings *s, sbio_bk_error *err) {
  static const char *const pulls[] = {"missing", "always", "never", NULL}; /* in dk_pull's order */
  int pull = (int)s->pull;
  int rc = read_host(r, s, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_string(r, "runtime", STRING, &s->runtime, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_string(r, "image", STRING, &s->image, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_choice(r, "pull", 0, pulls, &pull, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_number(r, "cpu", 0, 0.01, 1024, &s->cpu, err);
  if (rc == SBIO_OK)
    rc = sbio_sdk_settings_int(r, "memory_mb", 0, DK_MIN_MEMORY_MB, 16 * 1024 * 1024, &s->memory_mb, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_int(r, "pids_limit", 0, 16, 4194304, &s->pids_limit, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_finish(r, err);
  s->pull = (dk_pull)pull;
  if (rc == SBIO_OK && s->runtime && strspn(s->runtime, RUNTIME_CHARS) != strlen(s->runtime))
    rc = bad(err, "runtime", "must be a runtime name registered with the engine (letters, digits, '.', '_', '-')");
  if (rc == SBIO_OK && !s->image && !(s->image = strdup(DK_DEFAULT_IMAGE))) rc = oom(err);
  return rc;
}

int sbio__dk_settings_parse(const char *json, dk_settings *s, sbio_bk_error *err) {
  memset(s, 0, sizeof *s);
  s->pull = DK_PULL_MISSING;
  s->cpu = DK_DEFAULT_CPU;
  s->memory_mb = DK_DEFAULT_MEMORY_MB;
  s->pids_limit = DK_DEFAULT_PIDS_LIMIT;
  sbio_sdk_settings *r = NULL;
  int rc = sbio_sdk_settings_parse(json, "docker", HINT, &r, err);
  if (rc == SBIO_OK) rc = read_all(r, s, err);
  sbio_sdk_settings_free(r);
  if (rc != SBIO_OK) sbio__dk_settings_free(s);
  return rc;
}

void sbio__dk_settings_free(dk_settings *s) {
  free(s->host);
  free(s->runtime);
  free(s->image);
  memset(s, 0, sizeof *s);
}

const char *sbio__dk_pull_name(dk_pull p) {
  switch (p) {
  case DK_PULL_ALWAYS:
    return "always";
  case DK_PULL_NEVER:
    return "never";
  case DK_PULL_MISSING:
    break;
  }
  return "missing";
}
