/* SPDX-License-Identifier: MIT */
/* File contents through envd's REST API: GET /files streams a file's bytes
 * to the caller, POST /files writes one (octet-stream where envd takes it,
 * a multipart `file` part otherwise). Binary-safe both ways. */
#include "errmap.h"
#include "files.h"
#include "paths.h"
#include "retry.h"
#include "rpc.h"
#include "url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  if (!sb || !sink) return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b read: missing argument");
  char *abs = NULL;
  int rc = sbio__e2b_file_begin(sb, path, call, &abs, err);
  if (rc != SBIO_OK) return rc;
  char *url = sbio__e2b_files_url(sb, abs);
  struct curl_slist *h = sbio__e2b_envd_headers(sb, NULL);
  if (!url || !h) {
    free(abs);
    free(url);
    sbio__e2b_headers_free(h);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  read_target t = {sink, user};
  e2b_req req = {.method = "GET",
                 .url = url,
                 .headers = h,
                 .sink = on_file_bytes,
                 .sink_user = &t,
                 .deadline_ns = call->deadline_ns};
  e2b_resp resp;
  int sent = sbio__e2b_http_retry(sb->inst, call, &req, 1, E2B_ENVD, &resp, NULL);
  char what[300];
  snprintf(what, sizeof what, "read %.250s", abs);
  if (resp.sink_stopped)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "e2b: reading %.300s was stopped by the caller", abs);
  else if (sent != 0 && resp.status == 0)
    rc = sbio__e2b_fail_transport(err, &resp, what, SBIO_E_FS, SBIO_E_FS);
  else if (resp.status != 200)
    rc = sbio__e2b_fail_envd(sb, err, &resp, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS);
  else if (sent != 0)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "e2b: reading %.300s broke off: %s", abs, resp.error);
  sbio__e2b_resp_free(&resp);
  sbio__e2b_headers_free(h);
  free(url);
  free(abs);
  return rc;
}

/* A multipart/form-data body with one `file` part (envd before 0.5.7). */
static char *multipart_body(const char *abs, const void *data, size_t len, size_t *out_len, char *ctype,
                            size_t ctype_size) {
  char boundary[48];
  unsigned seed = (unsigned)time(NULL) ^ (unsigned)len;
  do {
    snprintf(boundary, sizeof boundary, "sandboxio-%08x%08x", (unsigned)rand_r(&seed), (unsigned)rand_r(&seed));
  } while (len && memmem(data, len, boundary, strlen(boundary)));
  snprintf(ctype, ctype_size, "multipart/form-data; boundary=%s", boundary);
  char head[1400];
  /* The part's file name is the path (envd's SDK does the same); quotes
   * are percent-escaped as browsers do. */
  int hn = snprintf(head, sizeof head, "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"", boundary);
  for (const char *p = abs; *p && hn < (int)sizeof head - 80; p++) {
    if (*p == '"')
      hn += snprintf(head + hn, sizeof head - (size_t)hn, "%%22");
    else
      head[hn++] = *p;
  }
  hn += snprintf(head + hn, sizeof head - (size_t)hn, "\"\r\nContent-Type: application/octet-stream\r\n\r\n");
  char tail[64];
  int tn = snprintf(tail, sizeof tail, "\r\n--%s--\r\n", boundary);
  char *body = malloc((size_t)hn + len + (size_t)tn);
  if (!body) return NULL;
  memcpy(body, head, (size_t)hn);
  if (len) memcpy(body + hn, data, len);
  memcpy(body + hn + len, tail, (size_t)tn);
  *out_len = (size_t)hn + len + (size_t)tn;
  return body;
}

int sbio__e2b_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                            sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb || (len && !data))
    return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b write: missing argument");
  char *abs = NULL;
  int rc = sbio__e2b_file_begin(sb, path, call, &abs, err);
  if (rc != SBIO_OK) return rc;
  /* envd creates missing parents; sandboxio's contract is that a write
   * needs its directory to exist, as on every backend. */
  char *parent = sbio__e2b_path_parent(abs);
  e2b_stat st = {0};
  rc = parent ? sbio__e2b_stat(sb, call, parent, &st, err)
              : sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  if (rc == SBIO_OK && !st.exists)
    rc = sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, "create the directory first (mkdir with parents)",
                           "e2b: cannot write %.250s: no such directory %.200s", abs, parent);
  else if (rc == SBIO_OK && !st.is_dir)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "e2b: cannot write %.250s: %.200s is not a directory", abs, parent);
  free(parent);
  int octet = sbio__e2b_version_at_least(sb->envd_version, E2B_ENVD_OCTET_UPLOAD);
  char ctype[96] = "application/octet-stream";
  char *body = NULL;
  size_t body_len = len;
  if (rc == SBIO_OK && !octet) {
    body = multipart_body(abs, data, len, &body_len, ctype, sizeof ctype);
    if (!body) rc = sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  char *url = rc == SBIO_OK ? sbio__e2b_files_url(sb, abs) : NULL;
  struct curl_slist *h = url ? sbio__e2b_envd_headers(sb, ctype) : NULL;
  if (rc == SBIO_OK && (!url || !h)) rc = sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  if (rc == SBIO_OK) {
    e2b_req req = {.method = "POST",
                   .url = url,
                   .headers = h,
                   .body = octet ? (len ? data : "") : body,
                   .body_len = body_len,
                   .deadline_ns = call->deadline_ns};
    e2b_resp resp;
    /* Writing the same bytes again is harmless: idempotent. */
    int sent = sbio__e2b_http_retry(sb->inst, call, &req, 1, E2B_ENVD, &resp, NULL);
    char what[300];
    snprintf(what, sizeof what, "write %.250s", abs);
    if (sent != 0)
      rc = sbio__e2b_fail_transport(err, &resp, what, SBIO_E_FS, SBIO_E_FS);
    else if (resp.status != 200)
      rc = sbio__e2b_fail_envd(sb, err, &resp, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS);
    sbio__e2b_resp_free(&resp);
  }
  sbio__e2b_headers_free(h);
  free(url);
  free(body);
  free(abs);
  return rc;
}
