/* SPDX-License-Identifier: MIT */
/* files.*: the sandbox's in-memory filesystem. Relative paths resolve
 * against /work, the directory exec starts in. */
#include "fake.h"

#include "fspath.h"

#include <stdlib.h>
#include <string.h>

#define READ_CHUNK ((size_t)64 * 1024)

/* Checks the handle and resolves `path`; on success *abs is malloc'd. */
static int prepare(fake_handle *h, const char *path, const sbio_bk_call *call, const char *op, char **abs,
                   sbio_bk_error *err) {
  *abs = NULL;
  if (!h || !path || !fake_call_usable(call))
    return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "fake %s: missing argument or call context", op);
  int rc = sbio__fake_check_alive(h, err);
  if (rc != SBIO_OK) return rc;
  int prc = sbio__fake_path_resolve(FAKE_WORKDIR, path, abs);
  if (prc == FAKE_PATH_TOO_LONG)
    return sbio_bk_error_set(err, SBIO_E_FS, NULL, "path longer than %d bytes: %.64s...", FAKE_PATH_MAX, path);
  if (prc != FAKE_PATH_OK) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory in fake %s", op);
  sbio__fake_instance_log(h->inst, op, h->box->id, *abs);
  return SBIO_OK;
}

/* Error for a failed create-like operation, naming the parent when it is the problem. */
static int parent_error(fake_memfs_status st, const char *abs, sbio_bk_error *err) {
  char *parent = sbio__fake_path_parent(abs);
  const char *p = parent ? parent : abs;
  int rc = st == FAKE_FS_ENOENT
               ? sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, "create the parent directory first",
                                   "parent directory does not exist: %s", p)
               : sbio_bk_error_set(err, SBIO_E_FS, NULL, "not a directory: %s (on the way to %s)", p, abs);
  free(parent);
  return rc;
}

static int common_error(fake_memfs_status st, const char *abs, sbio_bk_error *err) {
  switch (st) {
  case FAKE_FS_ENOSPC:
    return sbio_bk_error_set(err, SBIO_E_RESOURCE_LIMIT, NULL, "the fake sandbox's filesystem is full (%zu MiB)",
                             FAKE_FS_CAPACITY >> 20);
  case FAKE_FS_ENOMEM:
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory on %s", abs);
  default:
    return sbio_bk_error_set(err, SBIO_E_FS, NULL, "filesystem error on %s", abs);
  }
}

int sbio__fake_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                            sbio_bk_error *err) {
  fake_handle *h = sandbox;
  char *abs;
  int rc = sink ? prepare(h, path, call, "file_read", &abs, err)
                : sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "fake file_read: no data sink");
  if (rc != SBIO_OK) return rc;
  const unsigned char *src;
  unsigned char *copy = NULL;
  size_t len = 0;
  pthread_mutex_lock(&h->box->mu);
  fake_memfs_status st = sbio__fake_memfs_read(h->box->fs, abs, &src, &len);
  if (st == FAKE_FS_OK && (copy = malloc(len ? len : 1)) != NULL && len) memcpy(copy, src, len);
  pthread_mutex_unlock(&h->box->mu);
  if (st == FAKE_FS_ENOENT)
    rc = sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, NULL, "no such file: %s", abs);
  else if (st == FAKE_FS_EISDIR)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "%s is a directory, not a file", abs);
  else if (!copy)
    rc = common_error(FAKE_FS_ENOMEM, abs, err);
  /* Deliver outside the lock: the sink is the caller's code. */
  for (size_t off = 0; rc == SBIO_OK && off < len; off += READ_CHUNK) {
    size_t n = len - off < READ_CHUNK ? len - off : READ_CHUNK;
    if (sink(user, copy + off, n) != 0)
      rc = sbio_bk_error_set(err, SBIO_E_RESOURCE_LIMIT, NULL, "reading %s was stopped by the caller (%zu bytes)", abs,
                             len);
  }
  free(copy);
  free(abs);
  return rc;
}

int sbio__fake_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                             sbio_bk_error *err) {
  fake_handle *h = sandbox;
  char *abs;
  int rc = (data || len == 0) ? prepare(h, path, call, "file_write", &abs, err)
                              : sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "fake file_write: no data");
  if (rc != SBIO_OK) return rc;
  pthread_mutex_lock(&h->box->mu);
  fake_memfs_status st = sbio__fake_memfs_write(h->box->fs, abs, data, len, 0);
  pthread_mutex_unlock(&h->box->mu);
  if (st == FAKE_FS_ENOENT || st == FAKE_FS_ENOTDIR)
    rc = parent_error(st, abs, err);
  else if (st == FAKE_FS_EISDIR)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "%s is a directory, not a file", abs);
  else if (st != FAKE_FS_OK)
    rc = common_error(st, abs, err);
  free(abs);
  return rc;
}

/* Entries copied out under the lock, reported after it. */
typedef struct listing {
  sbio_bk_dirent *items;
  size_t n;
  size_t cap;
  int oom;
} listing;

static void collect(void *user, const char *path, const char *name, size_t size, int is_dir) {
  listing *l = user;
  if (l->oom) return;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 16;
    sbio_bk_dirent *items = realloc(l->items, cap * sizeof *items);
    if (!items) {
      l->oom = 1;
      return;
    }
    l->items = items;
    l->cap = cap;
  }
  char *p = strdup(path);
  if (!p) {
    l->oom = 1;
    return;
  }
  /* name points into path: the last component. */
  l->items[l->n++] = (sbio_bk_dirent){
      .size = sizeof(sbio_bk_dirent), .name = p + (name - path), .path = p, .bytes = (int64_t)size, .is_dir = is_dir};
}

int sbio__fake_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                            void *user, sbio_bk_error *err) {
  fake_handle *h = sandbox;
  char *abs;
  int rc = entry ? prepare(h, path, call, "file_list", &abs, err)
                 : sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "fake file_list: no entry callback");
  if (rc != SBIO_OK) return rc;
  listing l = {0};
  pthread_mutex_lock(&h->box->mu);
  fake_memfs_status st = sbio__fake_memfs_list(h->box->fs, abs, collect, &l);
  pthread_mutex_unlock(&h->box->mu);
  if (st == FAKE_FS_ENOENT)
    rc = sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, NULL, "no such directory: %s", abs);
  else if (st == FAKE_FS_ENOTDIR)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "not a directory: %s", abs);
  else if (l.oom)
    rc = common_error(FAKE_FS_ENOMEM, abs, err);
  for (size_t i = 0; i < l.n; i++) {
    if (rc == SBIO_OK) entry(user, &l.items[i]);
    free((char *)l.items[i].path);
  }
  free(l.items);
  free(abs);
  return rc;
}

int sbio__fake_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call,
                             sbio_bk_error *err) {
  fake_handle *h = sandbox;
  char *abs;
  int rc = prepare(h, path, call, "file_mkdir", &abs, err);
  if (rc != SBIO_OK) return rc;
  pthread_mutex_lock(&h->box->mu);
  fake_memfs_status st = sbio__fake_memfs_mkdir(h->box->fs, abs, parents);
  pthread_mutex_unlock(&h->box->mu);
  if (st == FAKE_FS_EEXIST)
    rc = sbio_bk_error_set(err, SBIO_E_FS, parents ? NULL : "pass parents to accept an existing directory",
                           "already exists: %s", abs);
  else if (st == FAKE_FS_ENOENT || st == FAKE_FS_ENOTDIR)
    rc = parent_error(st, abs, err);
  else if (st != FAKE_FS_OK)
    rc = common_error(st, abs, err);
  free(abs);
  return rc;
}

int sbio__fake_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  fake_handle *h = sandbox;
  char *abs;
  int rc = prepare(h, path, call, "file_remove", &abs, err);
  if (rc != SBIO_OK) return rc;
  pthread_mutex_lock(&h->box->mu);
  fake_memfs_status st = sbio__fake_memfs_remove(h->box->fs, abs, 1);
  pthread_mutex_unlock(&h->box->mu);
  if (st == FAKE_FS_ENOENT)
    rc = sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, NULL, "no such file or directory: %s", abs);
  else if (st == FAKE_FS_EPERM)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "refusing to remove %s (the root or the work directory)", abs);
  else if (st != FAKE_FS_OK)
    rc = common_error(st, abs, err);
  free(abs);
  return rc;
}
