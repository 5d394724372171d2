/* SPDX-License-Identifier: MIT */
/* Reading and writing files through the toolbox: GET /files/download
 * streams the bytes to the caller's sink; POST /files/upload sends them as
 * the multipart field "file". The daemon creates missing parent
 * directories on upload; the backend checks the parent first, because a
 * write into a directory that does not exist is PathNotFound everywhere
 * else in sandboxio. */
#include "files.h"

#include "ops.h"
#include "toolbox.h"

#include <stdlib.h>
#include <string.h>

/* A 400: a directory where a file was expected, or the like. */
static int refused(const dt_fop *f, const sbio_sdk_http_response *resp, const char *verb, sbio_bk_error *err) {
  char said[300];
  sbio__dt_provider_message(f->sb->inst, resp, said, sizeof said);
  return sbio_sdk_error_answer(err, SBIO_E_FS, 400, NULL, "cannot %s %s in sandbox %s: %s", verb, f->path, f->sb->id,
                               said[0] ? said : "Daytona refused it (is it a directory?)");
}

static int answered_400(const sbio_sdk_http_response *resp) {
  return resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status == 400;
}

typedef struct {
  sbio_bk_data_fn sink;
  void *user;
} read_sink;

static int forward(void *user, const char *data, size_t len) {
  read_sink *s = user;
  return s->sink(s->user, data, len);
}

int sbio__dt_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                          sbio_bk_error *err) {
  if (!sink) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona file_read: no data sink");
  dt_fop f;
  int rc = sbio__dt_fop_begin(&f, sandbox, path, call, "reading", err);
  if (rc != SBIO_OK) return rc;
  char *download = sbio__dt_toolbox_path("/files/download", f.path, NULL);
  if (!download) {
    sbio__dt_fop_end(&f);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  read_sink s = {sink, user};
  /* A GET: repeated after a 5xx or a lost connection only while no byte
   * has reached the sink (the SDK's rule; bytes handed over cannot be
   * taken back). Bounded by the operation's deadline, not one request's
   * limit: a file may be large. */
  sbio_sdk_http_request req = sbio__dt_request(&f.ctx, "GET", download);
  req.headers = f.ctx.download_headers;
  req.sink = forward;
  req.sink_user = &s;
  req.timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT;
  sbio_sdk_http_response resp;
  sbio_sdk_http_send(f.sb->toolbox, &req, &f.ctx.call, &resp);
  free(download);
  if (answered_400(&resp))
    rc = refused(&f, &resp, "read", err);
  else if (!sbio__dt_ok(&resp))
    rc = sbio__dt_fop_fail(&f, &resp, err);
  if (rc == SBIO_E_PATH_NOT_FOUND) snprintf(err->message, sizeof err->message, "no such file: %.480s", f.path);
  sbio_sdk_http_response_free(&resp);
  sbio__dt_fop_end(&f);
  return rc;
}

int sbio__dt_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                           sbio_bk_error *err) {
  if (!data && len) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona file_write: no data");
  dt_fop f;
  int rc = sbio__dt_fop_begin(&f, sandbox, path, call, "writing", err);
  if (rc != SBIO_OK) return rc;
  char parent[4096];
  int exists = 0, is_dir = 0;
  sbio__dt_parent(f.path, parent, sizeof parent);
  rc = sbio__dt_stat(&f, parent, &exists, &is_dir, err);
  if (rc == SBIO_OK && !exists)
    rc = sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, "create the parent directory first",
                        "parent directory %s does not exist (writing %s)", parent, f.path);
  else if (rc == SBIO_OK && !is_dir)
    rc = sbio_sdk_error(err, SBIO_E_FS, NULL, "%s is not a directory (writing %s)", parent, f.path);
  char *upload = rc == SBIO_OK ? sbio__dt_toolbox_path("/files/upload", f.path, NULL) : NULL;
  if (rc == SBIO_OK && !upload) rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  if (rc == SBIO_OK) {
    /* One multipart field "file"; the daemon's FormFile needs a file name.
     * Idempotent: writing the same bytes twice leaves the same file. */
    sbio_sdk_http_part part = {.name = "file", .filename = "upload", .data = data, .len = len};
    sbio_sdk_http_request req = sbio__dt_request(&f.ctx, "POST", upload);
    req.parts = &part;
    req.n_parts = 1;
    req.retry = SBIO_SDK_RETRY_IDEMPOTENT;
    req.timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT;
    sbio_sdk_http_response resp;
    sbio_sdk_http_send(f.sb->toolbox, &req, &f.ctx.call, &resp);
    if (answered_400(&resp))
      rc = refused(&f, &resp, "write", err);
    else if (!sbio__dt_ok(&resp))
      rc = sbio__dt_fop_fail(&f, &resp, err);
    sbio_sdk_http_response_free(&resp);
  }
  free(upload);
  sbio__dt_fop_end(&f);
  return rc;
}
