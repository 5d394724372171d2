/* SPDX-License-Identifier: MIT */
#include "settings.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HINT "see docs/backends/docker.md for the docker backend's settings"

static int bad(sbio_bk_error *err, const char *key, const char *what) {
  return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "docker settings: '%s' %s", key, what);
}

static int oom(sbio_bk_error *err) {
  return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory reading the docker backend's settings");
}

static int check_keys(const cJSON *root, sbio_bk_error *err) {
  static const char *const known[] = {"host", "socket",    "runtime",    "image", "pull",
                                      "cpu",  "memory_mb", "pids_limit", NULL};
  for (const cJSON *item = root->child; item; item = item->next) {
    const char *key = item->string ? item->string : "";
    size_t i = 0;
    while (known[i] && strcmp(known[i], key) != 0) i++;
    if (!known[i])
      return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT,
                               "docker settings: unknown key '%.100s' (known: host, socket, runtime, image, pull, "
                               "cpu, memory_mb, pids_limit)",
                               key);
    for (const cJSON *prev = root->child; prev != item; prev = prev->next)
      if (prev->string && strcmp(prev->string, key) == 0)
        return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "docker settings: duplicate key '%.100s'", key);
  }
  return SBIO_OK;
}

/* A non-empty string without control characters. */
static int get_string(const cJSON *root, const char *key, char **out, sbio_bk_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!v) return SBIO_OK;
  if (!cJSON_IsString(v) || !v->valuestring || !v->valuestring[0]) return bad(err, key, "must be a non-empty string");
  for (const char *p = v->valuestring; *p; p++)
    if ((unsigned char)*p < 0x20) return bad(err, key, "must not contain control characters");
  if (strlen(v->valuestring) > 4096) return bad(err, key, "is too long (4096 bytes at most)");
  free(*out);
  *out = strdup(v->valuestring);
  return *out ? SBIO_OK : oom(err);
}

static int get_number(const cJSON *root, const char *key, double min, double max, int integer, double *out,
                      sbio_bk_error *err) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
  if (!v) return SBIO_OK;
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!isfinite(d) || d < min || d > max || (integer && d != floor(d))) {
    char what[128];
    snprintf(what, sizeof what, "must be %s from %g to %g", integer ? "an integer" : "a number", min, max);
    return bad(err, key, what);
  }
  *out = d;
  return SBIO_OK;
}

static int parse_pull(const cJSON *root, dk_settings *s, sbio_bk_error *err) {
  char *text = NULL;
  int rc = get_string(root, "pull", &text, err);
  if (rc != SBIO_OK || !text) return rc;
  if (!strcmp(text, "missing"))
    s->pull = DK_PULL_MISSING;
  else if (!strcmp(text, "always"))
    s->pull = DK_PULL_ALWAYS;
  else if (!strcmp(text, "never"))
    s->pull = DK_PULL_NEVER;
  else
    rc = bad(err, "pull", "must be one of: missing, always, never");
  free(text);
  return rc;
}

/* "socket" is a unix socket path; "host" a docker host URL. One of them. */
static int parse_host(const cJSON *root, dk_settings *s, sbio_bk_error *err) {
  char *socket = NULL;
  int rc = get_string(root, "host", &s->host, err);
  if (rc == SBIO_OK) rc = get_string(root, "socket", &socket, err);
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

int sbio__dk_settings_parse(const char *json, dk_settings *s, sbio_bk_error *err) {
  memset(s, 0, sizeof *s);
  s->pull = DK_PULL_MISSING;
  s->cpu = DK_DEFAULT_CPU;
  s->memory_mb = DK_DEFAULT_MEMORY_MB;
  s->pids_limit = DK_DEFAULT_PIDS_LIMIT;
  cJSON *root = cJSON_Parse(json ? json : "{}");
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return sbio_bk_error_set(err, SBIO_E_CONFIG, HINT, "docker settings must be a mapping of keys to values");
  }
  double mem = (double)s->memory_mb, pids = (double)s->pids_limit;
  int rc = check_keys(root, err);
  if (rc == SBIO_OK) rc = parse_host(root, s, err);
  if (rc == SBIO_OK) rc = get_string(root, "runtime", &s->runtime, err);
  if (rc == SBIO_OK) rc = get_string(root, "image", &s->image, err);
  if (rc == SBIO_OK) rc = parse_pull(root, s, err);
  if (rc == SBIO_OK) rc = get_number(root, "cpu", 0.01, 1024, 0, &s->cpu, err);
  if (rc == SBIO_OK) rc = get_number(root, "memory_mb", DK_MIN_MEMORY_MB, 16 * 1024 * 1024, 1, &mem, err);
  if (rc == SBIO_OK) rc = get_number(root, "pids_limit", 16, 4194304, 1, &pids, err);
  s->memory_mb = (int64_t)mem;
  s->pids_limit = (int64_t)pids;
  if (rc == SBIO_OK && s->runtime &&
      strspn(s->runtime, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(s->runtime))
    rc = bad(err, "runtime", "must be a runtime name registered with the engine (letters, digits, '.', '_', '-')");
  if (rc == SBIO_OK && !s->image && !(s->image = strdup(DK_DEFAULT_IMAGE))) rc = oom(err);
  cJSON_Delete(root);
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
