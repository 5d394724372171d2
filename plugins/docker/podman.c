/* SPDX-License-Identifier: MIT */
#include "podman.h"

#include "api.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

void sbio__dk_podman_runtime(dk_instance *inst, const char *id, const sbio_bk_call *call, char *runtime, size_t size) {
  if (strcmp(runtime, "oci") != 0) return;
  char path[160];
  snprintf(path, sizeof path, "/libpod/containers/%.72s/json", id);
  /* Podman serves /libpod under any /vX.Y prefix; Docker answers 404. */
  sbio_sdk_http_response resp;
  int ok = sbio__dk_send(inst, "GET", path, NULL, call, &resp) == 0 && resp.status == 200;
  cJSON *root = ok ? cJSON_ParseWithLength(resp.body, resp.len) : NULL;
  sbio_sdk_http_response_free(&resp);
  const cJSON *rt = root ? cJSON_GetObjectItemCaseSensitive(root, "OCIRuntime") : NULL;
  if (cJSON_IsString(rt) && rt->valuestring && rt->valuestring[0] && strlen(rt->valuestring) < size)
    snprintf(runtime, size, "%s", rt->valuestring);
  cJSON_Delete(root);
}
