/* SPDX-License-Identifier: MIT */
#include "api.h"

#include "errmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "X-API-Key: <key>" from the variable the settings name (registered for
 * redaction on the way). SBIO_E_AUTH when it is unset, naming it only when
 * it is the default (a configured name may be the key itself), or when
 * its value cannot be sent in a header;
 * the caller wipes and frees *line. */
static int key_header(e2b_instance *inst, char **line, sbio_bk_error *err) {
  char *key = NULL;
  const char *var = inst->settings.api_key_env ? inst->settings.api_key_env : E2B_DEFAULT_KEY_ENV;
  int rc = sbio_sdk_secret_from_setting(inst->secrets, "e2b", "api_key_env", var, E2B_DEFAULT_KEY_ENV, &key, err);
  /* A key libcurl would refuse as a header is a credential error here,
   * before the first request, rather than a failed connection. */
  if (rc == SBIO_OK) rc = sbio_sdk_secret_check_header("e2b", var, key, 0, err);
  if (rc != SBIO_OK) {
    if (key) memset(key, 0, strlen(key));
    free(key);
    return rc;
  }
  size_t n = strlen(key) + 16;
  *line = malloc(n);
  if (*line) snprintf(*line, n, "X-API-Key: %s", key);
  memset(key, 0, strlen(key));
  free(key);
  return *line ? SBIO_OK : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
}

/* Sends one control-plane request. SBIO_OK when an answer arrived (any
 * status, in resp); otherwise err says why (and resp is freed). */
static int api_call(e2b_instance *inst, const sbio_bk_call *call, const char *method, const char *path,
                    const char *body, int idempotent, const char *what, sbio_sdk_op op, sbio_sdk_http_response *resp,
                    sbio_bk_error *err) {
  memset(resp, 0, sizeof *resp);
  char *key = NULL;
  int rc = key_header(inst, &key, err);
  if (rc != SBIO_OK) return rc;
  const char *headers[] = {key};
  sbio_sdk_http_request req = {.method = method,
                               .path = path,
                               .headers = headers,
                               .n_headers = 1,
                               .body = body,
                               .body_len = body ? strlen(body) : 0,
                               .retry = idempotent ? SBIO_SDK_RETRY_IDEMPOTENT : SBIO_SDK_RETRY_AUTO};
  int sent = sbio_sdk_http_send(inst->api, &req, call, resp);
  memset(key, 0, strlen(key));
  free(key);
  if (sent != 0) {
    rc = sbio_sdk_http_fail(inst->api, resp, op, what, err);
    sbio_sdk_http_response_free(resp);
    return rc;
  }
  return SBIO_OK;
}

static cJSON *parse_body(const sbio_sdk_http_response *resp) {
  return resp->body ? cJSON_ParseWithLength(resp->body, resp->len) : NULL;
}

static char *sandbox_path(const char *id, const char *tail) {
  return sbio_sdk_http_path("/sandboxes/", id, tail);
}

static int oom(sbio_bk_error *err) {
  return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
}

int sbio__e2b_api_create(e2b_instance *inst, const sbio_bk_call *call, const char *body, cJSON **sandbox,
                         sbio_bk_error *err) {
  *sandbox = NULL;
  sbio_sdk_http_response resp;
  int rc = api_call(inst, call, "POST", "/sandboxes", body, 0, "create a sandbox", SBIO_SDK_OP_CREATE, &resp, err);
  if (rc != SBIO_OK) {
    if (rc == SBIO_E_CREATE_TIMEOUT && err)
      snprintf(err->hint, sizeof err->hint,
               "if E2B created it anyway, its lifetime (the create timeout) ends it; `sbio reap` lists it");
    return rc;
  }
  if (resp.status != 201 && resp.status != 200) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "create a sandbox", SBIO_E_CREATE);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  *sandbox = parse_body(&resp);
  sbio_sdk_http_response_free(&resp);
  if (!cJSON_IsObject(*sandbox)) {
    cJSON_Delete(*sandbox);
    *sandbox = NULL;
    return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "e2b: the create answer is not a JSON object");
  }
  return SBIO_OK;
}

int sbio__e2b_api_get(e2b_instance *inst, const sbio_bk_call *call, const char *id, cJSON **detail, int *found,
                      sbio_bk_error *err) {
  *detail = NULL;
  *found = 0;
  char *path = sandbox_path(id, "");
  if (!path) return oom(err);
  sbio_sdk_http_response resp;
  int rc = api_call(inst, call, "GET", path, NULL, 1, "look up a sandbox", SBIO_SDK_OP_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 404) {
    sbio_sdk_http_response_free(&resp);
    return SBIO_OK;
  }
  if (resp.status != 200) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "look up a sandbox", SBIO_E_CONNECT);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  *detail = parse_body(&resp);
  sbio_sdk_http_response_free(&resp);
  if (!cJSON_IsObject(*detail)) {
    cJSON_Delete(*detail);
    *detail = NULL;
    return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "e2b: the sandbox description is not a JSON object");
  }
  *found = 1;
  return SBIO_OK;
}

int sbio__e2b_api_kill(e2b_instance *inst, const sbio_bk_call *call, const char *id, int *existed, sbio_bk_error *err) {
  *existed = 0;
  char *path = sandbox_path(id, "");
  if (!path) return oom(err);
  sbio_sdk_http_response resp;
  int rc = api_call(inst, call, "DELETE", path, NULL, 1, "kill a sandbox", SBIO_SDK_OP_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 204 || resp.status == 200)
    *existed = 1;
  else if (resp.status != 404)
    rc = sbio__e2b_fail_api(inst, err, &resp, "kill a sandbox", SBIO_E_CONNECT);
  sbio_sdk_http_response_free(&resp);
  return rc;
}

int sbio__e2b_api_set_timeout(e2b_instance *inst, const sbio_bk_call *call, const char *id, int seconds,
                              sbio_bk_error *err) {
  char *path = sandbox_path(id, "/timeout");
  if (!path) return oom(err);
  char body[48];
  snprintf(body, sizeof body, "{\"timeout\":%d}", seconds);
  sbio_sdk_http_response resp;
  /* Setting the same lifetime twice is harmless: idempotent. */
  int rc = api_call(inst, call, "POST", path, body, 1, "set a sandbox's timeout", SBIO_SDK_OP_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 404)
    rc = sbio_sdk_error_answer(err, SBIO_E_GONE, 404, NULL, "e2b: sandbox %.128s no longer exists", id);
  else if (resp.status != 204 && resp.status != 200)
    rc = sbio__e2b_fail_api(inst, err, &resp, "set a sandbox's timeout", SBIO_E_CONNECT);
  sbio_sdk_http_response_free(&resp);
  return rc;
}

int sbio__e2b_api_connect(e2b_instance *inst, const sbio_bk_call *call, const char *id, int timeout_s, cJSON **sandbox,
                          int *found, sbio_bk_error *err) {
  *sandbox = NULL;
  *found = 0;
  char *path = sandbox_path(id, "/connect");
  if (!path) return oom(err);
  char body[48];
  snprintf(body, sizeof body, "{\"timeout\":%d}", timeout_s);
  sbio_sdk_http_response resp;
  /* Connecting twice is harmless: it only extends the lifetime. */
  int rc = api_call(inst, call, "POST", path, body, 1, "connect to a sandbox", SBIO_SDK_OP_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 404) {
    sbio_sdk_http_response_free(&resp);
    return SBIO_OK;
  }
  if (resp.status != 200 && resp.status != 201) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "connect to a sandbox", SBIO_E_CONNECT);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  *sandbox = parse_body(&resp);
  sbio_sdk_http_response_free(&resp);
  if (!cJSON_IsObject(*sandbox)) {
    cJSON_Delete(*sandbox);
    *sandbox = NULL;
    return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "e2b: the connect answer is not a JSON object");
  }
  *found = 1;
  return SBIO_OK;
}

int sbio__e2b_api_list_page(e2b_instance *inst, const sbio_bk_call *call, const char *metadata_query,
                            const char *next_token, cJSON **items, char *next, size_t next_size, sbio_bk_error *err) {
  *items = NULL;
  next[0] = '\0';
  char *meta = metadata_query ? sbio_sdk_http_escape(metadata_query) : NULL;
  char *tok = next_token ? sbio_sdk_http_escape(next_token) : NULL;
  size_t n = 96 + (meta ? strlen(meta) : 0) + (tok ? strlen(tok) : 0);
  char *path = (!metadata_query || meta) && (!next_token || tok) ? malloc(n) : NULL;
  if (path) /* state is an array in form style, not exploded: comma-joined. */
    snprintf(path, n, "/v2/sandboxes?state=running%%2Cpaused&limit=100%s%s%s%s", meta ? "&metadata=" : "",
             meta ? meta : "", tok ? "&nextToken=" : "", tok ? tok : "");
  free(meta);
  free(tok);
  if (!path) return oom(err);
  sbio_sdk_http_response resp;
  int rc = api_call(inst, call, "GET", path, NULL, 1, "list sandboxes", SBIO_SDK_OP_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status != 200) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "list sandboxes", SBIO_E_CONNECT);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  *items = parse_body(&resp);
  if (!sbio_sdk_http_header(&resp, "X-Next-Token", next, next_size)) next[0] = '\0';
  sbio_sdk_http_response_free(&resp);
  if (!cJSON_IsArray(*items)) {
    cJSON_Delete(*items);
    *items = NULL;
    return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "e2b: the sandbox list is not a JSON array");
  }
  return SBIO_OK;
}
