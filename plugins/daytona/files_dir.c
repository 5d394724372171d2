/* SPDX-License-Identifier: MIT */
/* Directories: list (GET /files), mkdir (POST /files/folder, which makes
 * parents like mkdir -p, so the no-parents case checks the parent first),
 * remove (DELETE /files, recursive). */
#include "files.h"

#include "ops.h"
#include "toolbox.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int entries(dt_fop *f, const sbio_sdk_http_response *resp, sbio_bk_dirent_fn entry, void *user,
                   sbio_bk_error *err) {
  cJSON *doc = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->len);
  if (!cJSON_IsArray(doc)) {
    cJSON_Delete(doc);
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "Daytona's listing of %s is not a list of files", f->path);
  }
  const cJSON *it;
  int rc = SBIO_OK;
  cJSON_ArrayForEach(it, doc) {
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(it, "name");
    const cJSON *size = cJSON_GetObjectItemCaseSensitive(it, "size");
    if (!cJSON_IsString(name) || !name->valuestring[0] || strchr(name->valuestring, '/')) continue;
    size_t n = strlen(f->path) + strlen(name->valuestring) + 2;
    char *full = malloc(n);
    if (!full) {
      rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory listing %s", f->path);
      break;
    }
    snprintf(full, n, "%s%s%s", f->path, strcmp(f->path, "/") == 0 ? "" : "/", name->valuestring);
    int is_dir = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "isDir"));
    /* A size that is no byte count (negative, past int64) is shown as
     * absent: converting an out-of-range double is undefined behaviour. */
    int sized = !is_dir && cJSON_IsNumber(size) && size->valuedouble >= 0 && size->valuedouble < 9223372036854775808.0;
    sbio_bk_dirent d = {.size = sizeof d,
                        .name = name->valuestring,
                        .path = full,
                        .bytes = sized ? (int64_t)size->valuedouble : 0,
                        .is_dir = is_dir};
    entry(user, &d);
    free(full);
  }
  cJSON_Delete(doc);
  return rc;
}

int sbio__dt_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                          void *user, sbio_bk_error *err) {
  if (!entry) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona file_list: no entry callback");
  dt_fop f;
  int rc = sbio__dt_fop_begin(&f, sandbox, path, call, "listing", err);
  if (rc != SBIO_OK) return rc;
  char *listing = sbio__dt_toolbox_path("/files", f.path, NULL);
  if (!listing) {
    sbio__dt_fop_end(&f);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  sbio_sdk_http_request req = sbio__dt_request(&f.ctx, "GET", listing);
  sbio_sdk_http_response resp;
  sbio_sdk_http_send(f.sb->toolbox, &req, &f.ctx.call, &resp);
  free(listing);
  if (sbio__dt_ok(&resp))
    rc = entries(&f, &resp, entry, user, err);
  else if (resp.outcome == SBIO_SDK_HTTP_ANSWERED && resp.status == 400)
    rc = sbio_sdk_error_answer(err, SBIO_E_FS, 400, NULL, "not a directory: %s", f.path);
  else
    rc = sbio__dt_fop_fail(&f, &resp, err);
  if (rc == SBIO_E_PATH_NOT_FOUND) snprintf(err->message, sizeof err->message, "no such directory: %.480s", f.path);
  sbio_sdk_http_response_free(&resp);
  sbio__dt_fop_end(&f);
  return rc;
}

/* Plain mkdir semantics: the directory must not exist yet, and its parent
 * must, unless `parents`. */
static int mkdir_precheck(dt_fop *f, int parents, int *done, sbio_bk_error *err) {
  int exists = 0, is_dir = 0;
  *done = 0;
  int rc = sbio__dt_stat(f, f->path, &exists, &is_dir, err);
  if (rc != SBIO_OK) return rc;
  if (exists && is_dir && parents) {
    *done = 1;
    return SBIO_OK;
  }
  if (exists)
    return sbio_sdk_error(err, SBIO_E_FS, is_dir ? "pass parents to accept an existing directory" : NULL,
                          "already exists: %s", f->path);
  if (parents) return SBIO_OK;
  char parent[4096];
  sbio__dt_parent(f->path, parent, sizeof parent);
  rc = sbio__dt_stat(f, parent, &exists, &is_dir, err);
  if (rc == SBIO_OK && !exists)
    return sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, "create the parent directory first, or pass parents",
                          "parent directory %s does not exist (creating %s)", parent, f->path);
  if (rc == SBIO_OK && !is_dir)
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "%s is not a directory (creating %s)", parent, f->path);
  return rc;
}

int sbio__dt_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err) {
  dt_fop f;
  int rc = sbio__dt_fop_begin(&f, sandbox, path, call, "creating directory", err);
  if (rc != SBIO_OK) return rc;
  int done = 0;
  rc = mkdir_precheck(&f, parents, &done, err);
  if (rc == SBIO_OK && !done) {
    char *folder = sbio__dt_toolbox_path("/files/folder", f.path, "mode=0755");
    if (!folder) {
      rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
    } else {
      /* Making a directory that exists is what mkdir -p does: idempotent. */
      sbio_sdk_http_request req = sbio__dt_request(&f.ctx, "POST", folder);
      req.retry = SBIO_SDK_RETRY_IDEMPOTENT;
      sbio_sdk_http_response resp;
      sbio_sdk_http_send(f.sb->toolbox, &req, &f.ctx.call, &resp);
      if (!sbio__dt_ok(&resp)) rc = sbio__dt_fop_fail(&f, &resp, err);
      sbio_sdk_http_response_free(&resp);
      free(folder);
    }
  }
  sbio__dt_fop_end(&f);
  return rc;
}

int sbio__dt_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  dt_fop f;
  int rc = sbio__dt_fop_begin(&f, sandbox, path, call, "removing", err);
  if (rc != SBIO_OK) return rc;
  dt_sandbox *sb = f.sb;
  char here[4096];
  /* Learn the work directory (asked once per sandbox) to refuse removing it. */
  if (!sb->workdir[0] && (rc = sbio__dt_abs_path(&f.ctx, sb, ".", here, sizeof here, err)) != SBIO_OK) {
    sbio__dt_fop_end(&f);
    return rc;
  }
  if (strcmp(f.path, "/") == 0 || (sb->workdir[0] && strcmp(f.path, sb->workdir) == 0)) {
    sbio__dt_fop_end(&f);
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "refusing to remove %s (the root or the work directory)", f.path);
  }
  char *rm = sbio__dt_toolbox_path("/files", f.path, "recursive=true");
  if (!rm) {
    sbio__dt_fop_end(&f);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  sbio_sdk_http_request req = sbio__dt_request(&f.ctx, "DELETE", rm);
  sbio_sdk_http_response resp;
  sbio_sdk_http_send(sb->toolbox, &req, &f.ctx.call, &resp);
  free(rm);
  if (!sbio__dt_ok(&resp)) rc = sbio__dt_fop_fail(&f, &resp, err);
  sbio_sdk_http_response_free(&resp);
  sbio__dt_fop_end(&f);
  return rc;
}
