/* SPDX-License-Identifier: MIT */
/* See backend_path.h. */
#include "backend_path.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

sbio_code cli_set_backend_path(sbio_host_options *opts, const char *dirs) {
  char cwd[PATH_MAX];
  int relative = 0;
  for (const char *p = dirs; *p;) {
    if (*p != '/' && *p != ':') relative = 1;
    const char *colon = strchr(p, ':');
    if (!colon) break;
    p = colon + 1;
  }
  if (!relative) return sbio_host_options_set_backend_path(opts, dirs);
  if (!getcwd(cwd, sizeof cwd)) return SBIO_E_INTERNAL;
  size_t n_entries = 1;
  for (const char *p = dirs; *p; p++) n_entries += *p == ':';
  size_t cwd_len = strlen(cwd);
  char *out = malloc(strlen(dirs) + n_entries * (cwd_len + 1) + 1);
  if (!out) return SBIO_E_INTERNAL;
  char *o = out;
  for (const char *p = dirs;;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len && p[0] != '/') {
      memcpy(o, cwd, cwd_len);
      o += cwd_len;
      if (cwd_len > 1) *o++ = '/';
    }
    memcpy(o, p, len);
    o += len;
    if (!end) break;
    *o++ = ':';
    p = end + 1;
  }
  *o = '\0';
  sbio_code rc = sbio_host_options_set_backend_path(opts, out);
  free(out);
  return rc;
}
