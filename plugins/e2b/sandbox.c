/* SPDX-License-Identifier: MIT */
/* Sandbox lifecycle: create, connect (re-attach to a managed sandbox),
 * kill and release. */
#include "api.h"
#include "createreq.h"
#include "rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KILL_FALLBACK_LIFETIME_S 1
#define CONNECT_RESUME_TIMEOUT_S 300
#define CLEANUP_BUDGET_S 10.0 /* removing what a failed create made */

static int valid_id(const char *id) {
  size_t n = strlen(id);
  if (n == 0 || n >= sizeof(((e2b_sandbox *)0)->id)) return 0;
  for (const char *p = id; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))) return 0;
  return 1;
}

static const char *json_string(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

static void handle_free(e2b_sandbox *sb) {
  if (!sb) return;
  sbio_sdk_http_free(sb->envd);
  if (sb->inst) sbio__e2b_instance_unref(sb->inst);
  free(sb);
}

/* A handle from a Sandbox or SandboxDetail answer. */
static int handle_from(e2b_instance *inst, const cJSON *json, int fail_code, e2b_sandbox **out, sbio_bk_error *err) {
  *out = NULL;
  const char *id = json_string(json, "sandboxID");
  const char *version = json_string(json, "envdVersion");
  const char *token = json_string(json, "envdAccessToken");
  const char *domain = json_string(json, "domain");
  if (!id || !valid_id(id))
    return sbio_sdk_error(err, fail_code, NULL,
                          "e2b: the answer has no valid sandboxID (lower-case letters and digits)");
  if (!version) return sbio_sdk_error(err, fail_code, NULL, "e2b: the answer for sandbox %s has no envdVersion", id);
  if (!sbio__e2b_version_at_least(version, "0.1.0"))
    return sbio_sdk_error(err, fail_code, "rebuild the template with a current E2B version",
                          "e2b: sandbox %s runs envd %.20s, older than 0.1.0, which this backend cannot use", id,
                          version);
  e2b_sandbox *sb = calloc(1, sizeof *sb);
  if (!sb) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  snprintf(sb->id, sizeof sb->id, "%s", id);
  snprintf(sb->envd_version, sizeof sb->envd_version, "%s", version);
  atomic_init(&sb->killed, 0);
  sbio__e2b_instance_ref(inst);
  sb->inst = inst;
  char envd_url[600];
  if (inst->settings.sandbox_url) {
    snprintf(envd_url, sizeof envd_url, "%s", inst->settings.sandbox_url);
  } else {
    /* E2B may place a sandbox under another domain than the client's. */
    const char *d = domain && sbio__e2b_is_hostname(domain) ? domain : inst->settings.domain;
    snprintf(envd_url, sizeof envd_url, "https://%s-%s.%s", E2B_ENVD_PORT, id, d);
  }
  int rc = sbio__e2b_envd_client(sb, envd_url, token, err);
  if (rc != SBIO_OK) {
    handle_free(sb);
    return rc;
  }
  *out = sb;
  return SBIO_OK;
}

static void fill_info(sbio_bk_sandbox_info *info, const char *id) {
  if (info->size >= offsetof(sbio_bk_sandbox_info, id) + sizeof info->id) snprintf(info->id, sizeof info->id, "%s", id);
  if (info->size >= offsetof(sbio_bk_sandbox_info, mechanism) + sizeof info->mechanism)
    snprintf(info->mechanism, sizeof info->mechanism, "%s", E2B_MECHANISM);
}

/* A call for cleanup after a failure: its own short deadline, never
 * cancelled, so a half-made sandbox is still removed. */
static sbio_bk_call cleanup_call(const sbio_bk_call *call) {
  sbio_bk_call c;
  sbio_sdk_call_cleanup(&c, call, CLEANUP_BUDGET_S);
  return c;
}

int sbio__e2b_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                        sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  e2b_instance *inst = instance;
  if (!inst || !req || !sandbox || !info || !sbio__e2b_call_ok(call))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b create: missing argument");
  *sandbox = NULL;
  int rc = sbio__e2b_check_request(inst, req, err);
  if (rc != SBIO_OK) return rc;
  char *body = sbio__e2b_create_body(inst, req);
  if (!body) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  cJSON *answer = NULL;
  rc = sbio__e2b_api_create(inst, call, body, &answer, err);
  /* The body holds secret values: wipe it. */
  memset(body, 0, strlen(body));
  free(body);
  if (rc != SBIO_OK) return rc;
  e2b_sandbox *sb = NULL;
  rc = handle_from(inst, answer, SBIO_E_CREATE, &sb, err);
  if (rc != SBIO_OK) {
    /* It may exist though unusable: nothing may remain provisioned. */
    const char *id = json_string(answer, "sandboxID");
    if (id && valid_id(id)) {
      sbio_bk_call c = cleanup_call(call);
      sbio_bk_error ignored = {.size = sizeof ignored};
      int existed;
      sbio__e2b_api_kill(inst, &c, id, &existed, &ignored);
    }
    cJSON_Delete(answer);
    return rc;
  }
  cJSON_Delete(answer);
  fill_info(info, sb->id);
  *sandbox = sb;
  return SBIO_OK;
}

int sbio__e2b_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                         sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  e2b_instance *inst = instance;
  if (!inst || !id || !sandbox || !info || !sbio__e2b_call_ok(call))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b connect: missing argument");
  *sandbox = NULL;
  if (!valid_id(id))
    return sbio_sdk_error(err, SBIO_E_CONNECT, NULL,
                          "e2b: '%.64s' is not an E2B sandbox id (lower-case letters and digits)", id);
  cJSON *detail = NULL;
  int found = 0;
  int rc = sbio__e2b_api_get(inst, call, id, &detail, &found, err);
  if (rc != SBIO_OK) return rc;
  if (!found) return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "e2b: no live sandbox with id %s", id);
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(detail, "metadata");
  const char *managed = meta ? json_string(meta, sbio__e2b_label_managed()) : NULL;
  if (!managed || strcmp(managed, "true") != 0) {
    cJSON_Delete(detail);
    return sbio_sdk_error(err, SBIO_E_CONNECT, "connect only to sandboxes sandboxio created",
                          "e2b: sandbox %s was not created by sandboxio (no %s label); refusing to adopt it", id,
                          sbio__e2b_label_managed());
  }
  const char *state = json_string(detail, "state");
  if (state && strcmp(state, "paused") == 0) {
    /* Resume it; the answer carries a fresh access token. */
    cJSON_Delete(detail);
    detail = NULL;
    rc = sbio__e2b_api_connect(inst, call, id, CONNECT_RESUME_TIMEOUT_S, &detail, &found, err);
    if (rc != SBIO_OK) return rc;
    if (!found) return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "e2b: no live sandbox with id %s", id);
  }
  e2b_sandbox *sb = NULL;
  rc = handle_from(inst, detail, SBIO_E_CONNECT, &sb, err);
  cJSON_Delete(detail);
  if (rc != SBIO_OK) return rc;
  fill_info(info, sb->id);
  *sandbox = sb;
  return SBIO_OK;
}

int sbio__e2b_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb || !sbio__e2b_call_ok(call))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b kill: missing argument");
  if (atomic_load(&sb->killed) == 2) return SBIO_OK; /* done before: idempotent */
  atomic_store(&sb->killed, 1);
  /* A kill is what cancellation is for: it must run, on a call that is
   * never cancelled, within the kill's own deadline. (Not a copy of the
   * core's call: its callbacks may look at the identity of their call.) */
  sbio_bk_call c;
  sbio_sdk_call_cleanup(&c, call, 0);
  c.deadline_ns = call->deadline_ns;
  int existed = 0;
  int rc = sbio__e2b_api_kill(sb->inst, &c, sb->id, &existed, err);
  if (rc == SBIO_OK) {
    atomic_store(&sb->killed, 2);
    return SBIO_OK;
  }
  if (rc == SBIO_E_AUTH) return rc;
  /* E2B would not kill it: shorten its lifetime so E2B ends it soon. */
  sbio_bk_error fallback = {.size = sizeof fallback};
  sbio_bk_call fc = cleanup_call(call);
  if (sbio__e2b_api_set_timeout(sb->inst, &fc, sb->id, KILL_FALLBACK_LIFETIME_S, &fallback) == SBIO_OK && err) {
    size_t used = strnlen(err->message, sizeof err->message);
    snprintf(err->message + used, sizeof err->message - used, "; its lifetime was cut to %d s instead",
             KILL_FALLBACK_LIFETIME_S);
  }
  if (err) snprintf(err->hint, sizeof err->hint, "`sbio reap --kill` removes it once E2B answers again");
  return rc;
}

void sbio__e2b_op_release(void *sandbox) {
  handle_free(sandbox);
}
