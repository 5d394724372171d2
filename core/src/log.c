/* SPDX-License-Identifier: MIT */
/* Library diagnostics. Everything is redacted before it reaches the
 * caller's callback or stderr. */
#include "host_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void sbio__log(sbio_host *host, sbio_log_level level, const char *fmt, ...) {
  char raw[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(raw, sizeof raw, fmt, ap);
  va_end(ap);
  char *clean = sbio__redact(&host->redactor, raw);
  const char *text = clean ? clean : SBIO_REDACTED;
  if (host->log_fn)
    host->log_fn(level, text, host->log_user);
  else if (level >= SBIO_LOG_WARN)
    fprintf(stderr, "sandboxio: %s: %s\n", level >= SBIO_LOG_ERROR ? "error" : "warning", text);
  free(clean);
}
