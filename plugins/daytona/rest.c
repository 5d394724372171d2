/* SPDX-License-Identifier: MIT */
/* REST calls. Reads and deletes are idempotent and retried; the create is
 * not (a retried POST could make a second sandbox), except on a 429. */
#include "rest.h"

#include "url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* api_url + "/" + path; NULL on out-of-memory. */
static char *api(dt_ctx *ctx, const char *path) {
  return sbio__dt_url_join(ctx->inst->settings.api_url, path);
}

/* "sandbox/" + escaped id + suffix. */
static char *sandbox_url(dt_ctx *ctx, const char *id, const char *suffix) {
  char *esc = sbio__dt_url_escape(id, 0);
  if (!esc) return NULL;
  size_t n = strlen(esc) + strlen(suffix) + 16;
  char *path = malloc(n);
  char *url = NULL;
  if (path) {
    snprintf(path, n, "sandbox/%s%s", esc, suffix);
    url = api(ctx, path);
  }
  free(esc);
  free(path);
  return url;
}

static int oom(sbio_bk_error *err) {
  return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory talking to Daytona");
}

static int not_a_sandbox(const dt_op *op, long status, sbio_bk_error *err) {
  int rc = sbio_bk_error_set(err, op->fail_code, NULL, "Daytona answered %ld while %s, but not with a sandbox record",
                             status, op->what);
  err->provider_status = (int)status;
  return rc;
}

/* Parses a 2xx body as one sandbox record. */
static int parse_record(const dt_http_resp *resp, const dt_op *op, dt_record *out, sbio_bk_error *err) {
  cJSON *doc = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->len);
  int no_mem = 0;
  int rc = sbio__dt_record_parse(doc, out, &no_mem);
  cJSON_Delete(doc);
  if (rc == 0) return SBIO_OK;
  return no_mem ? oom(err) : not_a_sandbox(op, resp->status, err);
}

static int ok_status(long st) {
  return st >= 200 && st < 300;
}

int sbio__dt_api_create(dt_ctx *ctx, const char *body, const dt_op *op, dt_record *out, int *ambiguous,
                        sbio_bk_error *err) {
  *ambiguous = 0;
  char *url = api(ctx, "sandbox");
  if (!url) return oom(err);
  dt_http_req req = {.method = "POST", .url = url, .json = body};
  dt_http_resp resp;
  dt_http_outcome out_c = sbio__dt_http(ctx, &req, &resp);
  free(url);
  int rc;
  if (out_c == DT_HTTP_OK && ok_status(resp.status)) {
    rc = parse_record(&resp, op, out, err);
  } else {
    /* Without an answer, or with a server error, the POST may have been
     * carried out; a 4xx or a 429 means it was not. */
    *ambiguous = out_c == DT_HTTP_TRANSPORT || out_c == DT_HTTP_DEADLINE || out_c == DT_HTTP_CANCELLED ||
                 (out_c == DT_HTTP_OK && resp.status >= 500);
    rc = sbio__dt_fail(ctx, op, out_c, &resp, err);
  }
  sbio__dt_http_resp_free(&resp);
  return rc;
}

int sbio__dt_api_get(dt_ctx *ctx, const char *id_or_name, const dt_op *op, dt_record *out, int *found,
                     sbio_bk_error *err) {
  *found = 0;
  char *url = sandbox_url(ctx, id_or_name, "");
  if (!url) return oom(err);
  dt_http_req req = {.method = "GET", .url = url, .idempotent = 1};
  dt_http_resp resp;
  dt_http_outcome o = sbio__dt_http(ctx, &req, &resp);
  free(url);
  int rc = SBIO_OK;
  if (o == DT_HTTP_OK && resp.status == 404) {
    rc = SBIO_OK;
  } else if (o == DT_HTTP_OK && ok_status(resp.status)) {
    rc = parse_record(&resp, op, out, err);
    *found = rc == SBIO_OK;
  } else {
    rc = sbio__dt_fail(ctx, op, o, &resp, err);
  }
  sbio__dt_http_resp_free(&resp);
  return rc;
}

int sbio__dt_api_delete(dt_ctx *ctx, const char *id_or_name, const dt_op *op, int *existed, sbio_bk_error *err) {
  *existed = 0;
  char *url = sandbox_url(ctx, id_or_name, "");
  if (!url) return oom(err);
  dt_http_req req = {.method = "DELETE", .url = url, .idempotent = 1};
  dt_http_resp resp;
  dt_http_outcome o = sbio__dt_http(ctx, &req, &resp);
  free(url);
  int rc = SBIO_OK;
  if (o == DT_HTTP_OK && resp.status == 404)
    rc = SBIO_OK; /* already gone: a kill is idempotent */
  else if (o == DT_HTTP_OK && ok_status(resp.status))
    *existed = 1;
  else
    rc = sbio__dt_fail(ctx, op, o, &resp, err);
  sbio__dt_http_resp_free(&resp);
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

static char *list_url(dt_ctx *ctx, const char *labels_json, const char *cursor) {
  char *labels = sbio__dt_url_escape(labels_json, 0);
  char *cur = cursor ? sbio__dt_url_escape(cursor, 0) : NULL;
  char *url = NULL;
  if (labels && (!cursor || cur)) {
    size_t n = strlen(labels) + (cur ? strlen(cur) : 0) + 64;
    char *path = malloc(n);
    if (path) {
      snprintf(path, n, "sandbox?labels=%s&limit=100%s%s", labels, cur ? "&cursor=" : "", cur ? cur : "");
      url = api(ctx, path);
      free(path);
    }
  }
  free(labels);
  free(cur);
  return url;
}

int sbio__dt_api_list_page(dt_ctx *ctx, const char *labels_json, const char *cursor, const dt_op *op, dt_record_fn fn,
                           void *user, char **next, sbio_bk_error *err) {
  *next = NULL;
  char *url = list_url(ctx, labels_json, cursor);
  if (!url) return oom(err);
  dt_http_req req = {.method = "GET", .url = url, .idempotent = 1, .max_body = (size_t)64 * 1024 * 1024};
  dt_http_resp resp;
  dt_http_outcome o = sbio__dt_http(ctx, &req, &resp);
  free(url);
  if (o != DT_HTTP_OK || !ok_status(resp.status)) {
    int rc = sbio__dt_fail(ctx, op, o, &resp, err);
    sbio__dt_http_resp_free(&resp);
    return rc;
  }
  cJSON *doc = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
  const cJSON *items = cJSON_IsArray(doc) ? doc : cJSON_GetObjectItemCaseSensitive(doc, "items");
  int rc;
  if (!cJSON_IsArray(items)) {
    rc = sbio_bk_error_set(err, op->fail_code, NULL,
                           "Daytona answered %ld while %s, but neither with a list of sandboxes nor with a page of "
                           "them",
                           resp.status, op->what);
  } else {
    rc = each_record(items, fn, user, err);
    const cJSON *nc = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "nextCursor") : NULL;
    if (rc == SBIO_OK && cJSON_IsString(nc) && nc->valuestring[0] && !(*next = strdup(nc->valuestring))) rc = oom(err);
  }
  cJSON_Delete(doc);
  sbio__dt_http_resp_free(&resp);
  return rc;
}

/* GET url and copy the string field `field` of its JSON object. */
static int get_string_field(dt_ctx *ctx, char *url, const char *field, const dt_op *op, char *out, size_t size,
                            int *found, sbio_bk_error *err) {
  *found = 0;
  out[0] = '\0';
  if (!url) return oom(err);
  dt_http_req req = {.method = "GET", .url = url, .idempotent = 1};
  dt_http_resp resp;
  dt_http_outcome o = sbio__dt_http(ctx, &req, &resp);
  free(url);
  int rc = SBIO_OK;
  if (o == DT_HTTP_OK && resp.status == 404) {
    rc = SBIO_OK;
  } else if (o == DT_HTTP_OK && ok_status(resp.status)) {
    cJSON *doc = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
    const cJSON *v = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, field) : NULL;
    if (cJSON_IsString(v) && v->valuestring[0] && strlen(v->valuestring) < size) {
      snprintf(out, size, "%s", v->valuestring);
      *found = 1;
    }
    cJSON_Delete(doc);
  } else {
    rc = sbio__dt_fail(ctx, op, o, &resp, err);
  }
  sbio__dt_http_resp_free(&resp);
  return rc;
}

int sbio__dt_api_toolbox_url(dt_ctx *ctx, const char *id, const dt_op *op, char *out, size_t size, int *found,
                             sbio_bk_error *err) {
  return get_string_field(ctx, sandbox_url(ctx, id, "/toolbox-proxy-url"), "url", op, out, size, found, err);
}

int sbio__dt_api_config_toolbox(dt_ctx *ctx, const dt_op *op, char *out, size_t size, int *found, sbio_bk_error *err) {
  return get_string_field(ctx, api(ctx, "config"), "proxyToolboxUrl", op, out, size, found, err);
}
