/* SPDX-License-Identifier: MIT */
#include "paths.h"

#include <stdlib.h>
#include <string.h>

int sbio__e2b_path_resolve(const char *workdir, const char *path, char **out, sbio_bk_error *err) {
  *out = NULL;
  if (!path || !path[0]) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b: empty path");
  for (const char *p = path; *p; p++)
    if ((unsigned char)*p < 0x20)
      return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b: path contains a control character");
  size_t wl = strlen(workdir), pl = strlen(path);
  char *joined = malloc(wl + pl + 2);
  char *res = malloc(wl + pl + 2);
  if (!joined || !res) {
    free(joined);
    free(res);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  }
  if (path[0] == '/')
    memcpy(joined, path, pl + 1);
  else {
    memcpy(joined, workdir, wl);
    joined[wl] = '/';
    memcpy(joined + wl + 1, path, pl + 1);
  }
  /* Fold segments into res: "." vanishes, ".." drops the last kept one. */
  size_t n = 0;
  char *save = NULL;
  for (char *seg = strtok_r(joined, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
    if (strcmp(seg, ".") == 0) continue;
    if (strcmp(seg, "..") == 0) {
      while (n > 0 && res[n - 1] != '/') n--;
      if (n > 0) n--;
      continue;
    }
    res[n++] = '/';
    size_t sl = strlen(seg);
    memcpy(res + n, seg, sl);
    n += sl;
  }
  if (n == 0) res[n++] = '/';
  res[n] = '\0';
  free(joined);
  *out = res;
  return SBIO_OK;
}

char *sbio__e2b_path_parent(const char *abs) {
  const char *slash = strrchr(abs, '/');
  if (!slash || slash == abs) return strdup("/");
  return strndup(abs, (size_t)(slash - abs));
}
