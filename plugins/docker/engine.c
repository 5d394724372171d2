/* SPDX-License-Identifier: MIT */
#include "engine.h"

#include "api.h"
#include "errmap.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* The minimum the engine accepts, from /version (needed only for engines
 * newer than what we prefer: docker 29.0-29.2 refuse anything below 1.44). */
static int engine_min_version(dk_instance *inst, const sbio_bk_call *call, char *out, size_t size) {
  sbio_sdk_http_request req = {.method = "GET", .path = "/version"};
  sbio_sdk_http_response resp;
  int ok = sbio_sdk_http_send(inst->http, &req, call, &resp) == 0 && resp.status == 200;
  cJSON *root = ok ? cJSON_ParseWithLength(resp.body, resp.len) : NULL;
  const cJSON *min = root ? cJSON_GetObjectItemCaseSensitive(root, "MinAPIVersion") : NULL;
  ok = cJSON_IsString(min) && min->valuestring && strlen(min->valuestring) < size;
  if (ok) snprintf(out, size, "%s", min->valuestring);
  cJSON_Delete(root);
  sbio_sdk_http_response_free(&resp);
  return ok ? 0 : -1;
}

static int negotiate(dk_instance *inst, const sbio_bk_call *call, int code, sbio_bk_error *err) {
  /* Unversioned: the version is what this request finds out. */
  sbio_sdk_http_request req = {.method = "GET", .path = "/_ping"};
  sbio_sdk_http_response resp;
  int rc = sbio_sdk_http_send(inst->http, &req, call, &resp);
  if (rc != 0 || resp.status != 200) {
    rc = sbio__dk_fail(inst, &resp, code, code == SBIO_E_CREATE ? SBIO_E_CREATE_TIMEOUT : code,
                       "ask the engine for its API version (/_ping)", err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  char version[16];
  /* Engines before API 1.24 sent no Api-Version header: too old for us. */
  const char *max = sbio_sdk_http_header(&resp, "Api-Version", version, sizeof version);
  if (!max || !max[0]) max = "1.23";
  sbio_sdk_http_response_free(&resp);
  if (sbio__dk_version_cmp(max, DK_API_MIN) < 0)
    return sbio_sdk_error(err, code, "upgrade Docker (Engine 1.13 or newer)",
                          "docker: the engine at %s speaks API %s; this backend needs API %s or newer",
                          inst->endpoint.display, max, DK_API_MIN);
  const char *use = sbio__dk_version_cmp(max, DK_API_PREFERRED) < 0 ? max : DK_API_PREFERRED;
  char min[16] = "";
  if (sbio__dk_version_cmp(max, "1.44") >= 0 && engine_min_version(inst, call, min, sizeof min) == 0 &&
      sbio__dk_version_cmp(min, use) > 0) {
    if (sbio__dk_version_cmp(min, DK_API_COMPAT_MAX) > 0)
      return sbio_sdk_error(err, code, "lower the engine's min-api-version, or use a newer sandboxio",
                            "docker: the engine at %s accepts API %s and newer only; this backend speaks up to %s",
                            inst->endpoint.display, min, DK_API_COMPAT_MAX);
    use = min;
  }
  snprintf(inst->api, sizeof inst->api, "%s", use);
  inst->negotiated = 1;
  return SBIO_OK;
}

int sbio__dk_engine_ready(dk_instance *inst, const sbio_bk_call *call, int code, sbio_bk_error *err) {
  pthread_mutex_lock(&inst->lock);
  int rc = inst->negotiated ? SBIO_OK : negotiate(inst, call, code, err);
  pthread_mutex_unlock(&inst->lock);
  return rc;
}

/* Caller holds inst->lock. */
static int fetch_info(dk_instance *inst, const sbio_bk_call *call, int code, sbio_bk_error *err) {
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(inst, "GET", "/info", NULL, call, &resp);
  if (rc != 0 || resp.status != 200) {
    rc = sbio__dk_fail(inst, &resp, code, code == SBIO_E_CREATE ? SBIO_E_CREATE_TIMEOUT : code,
                       "ask the engine for its runtimes (/info)", err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  cJSON *root = cJSON_ParseWithLength(resp.body, resp.len);
  sbio_sdk_http_response_free(&resp);
  const cJSON *def = root ? cJSON_GetObjectItemCaseSensitive(root, "DefaultRuntime") : NULL;
  const cJSON *runtimes = root ? cJSON_GetObjectItemCaseSensitive(root, "Runtimes") : NULL;
  char *text = cJSON_IsObject(runtimes) ? cJSON_PrintUnformatted(runtimes) : strdup("{}");
  /* Engines before 1.25 had no DefaultRuntime: they only ran runc. */
  snprintf(inst->default_runtime, sizeof inst->default_runtime, "%s",
           cJSON_IsString(def) && def->valuestring && def->valuestring[0] ? def->valuestring : "runc");
  cJSON_Delete(root);
  if (!text) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory reading /info");
  free(inst->runtimes_json);
  inst->runtimes_json = text;
  return SBIO_OK;
}

int sbio__dk_engine_default_runtime(dk_instance *inst, const sbio_bk_call *call, int code, char *out, size_t size,
                                    sbio_bk_error *err) {
  int rc = sbio__dk_engine_ready(inst, call, code, err);
  if (rc != SBIO_OK) return rc;
  pthread_mutex_lock(&inst->lock);
  if (!inst->runtimes_json) rc = fetch_info(inst, call, code, err);
  if (rc == SBIO_OK) snprintf(out, size, "%s", inst->default_runtime);
  pthread_mutex_unlock(&inst->lock);
  return rc;
}

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void sbio__dk_engine_mechanism(dk_instance *inst, const char *runtime, const sbio_bk_call *call, char *out,
                               size_t size) {
  snprintf(out, size, "%s", runtime);
  /* "runc" is taken as runc without /info: Docker reserves the name for
   * its own runc, and the lookup below could only rename it to a stronger
   * mechanism (a Podman runtime called runc whose binary is runsc), never
   * to a weaker one, so skipping it can only under-claim. A process that
   * runs one command on runc then does not pay for /info (9 ms here). */
  if (!strcmp(runtime, "runc")) return;
  /* Any other name is only what the runtime is called: until /info says
   * what runs under it, it claims nothing (a runtime registered as runsc
   * whose binary is something else is not gVisor, and an /info that cannot
   * be read confirms nothing). An undeclared name is UNKNOWN. */
  snprintf(out, size, "unverified-%s", runtime);
  char dummy[64];
  if (sbio__dk_engine_default_runtime(inst, call, SBIO_E_CREATE, dummy, sizeof dummy, NULL) != SBIO_OK) return;
  pthread_mutex_lock(&inst->lock);
  cJSON *root = cJSON_Parse(inst->runtimes_json);
  pthread_mutex_unlock(&inst->lock);
  const cJSON *rt = root ? cJSON_GetObjectItemCaseSensitive(root, runtime) : NULL;
  const cJSON *path = rt ? cJSON_GetObjectItemCaseSensitive(rt, "path") : NULL;
  const cJSON *type = rt ? cJSON_GetObjectItemCaseSensitive(rt, "runtimeType") : NULL;
  const char *bin = cJSON_IsString(path) && path->valuestring ? base_name(path->valuestring) : "";
  const char *shim = cJSON_IsString(type) && type->valuestring ? type->valuestring : "";
  /* Named by what runs, not by what it is called: a runtime registered as
   * "gvisor" whose binary is runsc is runsc. */
  if (!strcmp(bin, "runsc") || strstr(shim, ".runsc."))
    snprintf(out, size, "runsc");
  else if (!strcmp(bin, "runc") || strstr(shim, ".runc."))
    snprintf(out, size, "runc");
  cJSON_Delete(root);
}
