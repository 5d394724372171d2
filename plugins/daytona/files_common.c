/* SPDX-License-Identifier: MIT */
/* File operation plumbing shared by files.c and files_dir.c. */
#include "files.h"

#include "toolbox.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbio__dt_fop_begin(dt_fop *f, dt_sandbox *sb, const char *path, const sbio_bk_call *call, const char *verb,
                       sbio_bk_error *err) {
  if (!sb || !path || !*path || !call)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona %s: missing argument", verb);
  if (atomic_load(&sb->killed))
    return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox", "sandbox %s was killed", sb->id);
  f->sb = sb;
  int rc = sbio__dt_ctx_init(&f->ctx, sb->inst, call, &sb->killed, err);
  if (rc == SBIO_OK) rc = sbio__dt_abs_path(&f->ctx, sb, path, f->path, sizeof f->path, err);
  if (rc != SBIO_OK) {
    sbio__dt_ctx_done(&f->ctx);
    return rc;
  }
  snprintf(f->what, sizeof f->what, "%s %s in sandbox %s", verb, f->path, sb->id);
  f->op = (dt_op){f->what, SBIO_E_FS, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS};
  return SBIO_OK;
}

void sbio__dt_fop_end(dt_fop *f) {
  sbio__dt_ctx_done(&f->ctx);
}

int sbio__dt_fop_fail(dt_fop *f, const sbio_sdk_http_response *resp, sbio_bk_error *err) {
  int answered = resp->outcome == SBIO_SDK_HTTP_ANSWERED;
  if (resp->outcome == SBIO_SDK_HTTP_CANCELLED && atomic_load(&f->sb->killed))
    return sbio_sdk_error(err, SBIO_E_GONE, NULL, "sandbox %s was killed while %s", f->sb->id, f->what);
  if (answered && (resp->status == 404 || resp->status == 409)) {
    int gone = sbio__dt_toolbox_gone(&f->ctx, f->sb->id, f->what, err);
    if (gone != SBIO_OK) return gone;
  }
  int rc = sbio__dt_fail(&f->ctx, &f->op, resp, err);
  if (answered && resp->status == 404)
    snprintf(err->message, sizeof err->message, "no such file or directory: %.480s", f->path);
  return rc;
}

int sbio__dt_stat(dt_fop *f, const char *abs, int *exists, int *is_dir, sbio_bk_error *err) {
  /* A 404 here is "no such path" unless the sandbox itself is gone. */
  *exists = *is_dir = 0;
  char *path = sbio__dt_toolbox_path("/files/info", abs, NULL);
  if (!path) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  sbio_sdk_http_request req = sbio__dt_request(&f->ctx, "GET", path);
  sbio_sdk_http_response resp;
  sbio_sdk_http_send(f->sb->toolbox, &req, &f->ctx.call, &resp);
  free(path);
  int rc = SBIO_OK;
  if (resp.outcome == SBIO_SDK_HTTP_ANSWERED && resp.status == 404) {
    rc = sbio__dt_toolbox_gone(&f->ctx, f->sb->id, f->what, err);
  } else if (sbio__dt_ok(&resp)) {
    cJSON *doc = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
    const cJSON *d = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "isDir") : NULL;
    *exists = 1;
    *is_dir = cJSON_IsTrue(d);
    cJSON_Delete(doc);
  } else {
    rc = sbio__dt_fop_fail(f, &resp, err);
  }
  sbio_sdk_http_response_free(&resp);
  return rc;
}

void sbio__dt_parent(const char *abs, char *out, size_t size) {
  snprintf(out, size, "%s", abs);
  char *slash = strrchr(out, '/');
  if (!slash || slash == out)
    snprintf(out, size, "/");
  else
    *slash = '\0';
}
