/* SPDX-License-Identifier: MIT */
/* Sandbox handles: connect to an existing managed container, kill, release. */
#include "api.h"
#include "engine.h"
#include "errmap.h"
#include "podman.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

dk_sandbox *sbio__dk_sandbox_new(dk_instance *inst, const char *id, const char *mechanism) {
  dk_sandbox *sb = calloc(1, sizeof *sb);
  if (!sb) return NULL;
  sb->inst = inst;
  snprintf(sb->id, sizeof sb->id, "%s", id);
  snprintf(sb->short_id, sizeof sb->short_id, "%.12s", id);
  snprintf(sb->mechanism, sizeof sb->mechanism, "%s", mechanism);
  atomic_init(&sb->killed, 0);
  return sb;
}

int sbio__dk_shown(const char *id) {
  size_t n = strlen(id);
  if (n == 64 && strspn(id, "0123456789abcdef") == 64) return 12;
  return n < 72 ? (int)n : 72;
}

int sbio__dk_remove_container(dk_instance *inst, const char *id, const sbio_bk_call *call, int *removed,
                              sbio_bk_error *err) {
  char path[200];
  snprintf(path, sizeof path, "/containers/%s?force=true&v=true", id);
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(inst, "DELETE", path, NULL, call, &resp);
  *removed = 0;
  if (rc == 0 && (resp.status == 204 || resp.status == 200)) {
    *removed = 1;
    rc = SBIO_OK;
  } else if (rc == 0 && resp.status == 404) {
    rc = SBIO_OK; /* already gone: that is what we wanted */
  } else if (rc == 0 && resp.status == 409 && resp.body && strstr(resp.body, "already in progress")) {
    *removed = 1; /* another caller is removing it right now */
    rc = SBIO_OK;
  } else {
    char what[128];
    snprintf(what, sizeof what, "remove container %.*s", sbio__dk_shown(id), id);
    rc = sbio__dk_fail(inst, &resp, SBIO_E_CONNECT, SBIO_E_CONNECT, what, err);
    if (err) snprintf(err->hint, sizeof err->hint, "%s", DK_REAP_HINT);
  }
  sbio_sdk_http_response_free(&resp);
  return rc;
}

static int valid_id(const char *id) {
  size_t n = id ? strlen(id) : 0;
  return n > 0 && n < 72 && strspn(id, "0123456789abcdefABCDEFghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ_.-") == n &&
         id[0] != '.' && id[0] != '-';
}

/* The sandbox (managed, running) behind an id, or an SBIO_E_CONNECT. */
static int inspect_managed(dk_instance *inst, const char *id, const sbio_bk_call *call, int need_running, char *full_id,
                           size_t id_size, char *runtime, size_t rt_size, sbio_bk_error *err) {
  char path[200];
  snprintf(path, sizeof path, "/containers/%s/json", id);
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(inst, "GET", path, NULL, call, &resp);
  if (rc == 0 && resp.status == 404) {
    sbio_sdk_http_response_free(&resp);
    return sbio_sdk_error(err, SBIO_E_CONNECT, "list live sandboxes with `sbio reap --backend docker`",
                          "docker: no sandbox %.72s on the engine at %s", id, inst->endpoint.display);
  }
  if (rc != 0 || resp.status != 200) {
    rc = sbio__dk_fail(inst, &resp, SBIO_E_CONNECT, SBIO_E_CONNECT, "inspect the container", err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  cJSON *root = cJSON_ParseWithLength(resp.body, resp.len);
  sbio_sdk_http_response_free(&resp);
  const cJSON *cid = root ? cJSON_GetObjectItemCaseSensitive(root, "Id") : NULL;
  const cJSON *config = root ? cJSON_GetObjectItemCaseSensitive(root, "Config") : NULL;
  const cJSON *labels = config ? cJSON_GetObjectItemCaseSensitive(config, "Labels") : NULL;
  const cJSON *managed = labels ? cJSON_GetObjectItemCaseSensitive(labels, DK_LABEL_MANAGED) : NULL;
  const cJSON *state = root ? cJSON_GetObjectItemCaseSensitive(root, "State") : NULL;
  const cJSON *status = state ? cJSON_GetObjectItemCaseSensitive(state, "Status") : NULL;
  const cJSON *hc = root ? cJSON_GetObjectItemCaseSensitive(root, "HostConfig") : NULL;
  const cJSON *rt = hc ? cJSON_GetObjectItemCaseSensitive(hc, "Runtime") : NULL;
  rc = SBIO_OK;
  if (!cJSON_IsString(cid) || !cid->valuestring || strlen(cid->valuestring) >= id_size)
    rc = sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "docker: the engine's inspect answer for %.72s has no id", id);
  else if (!cJSON_IsString(managed) || strcmp(managed->valuestring, "true") != 0)
    rc = sbio_sdk_error(err, SBIO_E_CONNECT, "only sandboxes created by sandboxio can be attached or reaped",
                        "docker: container %.72s is not managed by sandboxio (no %s=true label)", id, DK_LABEL_MANAGED);
  else if (need_running && !(cJSON_IsString(status) && !strcmp(status->valuestring, "running")))
    rc = sbio_sdk_error(err, SBIO_E_CONNECT, "create a new sandbox; `sbio reap --kill` removes stopped ones",
                        "docker: sandbox %.72s is not running (state: %s)", id,
                        cJSON_IsString(status) ? status->valuestring : "unknown");
  if (rc == SBIO_OK) {
    snprintf(full_id, id_size, "%s", cid->valuestring);
    snprintf(runtime, rt_size, "%s", cJSON_IsString(rt) && rt->valuestring[0] ? rt->valuestring : "unknown");
  }
  cJSON_Delete(root);
  return rc;
}

int sbio__dk_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                        sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  dk_instance *inst = instance;
  if (!inst || !call || !sandbox || !info)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker connect: missing argument");
  *sandbox = NULL;
  if (!valid_id(id))
    return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "docker: '%.80s' is not a container id", id ? id : "");
  int rc = sbio__dk_engine_ready(inst, call, SBIO_E_CONNECT, err);
  char full[72], runtime[64], mechanism[64];
  if (rc == SBIO_OK) rc = inspect_managed(inst, id, call, 1, full, sizeof full, runtime, sizeof runtime, err);
  if (rc != SBIO_OK) return rc;
  sbio__dk_podman_runtime(inst, full, call, runtime, sizeof runtime);
  sbio__dk_engine_mechanism(inst, runtime, call, mechanism, sizeof mechanism);
  dk_sandbox *sb = sbio__dk_sandbox_new(inst, full, mechanism);
  if (!sb) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  snprintf(info->id, sizeof info->id, "%s", sb->short_id);
  snprintf(info->mechanism, sizeof info->mechanism, "%s", sb->mechanism);
  *sandbox = sb;
  return SBIO_OK;
}

int sbio__dk_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  dk_sandbox *sb = sandbox;
  if (!sb || !call) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker kill: missing argument");
  /* An exec in flight on another thread sees this and ends. */
  atomic_store(&sb->killed, 1);
  int removed = 0;
  int rc = sbio__dk_engine_ready(sb->inst, call, SBIO_E_CONNECT, err);
  if (rc == SBIO_OK) rc = sbio__dk_remove_container(sb->inst, sb->id, call, &removed, err);
  return rc;
}

void sbio__dk_op_release(void *sandbox) {
  free(sandbox);
}

int sbio__dk_inspect_managed(dk_instance *inst, const char *id, const sbio_bk_call *call, char *full_id, size_t id_size,
                             sbio_bk_error *err) {
  char runtime[64];
  if (!valid_id(id))
    return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "docker: '%.80s' is not a container id", id ? id : "");
  return inspect_managed(inst, id, call, 0, full_id, id_size, runtime, sizeof runtime, err);
}

int sbio__dk_container_exists(dk_sandbox *sb, const sbio_bk_call *call) {
  char path[200];
  snprintf(path, sizeof path, "/containers/%s/json", sb->id);
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(sb->inst, "GET", path, NULL, call, &resp);
  int result = rc != 0 ? -1 : resp.status == 404 ? 0 : resp.status == 200 ? 1 : -1;
  sbio_sdk_http_response_free(&resp);
  return result;
}
