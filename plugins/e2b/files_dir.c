/* SPDX-License-Identifier: MIT */
/* Directories through envd's filesystem service (Connect, unary): list,
 * mkdir, remove, and the Stat they build on. envd's MakeDir always makes
 * the parents and its Remove ignores a missing path, so the contract's
 * "no parents" and "missing is an error" are checked here first. */
#include "files.h"
#include "paths.h"
#include "rpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbio__e2b_file_begin(e2b_sandbox *sb, const char *path, const sbio_bk_call *call, char **abs, sbio_bk_error *err) {
  *abs = NULL;
  if (!sbio__e2b_call_ok(call)) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b: no call context");
  if (atomic_load(&sb->killed))
    return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox", "e2b: sandbox %s was killed", sb->id);
  return sbio__e2b_path_resolve(sb->inst->settings.workdir, path, abs, err);
}

char *sbio__e2b_files_path(const e2b_sandbox *sb, const char *abs) {
  int old = !sbio__e2b_version_at_least(sb->envd_version, E2B_ENVD_DEFAULT_USER);
  return sbio_sdk_http_path("/files?path=", abs, old ? "&username=user" : "");
}

static cJSON *path_message(const char *abs) {
  cJSON *m = cJSON_CreateObject();
  if (m && !cJSON_AddStringToObject(m, "path", abs)) {
    cJSON_Delete(m);
    return NULL;
  }
  return m;
}

static int is_dir_type(const cJSON *entry) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(entry, "type");
  return cJSON_IsString(t) && t->valuestring && strcmp(t->valuestring, "FILE_TYPE_DIRECTORY") == 0;
}

/* int64 in proto3 JSON is a string; accept a number too. A size that is
 * not a byte count (negative, past int64, not a number: a broken answer)
 * is reported as absent, 0; converting an out-of-range double would be
 * undefined behaviour. */
static int64_t entry_size(const cJSON *entry) {
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry, "size");
  if (cJSON_IsString(s) && s->valuestring) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s->valuestring, &end, 10);
    return errno == 0 && end != s->valuestring && *end == '\0' && v >= 0 ? (int64_t)v : 0;
  }
  if (cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble < 9223372036854775808.0)
    return (int64_t)s->valuedouble;
  return 0;
}

int sbio__e2b_stat(e2b_sandbox *sb, const sbio_bk_call *call, const char *abs, e2b_stat *st, sbio_bk_error *err) {
  memset(st, 0, sizeof *st);
  cJSON *msg = path_message(abs), *out = NULL;
  if (!msg) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  char what[300], code[48];
  snprintf(what, sizeof what, "inspect %.250s", abs);
  int rc = sbio__e2b_rpc(sb, call, "filesystem.Filesystem/Stat", msg, 1, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS, &out,
                         code, sizeof code, err);
  cJSON_Delete(msg);
  if (rc == SBIO_E_PATH_NOT_FOUND && strcmp(code, "not_found") == 0) return SBIO_OK;
  if (rc != SBIO_OK) return rc;
  const cJSON *entry = cJSON_GetObjectItemCaseSensitive(out, "entry");
  st->exists = 1;
  st->is_dir = is_dir_type(entry);
  st->size = entry_size(entry);
  cJSON_Delete(out);
  return SBIO_OK;
}

int sbio__e2b_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                           void *user, sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb || !entry) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b list: missing argument");
  char *abs = NULL;
  int rc = sbio__e2b_file_begin(sb, path, call, &abs, err);
  if (rc != SBIO_OK) return rc;
  cJSON *msg = path_message(abs), *out = NULL;
  if (msg) cJSON_AddNumberToObject(msg, "depth", 1);
  char what[300];
  snprintf(what, sizeof what, "list %.250s", abs);
  rc = msg ? sbio__e2b_rpc(sb, call, "filesystem.Filesystem/ListDir", msg, 1, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS,
                           &out, NULL, 0, err)
           : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  cJSON_Delete(msg);
  if (rc == SBIO_OK) {
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(out, "entries"); /* absent when empty */
    const cJSON *e;
    cJSON_ArrayForEach(e, entries) {
      const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
      const cJSON *epath = cJSON_GetObjectItemCaseSensitive(e, "path");
      if (!cJSON_IsString(name) || !name->valuestring) continue;
      sbio_bk_dirent d = {.size = sizeof d,
                          .name = name->valuestring,
                          .path = cJSON_IsString(epath) && epath->valuestring ? epath->valuestring : name->valuestring,
                          .is_dir = is_dir_type(e)};
      d.bytes = d.is_dir ? 0 : entry_size(e);
      entry(user, &d);
    }
  }
  cJSON_Delete(out);
  free(abs);
  return rc;
}

int sbio__e2b_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call,
                            sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b mkdir: missing argument");
  char *abs = NULL;
  int rc = sbio__e2b_file_begin(sb, path, call, &abs, err);
  if (rc != SBIO_OK) return rc;
  if (!parents) {
    char *parent = sbio__e2b_path_parent(abs);
    e2b_stat st;
    rc = parent ? sbio__e2b_stat(sb, call, parent, &st, err)
                : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
    if (rc == SBIO_OK && !st.exists)
      rc = sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, "pass parents to create the missing directories",
                          "e2b: cannot create %.250s: no such directory %.200s", abs, parent);
    free(parent);
  }
  cJSON *msg = rc == SBIO_OK ? path_message(abs) : NULL, *out = NULL;
  char what[300], code[48] = "";
  snprintf(what, sizeof what, "create the directory %.230s", abs);
  if (rc == SBIO_OK)
    rc = msg ? sbio__e2b_rpc(sb, call, "filesystem.Filesystem/MakeDir", msg, 1, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS,
                             &out, code, sizeof code, err)
             : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  if (rc != SBIO_OK && strcmp(code, "already_exists") == 0) {
    /* It is a directory already (envd says so only for directories). */
    rc = parents ? SBIO_OK
                 : sbio_sdk_error(err, SBIO_E_FS, "pass parents to accept an existing directory",
                                  "e2b: %.300s already exists", abs);
  }
  cJSON_Delete(msg);
  cJSON_Delete(out);
  free(abs);
  return rc;
}

int sbio__e2b_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b remove: missing argument");
  char *abs = NULL;
  int rc = sbio__e2b_file_begin(sb, path, call, &abs, err);
  if (rc != SBIO_OK) return rc;
  if (strcmp(abs, "/") == 0) {
    free(abs);
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "e2b: refusing to remove /");
  }
  e2b_stat st;
  rc = sbio__e2b_stat(sb, call, abs, &st, err);
  if (rc == SBIO_OK && !st.exists)
    rc = sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, NULL, "e2b: cannot remove %.300s: no such file or directory", abs);
  cJSON *msg = rc == SBIO_OK ? path_message(abs) : NULL, *out = NULL;
  char what[300];
  snprintf(what, sizeof what, "remove %.250s", abs);
  if (rc == SBIO_OK)
    rc = msg ? sbio__e2b_rpc(sb, call, "filesystem.Filesystem/Remove", msg, 1, what, SBIO_E_PATH_NOT_FOUND, SBIO_E_FS,
                             &out, NULL, 0, err)
             : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  cJSON_Delete(msg);
  cJSON_Delete(out);
  free(abs);
  return rc;
}
