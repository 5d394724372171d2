/* SPDX-License-Identifier: MIT */
/* File contents through envd's REST API: GET /files streams a file's bytes
 * to the caller, POST /files writes one (octet-stream where envd takes it,
 * a multipart `file` part otherwise). Binary-safe both ways. */
#include "errmap.h"
#include "files.h"
#include "paths.h"
#include "rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  sbio_bk_data_fn sink;
  void *user;
} read_target;

static int on_file_bytes(void *user, const char *data, size_t len) {
  read_target *t = user;
  return t->sink(t->user, data, len);
}

int sbio__e2b_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                           sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb || !sink) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b read: missing argument");
  char *abs = NULL;
  int rc = sbio__e2b_file_begin(sb, path, call, &abs, err);
  if (rc != SBIO_OK) return rc;
  char *files = sbio__e2b_files_path(sb, abs);
  if (!files) {
    free(abs);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  }
  read_target t = {sink, user};
  /* A file may be large: the operation's deadline bounds it, not the
   * per-request limit. Bytes handed to the sink are never asked for twice. */
  sbio_sdk_http_request req = {
      .path = files, .sink = on_file_bytes, .sink_user = &t, .timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT};
  sbio_sdk_http_response resp;
  int sent = sbio_sdk_http_send(sb->envd, &req, call, &resp);
  char what[300];
  snprintf(what, sizeof what, "read %.250s", abs);
  if (resp.outcome == SBIO_SDK_HTTP_STOPPED)
    rc = sbio_sdk_error(err, SBIO_E_FS, NULL, "e2b: reading %.300s was stopped by the caller", abs);
  else if (sent != 0 && resp.status == 0)
    rc = sbio_sdk_http_fail(sb->envd, &resp, SBIO_SDK_OP_FILE, what, err);
  else if (resp.status != 200)
    rc = sbio__e2b_fail_envd(sb, err, &resp, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS);
  else if (sent != 0)
    rc = sbio_sdk_error(err, SBIO_E_FS, NULL, "e2b: reading %.300s broke off: %s", abs, resp.error);
  sbio_sdk_http_response_free(&resp);
  free(files);
  free(abs);
  return rc;
}

int sbio__e2b_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                            sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb || (len && !data)) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b write: missing argument");
  char *abs = NULL;
  int rc = sbio__e2b_file_begin(sb, path, call, &abs, err);
  if (rc != SBIO_OK) return rc;
  /* envd creates missing parents; sandboxio's contract is that a write
   * needs its directory to exist, as on every backend. */
  char *parent = sbio__e2b_path_parent(abs);
  e2b_stat st = {0};
  rc = parent ? sbio__e2b_stat(sb, call, parent, &st, err)
              : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  if (rc == SBIO_OK && !st.exists)
    rc = sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, "create the directory first (mkdir with parents)",
                        "e2b: cannot write %.250s: no such directory %.200s", abs, parent);
  else if (rc == SBIO_OK && !st.is_dir)
    rc = sbio_sdk_error(err, SBIO_E_FS, NULL, "e2b: cannot write %.250s: %.200s is not a directory", abs, parent);
  free(parent);
  char *files = rc == SBIO_OK ? sbio__e2b_files_path(sb, abs) : NULL;
  if (rc == SBIO_OK && !files) rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  if (rc == SBIO_OK) {
    /* Raw bytes where envd takes them (0.5.7), a multipart `file` part
     * otherwise, named after the path as E2B's SDK names it. */
    int octet = sbio__e2b_version_at_least(sb->envd_version, E2B_ENVD_OCTET_UPLOAD);
    sbio_sdk_http_part part = {.name = "file", .filename = abs, .data = len ? data : "", .len = len};
    sbio_sdk_http_request req = {.method = "POST",
                                 .path = files,
                                 .body = octet ? (len ? data : "") : NULL,
                                 .body_len = octet ? len : 0,
                                 .content_type = "application/octet-stream",
                                 .parts = octet ? NULL : &part,
                                 .n_parts = octet ? 0 : 1,
                                 .retry = SBIO_SDK_RETRY_IDEMPOTENT, /* the same bytes again: harmless */
                                 .timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT};
    sbio_sdk_http_response resp;
    int sent = sbio_sdk_http_send(sb->envd, &req, call, &resp);
    char what[300];
    snprintf(what, sizeof what, "write %.250s", abs);
    if (sent != 0)
      rc = sbio_sdk_http_fail(sb->envd, &resp, SBIO_SDK_OP_FILE, what, err);
    else if (resp.status != 200)
      rc = sbio__e2b_fail_envd(sb, err, &resp, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS);
    sbio_sdk_http_response_free(&resp);
  }
  free(files);
  free(abs);
  return rc;
}
