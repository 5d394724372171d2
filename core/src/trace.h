/* SPDX-License-Identifier: MIT */
/* Spans: every operation's audit record, once redacted, is also rendered
 * as an OpenTelemetry `execute_tool` span and exported as OTLP/HTTP JSON
 * when tracing is configured (docs/tracing.md). The audit module calls
 * sbio__tracer_record for each record, so no operation site knows about
 * spans. A tracer exists only while spans are exported. */
#ifndef SBIO_TRACE_H
#define SBIO_TRACE_H

#include <stdint.h>

struct sbio_host;
typedef struct sbio__tracer sbio__tracer;

/* Reads the export settings (host config + environment) and the caller's
 * traceparent (NULL: none; malformed: ignored with a warning). NULL when
 * nothing is to be exported, or on out of memory (with a warning). */
sbio__tracer *sbio__tracer_open(struct sbio_host *host, const char *traceparent);
/* Turns a redacted audit record (JSON text) into a span and queues it;
 * records that are not operations are skipped. Never blocks on the
 * network, never fails the operation. */
void sbio__tracer_record(sbio__tracer *t, const char *record_json, int64_t start_unix_ns, int64_t end_unix_ns);
/* Flushes within the export timeout, reports dropped spans, frees. */
void sbio__tracer_close(sbio__tracer *t);
/* The traces URL without user-info or query. */
const char *sbio__tracer_endpoint(const sbio__tracer *t);

#endif
