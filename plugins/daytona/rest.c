/* SPDX-License-Identifier: MIT */
/* REST calls through the SDK's client. Reads and deletes are idempotent
 * and retried; the create is not (a retried POST could make a second
 * sandbox), except on a 429, which the SDK retries for any request. */
#include "rest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "/sandbox/" + escaped id + suffix, relative to the API's base. */
static char *sandbox_path(const char *id, const char *suffix) {
  return sbio_sdk_http_path("/sandbox/", id, suffix);
}

/* Sends req to the API under the operation's call. */
static void send_api(dt_ctx *ctx, sbio_sdk_http_request *req, sbio_sdk_http_response *resp) {
  sbio_sdk_http_send(ctx->inst->api, req, &ctx->call, resp);
}

static int oom(sbio_bk_error *err) {
  return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory talking to Daytona");
}

static int not_a_sandbox(const dt_op *op, long status, sbio_bk_error *err) {
  return sbio_sdk_error_answer(err, op->fail_code, status, NULL,
                               "Daytona answered %ld while %s, but not with a sandbox record", status, op->what);
}

/* Parses a 2xx body as one sandbox record. */
static int parse_record(const sbio_sdk_http_response *resp, const dt_op *op, dt_record *out, sbio_bk_error *err) {
  cJSON *doc = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->len);
  int no_mem = 0;
  int rc = sbio__dt_record_parse(doc, out, &no_mem);
  cJSON_Delete(doc);
  if (rc == 0) return SBIO_OK;
  return no_mem ? oom(err) : not_a_sandbox(op, resp->status, err);
}

/* Sends `method path` for a read or a delete of one thing and frees path.
 * A 2xx sets *there; a 404 leaves it 0 and is no failure (the thing is
 * not there: a get finds nothing, a kill is idempotent); anything else
 * is the operation's failure. The caller frees *resp in every case. */
static int send_for_one(dt_ctx *ctx, const char *method, char *path, const dt_op *op, sbio_sdk_http_response *resp,
                        int *there, sbio_bk_error *err) {
  *there = 0;
  sbio_sdk_http_request req = sbio__dt_request(ctx, method, path);
  send_api(ctx, &req, resp);
  free(path);
  if (resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status == 404) return SBIO_OK;
  if (!sbio__dt_ok(resp)) return sbio__dt_fail(ctx, op, resp, err);
  *there = 1;
  return SBIO_OK;
}

int sbio__dt_api_create(dt_ctx *ctx, const char *body, const dt_op *op, dt_record *out, int *ambiguous,
                        sbio_bk_error *err) {
  *ambiguous = 0;
  sbio_sdk_http_request req = sbio__dt_request(ctx, "POST", "/sandbox");
  req.body = body;
  req.body_len = strlen(body);
  sbio_sdk_http_response resp;
  send_api(ctx, &req, &resp);
  int rc;
  if (sbio__dt_ok(&resp)) {
    rc = parse_record(&resp, op, out, err);
    /* A 2xx means the sandbox was made, though the answer gives no usable
     * id: it must be found by its name and deleted like a lost answer. */
    *ambiguous = rc != SBIO_OK;
  } else {
    /* Without an answer, or with a server error, the POST may have been
     * carried out; a 4xx, a 429, or a request that never left means it
     * was not. */
    *ambiguous = resp.outcome == SBIO_SDK_HTTP_ANSWERED ? resp.status >= 500
                                                        : !resp.not_sent && resp.outcome != SBIO_SDK_HTTP_NOMEM;
    rc = sbio__dt_fail(ctx, op, &resp, err);
  }
  sbio_sdk_http_response_free(&resp);
  return rc;
}

int sbio__dt_api_get(dt_ctx *ctx, const char *id_or_name, const dt_op *op, dt_record *out, int *found,
                     sbio_bk_error *err) {
  *found = 0;
  char *path = sandbox_path(id_or_name, "");
  if (!path) return oom(err);
  sbio_sdk_http_response resp;
  int there;
  int rc = send_for_one(ctx, "GET", path, op, &resp, &there, err);
  if (there) {
    rc = parse_record(&resp, op, out, err);
    *found = rc == SBIO_OK;
  }
  sbio_sdk_http_response_free(&resp);
  return rc;
}

int sbio__dt_api_delete(dt_ctx *ctx, const char *id_or_name, const dt_op *op, int *existed, sbio_bk_error *err) {
  *existed = 0;
  char *path = sandbox_path(id_or_name, "");
  if (!path) return oom(err);
  sbio_sdk_http_response resp;
  int rc = send_for_one(ctx, "DELETE", path, op, &resp, existed, err); /* a 404: already gone */
  sbio_sdk_http_response_free(&resp);
  return rc;
}

/* Feeds every record of a JSON array to fn; items that are not records are
 * skipped (a list must not fail because one entry is odd). */
static int each_record(const cJSON *items, dt_record_fn fn, void *user, sbio_bk_error *err) {
  const cJSON *it;
  cJSON_ArrayForEach(it, items) {
    dt_record r;
    int no_mem = 0;
    if (sbio__dt_record_parse(it, &r, &no_mem) != 0) {
      if (no_mem) return oom(err);
      continue;
    }
    fn(user, &r);
    sbio__dt_record_free(&r);
  }
  return SBIO_OK;
}

static char *list_path(const char *labels_json, const char *cursor) {
  char *labels = sbio_sdk_http_escape(labels_json);
  char *cur = cursor ? sbio_sdk_http_escape(cursor) : NULL;
  char *path = NULL;
  if (labels && (!cursor || cur)) {
    size_t n = strlen(labels) + (cur ? strlen(cur) : 0) + 64;
    path = malloc(n);
    if (path) snprintf(path, n, "/sandbox?labels=%s&limit=100%s%s", labels, cur ? "&cursor=" : "", cur ? cur : "");
  }
  free(labels);
  free(cur);
  return path;
}

int sbio__dt_api_list_page(dt_ctx *ctx, const char *labels_json, const char *cursor, const dt_op *op, dt_record_fn fn,
                           void *user, char **next, sbio_bk_error *err) {
  *next = NULL;
  char *path = list_path(labels_json, cursor);
  if (!path) return oom(err);
  sbio_sdk_http_request req = sbio__dt_request(ctx, "GET", path);
  sbio_sdk_http_response resp;
  send_api(ctx, &req, &resp);
  free(path);
  if (!sbio__dt_ok(&resp)) {
    int rc = sbio__dt_fail(ctx, op, &resp, err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  cJSON *doc = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
  const cJSON *items = cJSON_IsArray(doc) ? doc : cJSON_GetObjectItemCaseSensitive(doc, "items");
  int rc;
  if (!cJSON_IsArray(items)) {
    rc = sbio_sdk_error(err, op->fail_code, NULL,
                        "Daytona answered %ld while %s, but neither with a list of sandboxes nor with a page of them",
                        resp.status, op->what);
  } else {
    rc = each_record(items, fn, user, err);
    const cJSON *nc = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "nextCursor") : NULL;
    if (rc == SBIO_OK && cJSON_IsString(nc) && nc->valuestring[0] && !(*next = strdup(nc->valuestring))) rc = oom(err);
  }
  cJSON_Delete(doc);
  sbio_sdk_http_response_free(&resp);
  return rc;
}

/* GET path and copy the string field `field` of its JSON object. */
static int get_string_field(dt_ctx *ctx, char *path, const char *field, const dt_op *op, char *out, size_t size,
                            int *found, sbio_bk_error *err) {
  *found = 0;
  out[0] = '\0';
  if (!path) return oom(err);
  sbio_sdk_http_response resp;
  int there;
  int rc = send_for_one(ctx, "GET", path, op, &resp, &there, err);
  if (there) {
    cJSON *doc = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
    const cJSON *v = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, field) : NULL;
    if (cJSON_IsString(v) && v->valuestring[0] && strlen(v->valuestring) < size) {
      snprintf(out, size, "%s", v->valuestring);
      *found = 1;
    }
    cJSON_Delete(doc);
  }
  sbio_sdk_http_response_free(&resp);
  return rc;
}

int sbio__dt_api_toolbox_url(dt_ctx *ctx, const char *id, const dt_op *op, char *out, size_t size, int *found,
                             sbio_bk_error *err) {
  return get_string_field(ctx, sandbox_path(id, "/toolbox-proxy-url"), "url", op, out, size, found, err);
}

int sbio__dt_api_config_toolbox(dt_ctx *ctx, const dt_op *op, char *out, size_t size, int *found, sbio_bk_error *err) {
  return get_string_field(ctx, strdup("/config"), "proxyToolboxUrl", op, out, size, found, err);
}
