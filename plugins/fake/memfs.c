/* SPDX-License-Identifier: MIT */
#include "memfs.h"

#include "fspath.h"
#include "sorted.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One file or directory. */
typedef struct fs_node {
  char *path;
  unsigned char *data;
  size_t len;
  size_t cap;
  int is_dir;
} fs_node;

/* Nodes sorted by strcmp of their paths. Everything under a directory D
 * starts with "D/", and strings sharing a prefix are contiguous in that
 * order, so a subtree is one run of the array: listing and recursive
 * removal are range scans. */
struct fake_memfs {
  fs_node *nodes;
  size_t n;
  size_t cap;
  size_t used;     /* bytes of file data */
  size_t capacity; /* limit on `used` */
};

static const char *node_path_at(const void *table, size_t i) {
  return ((const fake_memfs *)table)->nodes[i].path;
}

/* Index of `path` or of where it would go. */
static size_t fs_find(const fake_memfs *fs, const char *path, int *found) {
  return sbio__fake_sorted_find(fs, fs->n, node_path_at, path, found);
}

static fs_node *fs_get(const fake_memfs *fs, const char *path) {
  int found;
  size_t at = fs_find(fs, path, &found);
  return found ? &fs->nodes[at] : NULL;
}

static fs_node *fs_insert(fake_memfs *fs, const char *path, int is_dir) {
  int found;
  size_t at = fs_find(fs, path, &found);
  if (found) return &fs->nodes[at];
  if (fs->n == fs->cap) {
    size_t cap = fs->cap ? fs->cap * 2 : 16;
    fs_node *nodes = realloc(fs->nodes, cap * sizeof *nodes);
    if (!nodes) return NULL;
    fs->nodes = nodes;
    fs->cap = cap;
  }
  char *copy = strdup(path);
  if (!copy) return NULL;
  memmove(fs->nodes + at + 1, fs->nodes + at, (fs->n - at) * sizeof *fs->nodes);
  fs->nodes[at] = (fs_node){.path = copy, .is_dir = is_dir};
  fs->n++;
  return &fs->nodes[at];
}

/* The parent of `path` must be an existing directory. */
static fake_memfs_status fs_parent_ok(const fake_memfs *fs, const char *path) {
  char *parent = sbio__fake_path_parent(path);
  if (!parent) return FAKE_FS_ENOMEM;
  const fs_node *p = fs_get(fs, parent);
  free(parent);
  if (!p) return FAKE_FS_ENOENT;
  return p->is_dir ? FAKE_FS_OK : FAKE_FS_ENOTDIR;
}

fake_memfs *sbio__fake_memfs_new(size_t capacity) {
  fake_memfs *fs = calloc(1, sizeof *fs);
  if (!fs) return NULL;
  fs->capacity = capacity;
  static const char *const seed[] = {"/", "/tmp", FAKE_WORKDIR};
  for (size_t i = 0; i < sizeof seed / sizeof *seed; i++) {
    if (!fs_insert(fs, seed[i], 1)) {
      sbio__fake_memfs_free(fs);
      return NULL;
    }
  }
  return fs;
}

void sbio__fake_memfs_free(fake_memfs *fs) {
  if (!fs) return;
  for (size_t i = 0; i < fs->n; i++) {
    free(fs->nodes[i].path);
    free(fs->nodes[i].data);
  }
  free(fs->nodes);
  free(fs);
}

fake_memfs_status sbio__fake_memfs_stat(const fake_memfs *fs, const char *path, int *is_dir, size_t *size) {
  const fs_node *node = fs_get(fs, path);
  if (!node) return FAKE_FS_ENOENT;
  if (is_dir) *is_dir = node->is_dir;
  if (size) *size = node->len;
  return FAKE_FS_OK;
}

fake_memfs_status sbio__fake_memfs_read(const fake_memfs *fs, const char *path, const unsigned char **data,
                                        size_t *len) {
  const fs_node *node = fs_get(fs, path);
  if (!node) return FAKE_FS_ENOENT;
  if (node->is_dir) return FAKE_FS_EISDIR;
  *data = node->data;
  *len = node->len;
  return FAKE_FS_OK;
}

fake_memfs_status sbio__fake_memfs_write(fake_memfs *fs, const char *path, const void *data, size_t len, int append) {
  fs_node *node = fs_get(fs, path);
  if (node && node->is_dir) return FAKE_FS_EISDIR;
  if (!node) {
    fake_memfs_status st = fs_parent_ok(fs, path);
    if (st != FAKE_FS_OK) return st;
  }
  size_t keep = (node && append) ? node->len : 0;
  size_t old = node ? node->len : 0;
  if (len > fs->capacity || keep > fs->capacity - len || fs->used - old > fs->capacity - (keep + len))
    return FAKE_FS_ENOSPC;
  if (!node) node = fs_insert(fs, path, 0);
  if (!node) return FAKE_FS_ENOMEM;
  size_t need = keep + len;
  if (need > node->cap) {
    /* Appends (shell redirects) arrive a line at a time: grow geometrically. */
    size_t cap = node->cap ? node->cap : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    unsigned char *grown = realloc(node->data, cap);
    if (!grown) return FAKE_FS_ENOMEM;
    node->data = grown;
    node->cap = cap;
  }
  if (len) memcpy(node->data + keep, data, len);
  fs->used = fs->used - old + need;
  node->len = need;
  return FAKE_FS_OK;
}

fake_memfs_status sbio__fake_memfs_mkdir(fake_memfs *fs, const char *path, int parents) {
  const fs_node *node = fs_get(fs, path);
  if (node) return (node->is_dir && parents) ? FAKE_FS_OK : FAKE_FS_EEXIST;
  fake_memfs_status st = fs_parent_ok(fs, path);
  if (st == FAKE_FS_ENOENT && parents) {
    char *parent = sbio__fake_path_parent(path);
    if (!parent) return FAKE_FS_ENOMEM;
    st = sbio__fake_memfs_mkdir(fs, parent, 1);
    free(parent);
  }
  if (st != FAKE_FS_OK) return st;
  return fs_insert(fs, path, 1) ? FAKE_FS_OK : FAKE_FS_ENOMEM;
}

/* [begin, end) of the nodes strictly under directory `path`. */
static void fs_subtree(const fake_memfs *fs, const char *path, size_t *begin, size_t *end) {
  size_t plen = strlen(path);
  int found;
  size_t at = fs_find(fs, path, &found);
  if (found) at++;
  *begin = at;
  if (plen == 1) { /* "/": everything else */
    *end = fs->n;
    return;
  }
  /* Descendants start with path + "/"; paths like "/a-b" sort between "/a"
   * and "/a/..." and are not descendants, so skip them. */
  while (at < fs->n && strncmp(fs->nodes[at].path, path, plen) == 0 && fs->nodes[at].path[plen] != '/') at++;
  *begin = at;
  while (at < fs->n && strncmp(fs->nodes[at].path, path, plen) == 0 && fs->nodes[at].path[plen] == '/') at++;
  *end = at;
}

fake_memfs_status sbio__fake_memfs_remove(fake_memfs *fs, const char *path, int recursive) {
  if (strcmp(path, "/") == 0 || strcmp(path, FAKE_WORKDIR) == 0) return FAKE_FS_EPERM;
  int found;
  size_t at = fs_find(fs, path, &found);
  if (!found) return FAKE_FS_ENOENT;
  size_t begin = at, end = at + 1;
  if (fs->nodes[at].is_dir) {
    if (!recursive) return FAKE_FS_EISDIR;
    size_t sub_begin, sub_end;
    fs_subtree(fs, path, &sub_begin, &sub_end);
    /* Make one contiguous range [at, sub_end) only if nothing unrelated sits
     * between the node and its subtree; otherwise remove in two passes. */
    if (sub_begin != at + 1) {
      for (size_t i = sub_begin; i < sub_end; i++) {
        fs->used -= fs->nodes[i].len;
        free(fs->nodes[i].path);
        free(fs->nodes[i].data);
      }
      memmove(fs->nodes + sub_begin, fs->nodes + sub_end, (fs->n - sub_end) * sizeof *fs->nodes);
      fs->n -= sub_end - sub_begin;
    } else {
      end = sub_end;
    }
  }
  for (size_t i = begin; i < end; i++) {
    fs->used -= fs->nodes[i].len;
    free(fs->nodes[i].path);
    free(fs->nodes[i].data);
  }
  memmove(fs->nodes + begin, fs->nodes + end, (fs->n - end) * sizeof *fs->nodes);
  fs->n -= end - begin;
  return FAKE_FS_OK;
}

fake_memfs_status sbio__fake_memfs_list(const fake_memfs *fs, const char *path, fake_memfs_entry_fn fn, void *user) {
  const fs_node *dir = fs_get(fs, path);
  if (!dir) return FAKE_FS_ENOENT;
  if (!dir->is_dir) return FAKE_FS_ENOTDIR;
  size_t begin, end;
  fs_subtree(fs, path, &begin, &end);
  size_t skip = strlen(path) == 1 ? 1 : strlen(path) + 1;
  for (size_t i = begin; i < end; i++) {
    const fs_node *node = &fs->nodes[i];
    const char *name = node->path + skip;
    if (strchr(name, '/')) continue; /* deeper than a direct child */
    fn(user, node->path, name, node->len, node->is_dir);
  }
  return FAKE_FS_OK;
}
