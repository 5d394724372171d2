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
static int refused(const dt_fop *f, const dt_http_resp *resp, const char *verb, sbio_bk_error *err) {
  char said[300];
  sbio__dt_provider_message(resp, said, sizeof said);
  int rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "cannot %s %s in sandbox %s: %s", verb, f->path, f->sb->id,
                             said[0] ? said : "Daytona refused it (is it a directory?)");
  err->provider_status = 400;
  return rc;
}

typedef struct {
  sbio_bk_data_fn sink;
  void *user;
} read_sink;

static int forward(void *user, const void *data, size_t len) {
  read_sink *s = user;
  return s->sink(s->user, data, len);
}

int sbio__dt_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                          sbio_bk_error *err) {
  if (!sink) return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona file_read: no data sink");
  dt_fop f;
  int rc = sbio__dt_fop_begin(&f, sandbox, path, call, "reading", err);
  if (rc != SBIO_OK) return rc;
  char *url = sbio__dt_toolbox_url(f.sb, "/files/download", f.path, NULL);
  if (!url) {
    sbio__dt_fop_end(&f);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  read_sink s = {sink, user};
  /* Not retried on a 5xx: bytes already handed to the sink cannot be taken
   * back. A 429 carries no bytes and is retried. */
  dt_http_req req = {.method = "GET", .url = url, .sink = forward, .sink_user = &s};
  dt_http_resp resp;
  dt_http_outcome o = sbio__dt_http(&f.ctx, &req, &resp);
  free(url);
  if (o == DT_HTTP_OK && resp.status == 400)
    rc = refused(&f, &resp, "read", err);
  else if (o != DT_HTTP_OK || resp.status < 200 || resp.status >= 300)
    rc = sbio__dt_fop_fail(&f, o, &resp, err);
  if (rc == SBIO_E_PATH_NOT_FOUND) snprintf(err->message, sizeof err->message, "no such file: %.480s", f.path);
  sbio__dt_http_resp_free(&resp);
  sbio__dt_fop_end(&f);
  return rc;
}

int sbio__dt_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                           sbio_bk_error *err) {
  if (!data && len) return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona file_write: no data");
  dt_fop f;
  int rc = sbio__dt_fop_begin(&f, sandbox, path, call, "writing", err);
  if (rc != SBIO_OK) return rc;
  char parent[4096];
  int exists = 0, is_dir = 0;
  sbio__dt_parent(f.path, parent, sizeof parent);
  rc = sbio__dt_stat(&f, parent, &exists, &is_dir, err);
  if (rc == SBIO_OK && !exists)
    rc = sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, "create the parent directory first",
                           "parent directory %s does not exist (writing %s)", parent, f.path);
  else if (rc == SBIO_OK && !is_dir)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "%s is not a directory (writing %s)", parent, f.path);
  char *url = rc == SBIO_OK ? sbio__dt_toolbox_url(f.sb, "/files/upload", f.path, NULL) : NULL;
  if (rc == SBIO_OK && !url) rc = sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  if (rc == SBIO_OK) {
    /* Idempotent: writing the same bytes twice leaves the same file. */
    static const char empty[1];
    dt_http_req req = {.method = "POST",
                       .url = url,
                       .part_name = "file",
                       .part_data = len ? data : empty,
                       .part_len = len,
                       .idempotent = 1};
    dt_http_resp resp;
    dt_http_outcome o = sbio__dt_http(&f.ctx, &req, &resp);
    if (o == DT_HTTP_OK && resp.status == 400)
      rc = refused(&f, &resp, "write", err);
    else if (o != DT_HTTP_OK || resp.status < 200 || resp.status >= 300)
      rc = sbio__dt_fop_fail(&f, o, &resp, err);
    sbio__dt_http_resp_free(&resp);
  }
  free(url);
  sbio__dt_fop_end(&f);
  return rc;
}
