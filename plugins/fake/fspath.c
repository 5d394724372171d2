/* SPDX-License-Identifier: MIT */
#include "fspath.h"

#include <stdlib.h>
#include <string.h>

/* Appends the components of `src` to `out` (which holds a normalised path
 * of length *len), applying "." and ".." as it goes. */
static int path_apply(char *out, size_t *len, const char *src) {
  const char *p = src;
  while (*p) {
    while (*p == '/') p++;
    const char *start = p;
    while (*p && *p != '/') p++;
    size_t n = (size_t)(p - start);
    if (n == 0 || (n == 1 && start[0] == '.')) continue;
    if (n == 2 && start[0] == '.' && start[1] == '.') {
      /* Drop the last component; at "/" there is nothing to drop. */
      while (*len > 1 && out[*len - 1] != '/') (*len)--;
      if (*len > 1) (*len)--;
      out[*len] = '\0';
      continue;
    }
    size_t need = *len + (*len > 1 ? 1 : 0) + n;
    if (need > FAKE_PATH_MAX) return FAKE_PATH_TOO_LONG;
    if (*len > 1) out[(*len)++] = '/';
    memcpy(out + *len, start, n);
    *len += n;
    out[*len] = '\0';
  }
  return FAKE_PATH_OK;
}

int sbio__fake_path_resolve(const char *base, const char *path, char **out) {
  *out = NULL;
  char *buf = malloc(FAKE_PATH_MAX + 1);
  if (!buf) return FAKE_PATH_NOMEM;
  size_t len = 1;
  buf[0] = '/';
  buf[1] = '\0';
  int rc = FAKE_PATH_OK;
  if (!path || path[0] != '/') rc = path_apply(buf, &len, base ? base : FAKE_WORKDIR);
  if (rc == FAKE_PATH_OK && path) rc = path_apply(buf, &len, path);
  if (rc != FAKE_PATH_OK) {
    free(buf);
    return rc;
  }
  char *shrunk = realloc(buf, len + 1);
  *out = shrunk ? shrunk : buf;
  return FAKE_PATH_OK;
}

char *sbio__fake_path_parent(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t n = (slash && slash != path) ? (size_t)(slash - path) : 1;
  char *parent = malloc(n + 1);
  if (!parent) return NULL;
  memcpy(parent, slash ? path : "/", slash ? n : 1);
  parent[n] = '\0';
  return parent;
}
