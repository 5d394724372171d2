/* SPDX-License-Identifier: MIT */
/* The call log: an optional file (settings "call_log") with one line per
 * backend operation, so tests can prove an operation was or was not called
 * (e.g. that create never ran when an isolation requirement failed).
 *
 * A line is "OP[ ID[ DETAIL]]", e.g. "create fake-0001" or
 * "exec fake-0001 echo hi". Control characters are escaped so one operation
 * is always one line, and the line passes through the host's redaction
 * before it is written. Only keys, never values, of env and secrets appear. */
#ifndef SBIO_FAKE_CALLLOG_H
#define SBIO_FAKE_CALLLOG_H

#include <sandboxio/backend.h>

/* No-op when `path` is NULL. Open, append, close per line (O_APPEND, one
 * write) so concurrent threads and processes never interleave a line. */
void sbio__fake_calllog(const char *path, const sbio_host_services *host, const char *op, const char *id,
                        const char *detail);

#endif
