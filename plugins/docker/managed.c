/* SPDX-License-Identifier: MIT */
/* Sandboxes this project created on the engine, found by label, stopped
 * ones included (for `sbio reap`). A caller's label filter K=V matches the
 * metadata label io.sandboxio.meta.K=V; a key already under io.sandboxio.
 * (e.g. io.sandboxio.session) is matched as it is. */
#include "api.h"
#include "engine.h"
#include "errmap.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static char *filters_query(const sbio_bk_kv *labels, size_t n) {
  cJSON *root = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(root, "label");
  int ok = root && arr && cJSON_AddItemToArray(arr, cJSON_CreateString(DK_LABEL_MANAGED "=true"));
  for (size_t i = 0; ok && i < n; i++) {
    const char *k = labels[i].key ? labels[i].key : "", *v = labels[i].value ? labels[i].value : "";
    int raw = !strncmp(k, "io.sandboxio.", 13);
    size_t len = strlen(k) + strlen(v) + sizeof DK_LABEL_META + 2;
    char *f = malloc(len);
    ok = f != NULL;
    if (ok) {
      snprintf(f, len, "%s%s=%s", raw ? "" : DK_LABEL_META, k, v);
      ok = cJSON_AddItemToArray(arr, cJSON_CreateString(f)) != 0;
    }
    free(f);
  }
  char *json = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  if (!json) return NULL;
  char *path = sbio_sdk_http_path("/containers/json?all=1&filters=", json, "");
  free(json);
  return path;
}

static const char *state_name(const char *docker_state) {
  if (!strcmp(docker_state, "running") || !strcmp(docker_state, "restarting")) return "running";
  if (!strcmp(docker_state, "paused")) return "paused";
  return "stopped"; /* created, exited, dead, removing */
}

static void report(const cJSON *item, sbio_bk_managed_fn entry, void *user) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(item, "Id");
  const cJSON *state = cJSON_GetObjectItemCaseSensitive(item, "State");
  const cJSON *created = cJSON_GetObjectItemCaseSensitive(item, "Created");
  const cJSON *labels = cJSON_GetObjectItemCaseSensitive(item, "Labels");
  if (!cJSON_IsString(id) || !id->valuestring) return;
  size_t n = 0;
  for (const cJSON *l = labels ? labels->child : NULL; l; l = l->next)
    if (l->string && cJSON_IsString(l) && !strncmp(l->string, DK_LABEL_META, strlen(DK_LABEL_META))) n++;
  sbio_bk_kv *kv = n ? calloc(n, sizeof *kv) : NULL;
  size_t k = 0;
  for (const cJSON *l = labels ? labels->child : NULL; kv && l; l = l->next)
    if (l->string && cJSON_IsString(l) && !strncmp(l->string, DK_LABEL_META, strlen(DK_LABEL_META)))
      kv[k++] = (sbio_bk_kv){l->string + strlen(DK_LABEL_META), l->valuestring};
  char short_id[16];
  snprintf(short_id, sizeof short_id, "%.12s", id->valuestring);
  sbio_bk_managed m = {.size = sizeof m,
                       .id = short_id,
                       .state = state_name(cJSON_IsString(state) ? state->valuestring : ""),
                       .created_at = cJSON_IsNumber(created) ? (int64_t)created->valuedouble : -1,
                       .labels = kv,
                       .n_labels = k};
  entry(user, &m);
  free(kv);
}

int sbio__dk_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                             sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  dk_instance *inst = instance;
  if (!inst || !call || !entry || (n_labels && !labels))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker list_managed: missing argument");
  int rc = sbio__dk_engine_ready(inst, call, SBIO_E_CONNECT, err);
  if (rc != SBIO_OK) return rc;
  char *path = filters_query(labels, n_labels);
  if (!path) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  sbio_sdk_http_response resp;
  if (sbio__dk_send(inst, "GET", path, NULL, call, &resp) != 0 || resp.status != 200) {
    rc = sbio__dk_fail(inst, &resp, SBIO_E_CONNECT, SBIO_E_CONNECT, "list managed containers", err);
  } else {
    cJSON *root = cJSON_ParseWithLength(resp.body, resp.len);
    if (!cJSON_IsArray(root))
      rc = sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "docker: the engine's container list is not a JSON array");
    for (const cJSON *item = root ? root->child : NULL; rc == SBIO_OK && item; item = item->next)
      report(item, entry, user);
    cJSON_Delete(root);
  }
  sbio_sdk_http_response_free(&resp);
  free(path);
  return rc;
}

int sbio__dk_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed,
                             sbio_bk_error *err) {
  dk_instance *inst = instance;
  if (!inst || !call || !killed)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker kill_managed: missing argument");
  *killed = 0;
  int rc = sbio__dk_engine_ready(inst, call, SBIO_E_CONNECT, err);
  char full[72];
  sbio_bk_error probe = {.size = sizeof probe};
  /* Only ever remove what carries our label; an id that is gone is done. */
  if (rc == SBIO_OK) rc = sbio__dk_inspect_managed(inst, id, call, full, sizeof full, &probe);
  if (rc != SBIO_OK) {
    if (err && rc != SBIO_OK && probe.code) *err = probe;
    if (strstr(probe.message, "no sandbox")) return SBIO_OK;
    return rc;
  }
  return sbio__dk_remove_container(inst, full, call, killed, err);
}
