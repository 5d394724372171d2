/* SPDX-License-Identifier: MIT */
#include "paths.h"

#include "dk.h"

#include <stdlib.h>
#include <string.h>

int sbio__dk_path_resolve(const char *in, char *out, size_t size, sbio_bk_error *err) {
  if (!in || !in[0]) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker: the path is empty");
  size_t n = strlen(in);
  if (n >= DK_PATH_MAX)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker: path is longer than %d bytes", DK_PATH_MAX);
  char joined[DK_PATH_MAX + sizeof DK_WORK_DIR + 2];
  if (in[0] == '/')
    snprintf(joined, sizeof joined, "%s", in);
  else
    snprintf(joined, sizeof joined, "%s/%s", DK_WORK_DIR, in);
  /* Walk the components, keeping a stack of where each one started. */
  size_t len = 0, starts[DK_PATH_MAX / 2 + 2], depth = 0;
  char *p = joined;
  while (*p) {
    while (*p == '/') p++;
    if (!*p) break;
    char *end = strchr(p, '/');
    size_t clen = end ? (size_t)(end - p) : strlen(p);
    if (clen == 1 && p[0] == '.') {
      /* nothing */
    } else if (clen == 2 && p[0] == '.' && p[1] == '.') {
      if (depth) len = starts[--depth];
    } else {
      if (len + 1 + clen + 1 > size)
        return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker: path is too long");
      starts[depth++] = len;
      out[len++] = '/';
      memcpy(out + len, p, clen);
      len += clen;
    }
    p += clen;
  }
  if (len == 0) out[len++] = '/';
  out[len] = '\0';
  return SBIO_OK;
}

void sbio__dk_path_split(const char *abs, char *dir, size_t dsize, char *base, size_t bsize) {
  const char *slash = strrchr(abs, '/');
  if (!slash || slash == abs)
    snprintf(dir, dsize, "/");
  else
    snprintf(dir, dsize, "%.*s", (int)(slash - abs), abs);
  snprintf(base, bsize, "%s", slash ? slash + 1 : abs);
}

int sbio__dk_archive_url(const char *container, const char *abs, const char *extra_query, char *out, size_t size) {
  char *esc = sbio_sdk_http_escape(abs);
  int n = esc ? snprintf(out, size, "/containers/%s/archive?path=%s%s%s", container, esc, extra_query ? "&" : "",
                         extra_query ? extra_query : "")
              : -1;
  free(esc);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}
