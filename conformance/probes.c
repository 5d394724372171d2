/* SPDX-License-Identifier: MIT */
#include "probes.h"

#include <stdlib.h>
#include <string.h>

const char *kit_probe_egress(kit_case *c, const char *host) {
  const char *tmpl = c->ctx->opt.egress_probe;
  size_t hlen = strlen(host), n = 0;
  for (const char *p = strstr(tmpl, "{host}"); p; p = strstr(p + 6, "{host}")) n++;
  char *out = kit_xmalloc(strlen(tmpl) + n * hlen + 1);
  char *o = out;
  for (const char *p = tmpl; *p;) {
    if (strncmp(p, "{host}", 6) == 0) {
      memcpy(o, host, hlen);
      o += hlen;
      p += 6;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  kit_defer_free(c, free, out);
  return out;
}

const char *kit_probe_name(kit_case *c, const char *what) {
  return kit_fmt(c, "sbio-conformance-%s-%s", c->ctx->run_id, what);
}

const char *kit_env_value(kit_case *c, const char *out, size_t len, const char *var) {
  size_t vlen = strlen(var);
  for (const char *line = out, *end = out + len; line < end;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
    if (n > vlen && memcmp(line, var, vlen) == 0 && line[vlen] == '=')
      return kit_fmt(c, "%.*s", (int)(n - vlen - 1), line + vlen + 1);
    line += n + 1;
  }
  return NULL;
}
