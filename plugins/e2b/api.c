/* SPDX-License-Identifier: MIT */
#include "api.h"

#include "errmap.h"
#include "retry.h"
#include "url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbio__e2b_api_key(const e2b_instance *inst, const char **key, sbio_bk_error *err) {
  const char *var = inst->settings.api_key_env;
  const char *v = getenv(var);
  *key = NULL;
  if (!v || !v[0]) {
    char hint[160];
    snprintf(hint, sizeof hint, "export %s=e2b_... (the key is read from the environment only)", var);
    return sbio_bk_error_set(err, SBIO_E_AUTH, hint, "e2b: no API key: the environment variable %s is not set", var);
  }
  *key = v;
  return SBIO_OK;
}

/* The request's deadline: the call's, capped by request_timeout. */
static int64_t request_deadline(const e2b_instance *inst, const sbio_bk_call *call) {
  int64_t cap = sbio_bk_now_ns(call) + (int64_t)(inst->settings.request_timeout_s * 1e9);
  return call->deadline_ns < cap ? call->deadline_ns : cap;
}

/* Sends one control-plane request. SBIO_OK when an answer arrived (any
 * status, in resp); otherwise err says why. */
static int api_call(e2b_instance *inst, const sbio_bk_call *call, const char *method, const char *path,
                    const char *body, int idempotent, const char *what, int timeout_code, int fail_code, e2b_resp *resp,
                    sbio_bk_error *err) {
  memset(resp, 0, sizeof *resp);
  const char *key;
  int rc = sbio__e2b_api_key(inst, &key, err);
  if (rc != SBIO_OK) return rc;
  size_t n = strlen(inst->settings.api_url) + strlen(path) + 1;
  char *url = malloc(n);
  struct curl_slist *h = sbio__e2b_header(NULL, "X-API-Key", key);
  if (h) h = sbio__e2b_header(h, "Accept", "application/json");
  if (h) h = sbio__e2b_header(h, "Expect", "");
  if (h && body) h = sbio__e2b_header(h, "Content-Type", "application/json");
  if (!url || !h) {
    free(url);
    sbio__e2b_headers_free(h);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  snprintf(url, n, "%s%s", inst->settings.api_url, path);
  e2b_req req = {.method = method,
                 .url = url,
                 .headers = h,
                 .body = body,
                 .body_len = body ? strlen(body) : 0,
                 .deadline_ns = request_deadline(inst, call)};
  int sent = sbio__e2b_http_retry(inst, call, &req, idempotent, E2B_API, resp, NULL);
  sbio__e2b_headers_free(h);
  free(url);
  if (sent != 0) {
    rc = sbio__e2b_fail_transport(err, resp, what, timeout_code, fail_code);
    sbio__e2b_resp_free(resp);
    return rc;
  }
  return SBIO_OK;
}

static cJSON *parse_body(const e2b_resp *resp) {
  return resp->body ? cJSON_ParseWithLength(resp->body, resp->len) : NULL;
}

static char *sandbox_path(const char *id, const char *tail) {
  char *eid = sbio__e2b_escape(id, 0);
  if (!eid) return NULL;
  size_t n = strlen(eid) + strlen(tail) + 16;
  char *p = malloc(n);
  if (p) snprintf(p, n, "/sandboxes/%s%s", eid, tail);
  free(eid);
  return p;
}

int sbio__e2b_api_create(e2b_instance *inst, const sbio_bk_call *call, const char *body, cJSON **sandbox,
                         sbio_bk_error *err) {
  *sandbox = NULL;
  e2b_resp resp;
  int rc = api_call(inst, call, "POST", "/sandboxes", body, 0, "create a sandbox", SBIO_E_CREATE_TIMEOUT, SBIO_E_CREATE,
                    &resp, err);
  if (rc != SBIO_OK) {
    if (rc == SBIO_E_CREATE_TIMEOUT && err)
      snprintf(err->hint, sizeof err->hint,
               "if E2B created it anyway, its lifetime (the create timeout) ends it; `sbio reap` lists it");
    return rc;
  }
  if (resp.status != 201 && resp.status != 200) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "create a sandbox", SBIO_E_CREATE);
    sbio__e2b_resp_free(&resp);
    return rc;
  }
  *sandbox = parse_body(&resp);
  sbio__e2b_resp_free(&resp);
  if (!cJSON_IsObject(*sandbox)) {
    cJSON_Delete(*sandbox);
    *sandbox = NULL;
    return sbio_bk_error_set(err, SBIO_E_CREATE, NULL, "e2b: the create answer is not a JSON object");
  }
  return SBIO_OK;
}

int sbio__e2b_api_get(e2b_instance *inst, const sbio_bk_call *call, const char *id, cJSON **detail, int *found,
                      sbio_bk_error *err) {
  *detail = NULL;
  *found = 0;
  char *path = sandbox_path(id, "");
  if (!path) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  e2b_resp resp;
  int rc = api_call(inst, call, "GET", path, NULL, 1, "look up a sandbox", SBIO_E_CONNECT, SBIO_E_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 404) {
    sbio__e2b_resp_free(&resp);
    return SBIO_OK;
  }
  if (resp.status != 200) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "look up a sandbox", SBIO_E_CONNECT);
    sbio__e2b_resp_free(&resp);
    return rc;
  }
  *detail = parse_body(&resp);
  sbio__e2b_resp_free(&resp);
  if (!cJSON_IsObject(*detail)) {
    cJSON_Delete(*detail);
    *detail = NULL;
    return sbio_bk_error_set(err, SBIO_E_CONNECT, NULL, "e2b: the sandbox description is not a JSON object");
  }
  *found = 1;
  return SBIO_OK;
}

int sbio__e2b_api_kill(e2b_instance *inst, const sbio_bk_call *call, const char *id, int *existed, sbio_bk_error *err) {
  *existed = 0;
  char *path = sandbox_path(id, "");
  if (!path) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  e2b_resp resp;
  int rc = api_call(inst, call, "DELETE", path, NULL, 1, "kill a sandbox", SBIO_E_CONNECT, SBIO_E_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 204 || resp.status == 200)
    *existed = 1;
  else if (resp.status != 404)
    rc = sbio__e2b_fail_api(inst, err, &resp, "kill a sandbox", SBIO_E_CONNECT);
  sbio__e2b_resp_free(&resp);
  return rc;
}

int sbio__e2b_api_set_timeout(e2b_instance *inst, const sbio_bk_call *call, const char *id, int seconds,
                              sbio_bk_error *err) {
  char *path = sandbox_path(id, "/timeout");
  if (!path) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  char body[48];
  snprintf(body, sizeof body, "{\"timeout\":%d}", seconds);
  e2b_resp resp;
  int rc = api_call(inst, call, "POST", path, body, 1, "set a sandbox's timeout", SBIO_E_CONNECT, SBIO_E_CONNECT, &resp,
                    err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 404)
    rc = sbio_bk_error_set(err, SBIO_E_GONE, NULL, "e2b: sandbox %.128s no longer exists", id);
  else if (resp.status != 204 && resp.status != 200)
    rc = sbio__e2b_fail_api(inst, err, &resp, "set a sandbox's timeout", SBIO_E_CONNECT);
  sbio__e2b_resp_free(&resp);
  return rc;
}

int sbio__e2b_api_connect(e2b_instance *inst, const sbio_bk_call *call, const char *id, int timeout_s, cJSON **sandbox,
                          int *found, sbio_bk_error *err) {
  *sandbox = NULL;
  *found = 0;
  char *path = sandbox_path(id, "/connect");
  if (!path) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  char body[48];
  snprintf(body, sizeof body, "{\"timeout\":%d}", timeout_s);
  e2b_resp resp;
  /* Connecting twice is harmless: it only extends the lifetime. */
  int rc =
      api_call(inst, call, "POST", path, body, 1, "connect to a sandbox", SBIO_E_CONNECT, SBIO_E_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status == 404) {
    sbio__e2b_resp_free(&resp);
    return SBIO_OK;
  }
  if (resp.status != 200 && resp.status != 201) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "connect to a sandbox", SBIO_E_CONNECT);
    sbio__e2b_resp_free(&resp);
    return rc;
  }
  *sandbox = parse_body(&resp);
  sbio__e2b_resp_free(&resp);
  if (!cJSON_IsObject(*sandbox)) {
    cJSON_Delete(*sandbox);
    *sandbox = NULL;
    return sbio_bk_error_set(err, SBIO_E_CONNECT, NULL, "e2b: the connect answer is not a JSON object");
  }
  *found = 1;
  return SBIO_OK;
}

int sbio__e2b_api_list_page(e2b_instance *inst, const sbio_bk_call *call, const char *metadata_query,
                            const char *next_token, cJSON **items, char *next, size_t next_size, sbio_bk_error *err) {
  *items = NULL;
  next[0] = '\0';
  char *meta = metadata_query ? sbio__e2b_escape(metadata_query, 0) : NULL;
  char *tok = next_token ? sbio__e2b_escape(next_token, 0) : NULL;
  if ((metadata_query && !meta) || (next_token && !tok)) {
    free(meta);
    free(tok);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  size_t n = 96 + (meta ? strlen(meta) : 0) + (tok ? strlen(tok) : 0);
  char *path = malloc(n);
  if (!path) {
    free(meta);
    free(tok);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  /* state is an array in form style, not exploded: comma-joined. */
  snprintf(path, n, "/v2/sandboxes?state=running%%2Cpaused&limit=100%s%s%s%s", meta ? "&metadata=" : "",
           meta ? meta : "", tok ? "&nextToken=" : "", tok ? tok : "");
  free(meta);
  free(tok);
  e2b_resp resp;
  int rc = api_call(inst, call, "GET", path, NULL, 1, "list sandboxes", SBIO_E_CONNECT, SBIO_E_CONNECT, &resp, err);
  free(path);
  if (rc != SBIO_OK) return rc;
  if (resp.status != 200) {
    rc = sbio__e2b_fail_api(inst, err, &resp, "list sandboxes", SBIO_E_CONNECT);
    sbio__e2b_resp_free(&resp);
    return rc;
  }
  *items = parse_body(&resp);
  snprintf(next, next_size, "%s", resp.next_token);
  sbio__e2b_resp_free(&resp);
  if (!cJSON_IsArray(*items)) {
    cJSON_Delete(*items);
    *items = NULL;
    return sbio_bk_error_set(err, SBIO_E_CONNECT, NULL, "e2b: the sandbox list is not a JSON array");
  }
  return SBIO_OK;
}
