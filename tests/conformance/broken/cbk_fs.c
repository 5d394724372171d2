/* SPDX-License-Identifier: MIT */
/* The in-memory filesystem of a cbk sandbox: "/", "/tmp" and "/work" at
 * first; relative paths live under /work. */
#include "cbk.h"

#include <stdlib.h>
#include <string.h>

static int add_node(cbk_fs *fs, const char *abs, int is_dir) {
  if (fs->n == fs->cap) {
    size_t ncap = fs->cap ? fs->cap * 2 : 16;
    cbk_node *p = realloc(fs->nodes, ncap * sizeof *p);
    if (!p) return -1;
    fs->nodes = p;
    fs->cap = ncap;
  }
  cbk_node *nd = &fs->nodes[fs->n];
  memset(nd, 0, sizeof *nd);
  if (!(nd->path = strdup(abs))) return -1;
  nd->is_dir = is_dir;
  fs->n++;
  return 0;
}

int cbk_fs_init(cbk_fs *fs) {
  memset(fs, 0, sizeof *fs);
  return add_node(fs, "/", 1) || add_node(fs, "/tmp", 1) || add_node(fs, "/work", 1) ? -1 : 0;
}

void cbk_fs_free(cbk_fs *fs) {
  for (size_t i = 0; i < fs->n; i++) {
    free(fs->nodes[i].path);
    free(fs->nodes[i].data);
  }
  free(fs->nodes);
  memset(fs, 0, sizeof *fs);
}

char *cbk_fs_resolve(const char *path) {
  size_t len = strlen(path);
  char *joined = malloc(len + 8);
  char *out = malloc(len + 8);
  if (!joined || !out) {
    free(joined);
    free(out);
    return NULL;
  }
  strcpy(joined, path[0] == '/' ? "" : "/work/");
  strcat(joined, path);
  /* Component by component: "." vanishes, ".." climbs but never above /. */
  size_t o = 0;
  char *save = NULL;
  for (char *part = strtok_r(joined, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
    if (strcmp(part, ".") == 0) continue;
    if (strcmp(part, "..") == 0) {
      while (o > 0 && out[o - 1] != '/') o--;
      if (o > 0) o--;
      continue;
    }
    out[o++] = '/';
    memcpy(out + o, part, strlen(part));
    o += strlen(part);
  }
  if (o == 0) out[o++] = '/';
  out[o] = '\0';
  free(joined);
  return out;
}

cbk_node *cbk_fs_find(cbk_fs *fs, const char *abs) {
  for (size_t i = 0; i < fs->n; i++)
    if (strcmp(fs->nodes[i].path, abs) == 0) return &fs->nodes[i];
  return NULL;
}

/* The parent directory of abs must exist: 0, or an error. */
static int parent_ok(cbk_fs *fs, const char *abs, sbio_bk_error *err) {
  const char *slash = strrchr(abs, '/');
  char parent[1024];
  size_t plen = slash == abs ? 1 : (size_t)(slash - abs);
  if (plen >= sizeof parent) return sbio_bk_error_set(err, SBIO_E_FS, NULL, "path too long");
  memcpy(parent, abs, plen);
  parent[plen] = '\0';
  cbk_node *p = cbk_fs_find(fs, parent);
  if (!p) return sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, NULL, "no such directory: %s", parent);
  if (!p->is_dir) return sbio_bk_error_set(err, SBIO_E_FS, NULL, "not a directory: %s", parent);
  return 0;
}

int cbk_fs_write(cbk_fs *fs, const char *abs, const void *data, size_t len, sbio_bk_error *err) {
  int rc = parent_ok(fs, abs, err);
  if (rc) return rc;
  cbk_node *nd = cbk_fs_find(fs, abs);
  if (nd && nd->is_dir) return sbio_bk_error_set(err, SBIO_E_FS, NULL, "is a directory: %s", abs);
  if (!nd) {
    if (add_node(fs, abs, 0) != 0) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
    nd = &fs->nodes[fs->n - 1];
  }
  unsigned char *copy = malloc(len ? len : 1);
  if (!copy) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  if (len) memcpy(copy, data, len);
  free(nd->data);
  nd->data = copy;
  nd->len = len;
  return 0;
}

int cbk_fs_mkdir(cbk_fs *fs, const char *abs, int parents, sbio_bk_error *err) {
  cbk_node *nd = cbk_fs_find(fs, abs);
  if (nd) {
    if (nd->is_dir && parents) return 0;
    return sbio_bk_error_set(err, SBIO_E_FS, NULL, "already exists: %s", abs);
  }
  if (parents && strcmp(abs, "/") != 0) {
    char *parent = strdup(abs);
    if (!parent) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
    char *slash = strrchr(parent, '/');
    if (slash == parent)
      slash[1] = '\0';
    else
      *slash = '\0';
    int rc = cbk_fs_mkdir(fs, parent, 1, err);
    free(parent);
    if (rc) return rc;
  }
  int rc = parent_ok(fs, abs, err);
  if (rc) return rc;
  return add_node(fs, abs, 1) ? sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory") : 0;
}

int cbk_fs_remove(cbk_fs *fs, const char *abs, sbio_bk_error *err) {
  if (strcmp(abs, "/") == 0 || strcmp(abs, "/work") == 0)
    return sbio_bk_error_set(err, SBIO_E_FS, NULL, "refusing to remove %s", abs);
  if (!cbk_fs_find(fs, abs)) return sbio_bk_error_set(err, SBIO_E_PATH_NOT_FOUND, NULL, "no such file: %s", abs);
  size_t len = strlen(abs), kept = 0;
  for (size_t i = 0; i < fs->n; i++) {
    cbk_node *nd = &fs->nodes[i];
    int doomed = strcmp(nd->path, abs) == 0 || (strncmp(nd->path, abs, len) == 0 && nd->path[len] == '/');
    if (doomed) {
      free(nd->path);
      free(nd->data);
    } else {
      fs->nodes[kept++] = *nd;
    }
  }
  fs->n = kept;
  return 0;
}
