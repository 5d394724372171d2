/* SPDX-License-Identifier: MIT */
/* The hardened container spec every docker sandbox gets, whatever its main
 * process (docs/backends/docker.md): network none, every capability
 * dropped, no-new-privileges, PIDs, memory (swap equal) and CPU caps, an
 * init process reaping zombies, AutoRemove, the managed labels, the
 * environment and the working directory. One function, so no path can
 * build a weaker container; the caller adds Entrypoint and Cmd. */
#include "dk.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add_env(cJSON *arr, const sbio_bk_kv *kv, size_t n) {
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(kv[i].key) + strlen(kv[i].value) + 2;
    char *s = malloc(len);
    if (!s) return -1;
    snprintf(s, len, "%s=%s", kv[i].key, kv[i].value);
    cJSON *item = cJSON_CreateString(s);
    free(s);
    if (!item || !cJSON_AddItemToArray(arr, item)) return -1;
  }
  return 0;
}

static cJSON *labels_json(const sbio_bk_create_req *req) {
  cJSON *l = cJSON_CreateObject();
  char timeout[64];
  snprintf(timeout, sizeof timeout, "%g", req->timeout_s);
  if (!l || !cJSON_AddStringToObject(l, DK_LABEL_MANAGED, "true") ||
      !cJSON_AddStringToObject(l, DK_LABEL_SESSION, req->session_id ? req->session_id : "") ||
      !cJSON_AddStringToObject(l, DK_LABEL_TIMEOUT, timeout)) {
    cJSON_Delete(l);
    return NULL;
  }
  for (size_t i = 0; i < req->n_labels; i++) {
    if (!req->labels[i].key || !req->labels[i].value) continue;
    size_t len = strlen(req->labels[i].key) + sizeof DK_LABEL_META;
    char *key = malloc(len);
    if (!key) break;
    snprintf(key, len, "%s%s", DK_LABEL_META, req->labels[i].key);
    cJSON_DeleteItemFromObjectCaseSensitive(l, key);
    cJSON *ok = cJSON_AddStringToObject(l, key, req->labels[i].value);
    free(key);
    if (!ok) break;
  }
  return l;
}

cJSON *sbio__dk_container_spec(const dk_instance *inst, const sbio_bk_create_req *req, const char *image,
                               const char *runtime) {
  const dk_settings *st = &inst->settings;
  double cpu = req->cpu > 0 ? req->cpu : st->cpu;
  int64_t mem_mb = req->memory_mb > 0 ? req->memory_mb : st->memory_mb;
  cJSON *root = cJSON_CreateObject();
  cJSON *host = cJSON_CreateObject();
  cJSON *env = cJSON_CreateArray();
  cJSON *labels = labels_json(req);
  const char *caps[] = {"ALL"}, *secopt[] = {"no-new-privileges"};
  int ok = root && host && env && labels && add_env(env, req->env, req->n_env) == 0 &&
           add_env(env, req->secrets, req->n_secrets) == 0;
  if (ok) {
    cJSON_AddItemToObject(root, "HostConfig", host);
    cJSON_AddItemToObject(root, "Env", env);
    cJSON_AddItemToObject(root, "Labels", labels);
    host = env = labels = NULL;
    cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "HostConfig");
    ok = cJSON_AddStringToObject(root, "Image", image) && cJSON_AddStringToObject(root, "WorkingDir", DK_WORK_DIR) &&
         cJSON_AddFalseToObject(root, "Tty") && cJSON_AddFalseToObject(root, "OpenStdin") &&
         cJSON_AddStringToObject(h, "NetworkMode", "none") &&
         cJSON_AddItemToObject(h, "CapDrop", cJSON_CreateStringArray(caps, 1)) &&
         cJSON_AddItemToObject(h, "SecurityOpt", cJSON_CreateStringArray(secopt, 1)) &&
         cJSON_AddNumberToObject(h, "PidsLimit", (double)st->pids_limit) &&
         cJSON_AddNumberToObject(h, "Memory", (double)mem_mb * 1048576.0) &&
         cJSON_AddNumberToObject(h, "MemorySwap", (double)mem_mb * 1048576.0) &&
         cJSON_AddNumberToObject(h, "NanoCpus", floor(cpu * 1e9)) && cJSON_AddTrueToObject(h, "Init") &&
         cJSON_AddTrueToObject(h, "AutoRemove") && cJSON_AddStringToObject(h, "Runtime", runtime);
  }
  cJSON_Delete(host);
  cJSON_Delete(env);
  cJSON_Delete(labels);
  if (!ok) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}
