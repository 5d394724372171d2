/* SPDX-License-Identifier: MIT */
/* Toolbox addressing. The proxy authenticates the same Bearer key as the
 * API, so its URL is held to the same rule as the API's. */
#include "toolbox.h"

#include "wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* base + "/" + escaped id, with exactly one '/' between. */
static int with_id(const char *base, const char *id, char *out, size_t size) {
  char *esc = sbio_sdk_http_escape(id);
  size_t bl = strlen(base);
  while (bl > 0 && base[bl - 1] == '/') bl--;
  int n = esc ? snprintf(out, size, "%.*s/%s", (int)bl, base, esc) : -1;
  free(esc);
  return n >= 0 && (size_t)n < size ? 0 : -1;
}

int sbio__dt_toolbox_resolve(dt_ctx *ctx, const dt_record *rec, const dt_op *op, char *out, size_t size,
                             sbio_bk_error *err) {
  char base[1024] = "";
  int found = rec->toolbox_url[0] != '\0', rc = SBIO_OK;
  const char *source = "the sandbox record";
  if (found) snprintf(base, sizeof base, "%s", rec->toolbox_url);
  if (!found) {
    source = "GET /sandbox/{id}/toolbox-proxy-url";
    rc = sbio__dt_api_toolbox_url(ctx, rec->id, op, base, sizeof base, &found, err);
  }
  if (rc == SBIO_OK && !found) {
    source = "GET /config";
    rc = sbio__dt_api_config_toolbox(ctx, op, base, sizeof base, &found, err);
  }
  if (rc != SBIO_OK) return rc;
  int bad;
  if (found) {
    bad = with_id(base, rec->id, out, size);
  } else {
    /* The API's own deprecated route: {api}/toolbox/{id}/toolbox. */
    source = "the API's toolbox route";
    char legacy[1100];
    snprintf(legacy, sizeof legacy, "%s/toolbox", ctx->inst->settings.api_url);
    bad = with_id(legacy, rec->id, out, size) || strlen(out) + 9 >= size;
    if (!bad) strcat(out, "/toolbox");
  }
  if (bad) return sbio_sdk_error(err, op->fail_code, NULL, "the toolbox URL for sandbox %s is too long", rec->id);
  char why[300];
  if (sbio_sdk_url_check(out, SBIO_SDK_URL_LOOPBACK_HTTP, why, sizeof why) != 0)
    return sbio_sdk_error(err, op->fail_code, "the API key is only sent over https (or to this machine)",
                          "refusing the toolbox URL Daytona gave for sandbox %s (from %s): %s", rec->id, source, why);
  sbio__dt_log(ctx->inst, SBIO_BK_LOG_DEBUG, "daytona: sandbox %s toolbox from %s", rec->id, source);
  return SBIO_OK;
}

char *sbio__dt_toolbox_path(const char *endpoint, const char *path, const char *extra) {
  char *esc = path ? sbio_sdk_http_escape(path) : NULL;
  if (path && !esc) return NULL;
  size_t n = strlen(endpoint) + (esc ? strlen(esc) : 0) + (extra ? strlen(extra) : 0) + 16;
  char *out = malloc(n);
  if (out)
    snprintf(out, n, "%s%s%s%s%s", endpoint, esc ? "?path=" : "", esc ? esc : "", extra && esc ? "&" : "",
             extra && esc ? extra : "");
  free(esc);
  return out;
}

void sbio__dt_normalise(char *path) {
  /* Read from a copy, write into `path`: the result is never longer. */
  char in[4096];
  size_t n = strlen(path);
  if (n >= sizeof in) return; /* callers' buffers are no larger */
  memcpy(in, path, n + 1);
  char *out = path;
  for (const char *p = in; *p;) {
    while (*p == '/') p++;
    const char *seg = p;
    while (*p && *p != '/') p++;
    size_t len = (size_t)(p - seg);
    if (len == 0 || (len == 1 && seg[0] == '.')) continue;
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
      while (out > path && *--out != '/') {
      }
      continue;
    }
    *out++ = '/';
    memcpy(out, seg, len);
    out += len;
  }
  if (out == path) *out++ = '/';
  *out = '\0';
}

int sbio__dt_toolbox_gone(dt_ctx *ctx, const char *id, const char *what, sbio_bk_error *err) {
  dt_op op = {what, SBIO_E_GONE, SBIO_E_GONE, SBIO_E_GONE};
  dt_record rec;
  sbio_bk_error ignored = {.size = sizeof ignored};
  int found = 0;
  if (sbio__dt_api_get(ctx, id, &op, &rec, &found, &ignored) != SBIO_OK) return SBIO_OK; /* cannot tell */
  char state[32] = "deleted";
  int gone = !found;
  if (found) {
    gone = strcmp(rec.state, "started") != 0 && !sbio__dt_state_transitional(rec.state);
    snprintf(state, sizeof state, "%s", rec.state);
    sbio__dt_record_free(&rec);
  }
  if (!gone) return SBIO_OK;
  return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox (a longer timeout keeps it alive longer)",
                        "Daytona sandbox %s no longer runs (%s) while %s", id, state, what);
}

static int fetch_workdir(dt_ctx *ctx, dt_sandbox *sb, sbio_bk_error *err) {
  static const char *const endpoints[] = {"/work-dir", "/user-home-dir"};
  dt_op op = {"asking the sandbox for its work directory", SBIO_E_FS, SBIO_E_GONE, SBIO_E_FS};
  for (size_t i = 0; i < 2; i++) {
    sbio_sdk_http_request req = sbio__dt_request(ctx, "GET", endpoints[i]);
    sbio_sdk_http_response resp;
    sbio_sdk_http_send(sb->toolbox, &req, &ctx->call, &resp);
    if (resp.outcome == SBIO_SDK_HTTP_ANSWERED && (resp.status == 404 || resp.status == 409)) {
      sbio_sdk_http_response_free(&resp);
      int rc = sbio__dt_toolbox_gone(ctx, sb->id, op.what, err);
      if (rc != SBIO_OK) return rc;
      if (i == 0) continue; /* an older daemon without /work-dir */
      break;
    }
    if (!sbio__dt_ok(&resp)) {
      int rc = resp.status == 404 ? SBIO_OK : sbio__dt_fail(ctx, &op, &resp, err);
      sbio_sdk_http_response_free(&resp);
      if (rc != SBIO_OK) return rc;
      break;
    }
    cJSON *doc = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
    const cJSON *dir = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "dir") : NULL;
    if (cJSON_IsString(dir) && dir->valuestring[0] == '/' && strlen(dir->valuestring) < sizeof sb->workdir)
      snprintf(sb->workdir, sizeof sb->workdir, "%s", dir->valuestring);
    cJSON_Delete(doc);
    sbio_sdk_http_response_free(&resp);
    if (sb->workdir[0]) return SBIO_OK;
  }
  snprintf(sb->workdir, sizeof sb->workdir, "%s", DT_WORKDIR_FALLBACK);
  return SBIO_OK;
}

int sbio__dt_abs_path(dt_ctx *ctx, dt_sandbox *sb, const char *path, char *out, size_t size, sbio_bk_error *err) {
  if (!path || !*path) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "empty path");
  if (path[0] != '/' && !sb->workdir[0]) {
    int rc = fetch_workdir(ctx, sb, err);
    if (rc != SBIO_OK) return rc;
  }
  int n = path[0] == '/' ? snprintf(out, size, "%s", path) : snprintf(out, size, "%s/%s", sb->workdir, path);
  if (n < 0 || (size_t)n >= size)
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "path too long (%zu bytes): %.64s...", strlen(path), path);
  sbio__dt_normalise(out);
  return SBIO_OK;
}
