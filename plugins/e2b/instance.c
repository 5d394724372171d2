/* SPDX-License-Identifier: MIT */
/* The backend instance's shared services: reference counting, logging
 * through the host, call checks, envd version gates. */
#include "e2b.h"

#include "http.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbio__e2b_instance_ref(e2b_instance *inst) {
  atomic_fetch_add(&inst->refs, 1);
}

void sbio__e2b_instance_unref(e2b_instance *inst) {
  if (!inst || atomic_fetch_sub(&inst->refs, 1) != 1) return;
  sbio__e2b_http_free(inst->http);
  sbio__e2b_settings_free(&inst->settings);
  free(inst);
}

void sbio__e2b_log(const e2b_instance *inst, int level, const char *fmt, ...) {
  if (!inst->host.log || inst->host.size < offsetof(sbio_host_services, log) + sizeof inst->host.log) return;
  char line[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  inst->host.log(inst->host.host_data, level, line);
}

int sbio__e2b_call_ok(const sbio_bk_call *call) {
  return call && call->host && call->host->monotonic_ns;
}

/* Dotted numeric versions, compared field by field ("0.5.10" > "0.5.9");
 * a leading "v" is ignored. An unreadable version counts as old. */
int sbio__e2b_version_at_least(const char *version, const char *minimum) {
  if (!version) return 0;
  if (*version == 'v') version++;
  const char *a = version, *b = minimum;
  for (int i = 0; i < 4; i++) {
    char *ea, *eb;
    long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
    if (ea == a) x = 0;
    if (eb == b) y = 0;
    if (x != y) return x > y;
    a = *ea == '.' ? ea + 1 : ea;
    b = *eb == '.' ? eb + 1 : eb;
    if (!*a && !*b) break;
  }
  return 1;
}
