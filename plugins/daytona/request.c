/* SPDX-License-Identifier: MIT */
/* Create requests. Daytona takes CPU, memory and disk from the snapshot a
 * sandbox starts from (the API's cpu/memory/disk only apply to sandboxes
 * built from an image), so a request for other resources is refused rather
 * than accepted and ignored. */
#include "request.h"

#include "allow.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbio__dt_env_name_ok(const char *name) {
  if (!name || !((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') || *name == '_')) return 0;
  for (const char *p = name + 1; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
  return 1;
}

static int check_env(const sbio_bk_kv *kv, size_t n, const char *what, sbio_bk_error *err) {
  for (size_t i = 0; i < n; i++)
    if (!sbio__dt_env_name_ok(kv[i].key))
      return sbio_sdk_error(err, SBIO_E_CONFIG, "names are letters, digits and '_', not starting with a digit",
                            "%s name '%.80s' is not a valid environment variable name", what,
                            kv[i].key ? kv[i].key : "");
  return SBIO_OK;
}

int sbio__dt_check_request(const dt_settings *s, const sbio_bk_create_req *req, sbio_bk_error *err) {
  if (req->gpu && req->gpu[0])
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "drop the GPU request", "the daytona backend offers no GPUs");
  const char *snapshot = req->template_name ? req->template_name : s->snapshot;
  char what[64] = "";
  if (req->cpu > 0)
    snprintf(what, sizeof what, "cpu=%g", req->cpu);
  else if (req->memory_mb > 0)
    snprintf(what, sizeof what, "memory_mb=%lld", (long long)req->memory_mb);
  else if (req->disk_mb > 0)
    snprintf(what, sizeof what, "disk_mb=%lld", (long long)req->disk_mb);
  if (what[0])
    return sbio_sdk_error(err, SBIO_E_CONFIG, "choose a snapshot with the resources you need: daytona://SNAPSHOT",
                          "Daytona takes CPU, memory and disk from the snapshot (%s); %s cannot be applied",
                          snapshot ? snapshot : "the organization's default", what);
  for (size_t i = 0; i < req->n_labels; i++) {
    const char *k = req->labels[i].key;
    if (!k || !*k || strncmp(k, DT_LABEL_PREFIX, strlen(DT_LABEL_PREFIX)) == 0)
      return sbio_sdk_error(err, SBIO_E_CONFIG, "choose another label key",
                            "label key '%.80s' is reserved: keys starting with '" DT_LABEL_PREFIX
                            "' mark sandboxes this backend manages",
                            k ? k : "");
  }
  int rc = check_env(req->env, req->n_env, "environment variable", err);
  if (rc == SBIO_OK) rc = check_env(req->secrets, req->n_secrets, "secret", err);
  if (rc == SBIO_OK && req->egress == 0 && req->n_allow) {
    dt_allow a;
    rc = sbio__dt_allow_split(req->allow, req->n_allow, &a, err);
    if (rc == SBIO_OK) sbio__dt_allow_free(&a);
  }
  if (rc == SBIO_OK && !(req->timeout_s > 0))
    rc = sbio_sdk_error(err, SBIO_E_CONFIG, NULL, "the sandbox timeout must be positive");
  /* autoStopInterval is the provider-side backstop: one that cannot be
   * sent as asked is refused, never clamped. The core never sends more. */
  if (rc == SBIO_OK && !(req->timeout_s <= SBIO_MAX_TIMEOUT_S))
    rc = sbio_sdk_error(err, SBIO_E_CONFIG, "give a timeout of at most 86400 seconds",
                        "the sandbox timeout %.0f s is above the maximum of 86400 s (24 hours)", req->timeout_s);
  return rc;
}

static int add_kv(cJSON *obj, const sbio_bk_kv *kv, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cJSON_DeleteItemFromObjectCaseSensitive(obj, kv[i].key); /* later wins: secrets over env */
    if (!cJSON_AddStringToObject(obj, kv[i].key, kv[i].value ? kv[i].value : "")) return -1;
  }
  return 0;
}

static int add_network(cJSON *body, const sbio_bk_create_req *req, sbio_bk_error *err) {
  if (req->egress != 0) return cJSON_AddBoolToObject(body, "networkBlockAll", 0) ? SBIO_OK : -1;
  if (!req->n_allow) return cJSON_AddBoolToObject(body, "networkBlockAll", 1) ? SBIO_OK : -1;
  /* Deny with exceptions: the lists are Daytona's default-deny allow-list;
   * networkBlockAll would override them. */
  dt_allow a;
  int rc = sbio__dt_allow_split(req->allow, req->n_allow, &a, err);
  if (rc != SBIO_OK) return rc;
  if (!cJSON_AddBoolToObject(body, "networkBlockAll", 0) ||
      (a.cidrs && !cJSON_AddStringToObject(body, "networkAllowList", a.cidrs)) ||
      (a.domains && !cJSON_AddStringToObject(body, "domainAllowList", a.domains)))
    rc = -1;
  sbio__dt_allow_free(&a);
  return rc;
}

int sbio__dt_create_body(const dt_settings *s, const sbio_bk_create_req *req, const char *name, char **body_out,
                         sbio_bk_error *err) {
  *body_out = NULL;
  int rc = sbio__dt_check_request(s, req, err);
  if (rc != SBIO_OK) return rc;
  cJSON *body = cJSON_CreateObject();
  cJSON *env = cJSON_CreateObject(), *labels = cJSON_CreateObject();
  const char *snapshot = req->template_name && req->template_name[0] ? req->template_name : s->snapshot;
  /* Daytona's intervals are minutes (rounded up: never shorter than asked,
   * at least 1 since the timeout is positive); auto-stop counts from the
   * last activity, and auto-delete 0 removes the sandbox as soon as it
   * stops. */
  double minutes = ceil(req->timeout_s / 60.0);
  char timeout[32];
  snprintf(timeout, sizeof timeout, "%g", req->timeout_s);
  int bad = !body || !env || !labels || !cJSON_AddStringToObject(body, "name", name) ||
            (snapshot && !cJSON_AddStringToObject(body, "snapshot", snapshot)) ||
            (s->user && !cJSON_AddStringToObject(body, "user", s->user)) ||
            (s->target && !cJSON_AddStringToObject(body, "target", s->target)) ||
            add_kv(env, req->env, req->n_env) != 0 || add_kv(env, req->secrets, req->n_secrets) != 0 ||
            add_kv(labels, req->labels, req->n_labels) != 0 ||
            !cJSON_AddStringToObject(labels, DT_LABEL_MANAGED, "true") ||
            !cJSON_AddStringToObject(labels, DT_LABEL_SESSION, req->session_id ? req->session_id : "") ||
            !cJSON_AddStringToObject(labels, DT_LABEL_TIMEOUT, timeout) || !cJSON_AddBoolToObject(body, "public", 0) ||
            !cJSON_AddNumberToObject(body, "autoStopInterval", minutes) ||
            !cJSON_AddNumberToObject(body, "autoDeleteInterval", 0);
  if (!bad) {
    cJSON_AddItemToObject(body, "env", env);
    cJSON_AddItemToObject(body, "labels", labels);
    env = labels = NULL;
    rc = add_network(body, req, err);
    if (rc == -1) bad = 1;
  }
  if (!bad && rc == SBIO_OK && !(*body_out = cJSON_PrintUnformatted(body))) bad = 1;
  cJSON_Delete(env);
  cJSON_Delete(labels);
  cJSON_Delete(body);
  if (bad) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory building the create request");
  return rc;
}
