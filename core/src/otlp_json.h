/* SPDX-License-Identifier: MIT */
/* The OTLP/JSON rendering of an audit record as an OpenTelemetry span
 * (GenAI semantic conventions: an `execute_tool` span per operation), and
 * the ExportTraceServiceRequest document that carries a batch of them.
 * Encoding rules of OTLP/JSON: ids are lower-case hex (not base64), 64-bit
 * integers (timestamps, intValue) are decimal strings, enums are numbers. */
#ifndef SBIO_OTLP_JSON_H
#define SBIO_OTLP_JSON_H

#include "strlist.h"
#include "traceparent.h"

#include <cjson/cJSON.h>
#include <stdint.h>

/* Semantic conventions version the attribute names follow. */
#define SBIO__OTEL_SEMCONV_VERSION "1.37.0"

typedef struct sbio__span_ids {
  unsigned char trace_id[SBIO__TRACE_ID_BYTES];
  unsigned char span_id[SBIO__SPAN_ID_BYTES];
  unsigned char parent_id[SBIO__SPAN_ID_BYTES];
  int has_parent;
} sbio__span_ids;

/* Whether an audit event is an operation (create, exec, file operation,
 * kill) and so becomes a span; host events (backend_loaded, ...) and the
 * create_requested marker do not. */
int sbio__otlp_is_operation(const char *event);

/* The span for a redacted audit record; NULL on out of memory. */
cJSON *sbio__otlp_span(const cJSON *record, const sbio__span_ids *ids, int64_t start_unix_ns, int64_t end_unix_ns);

/* The request body for n spans (which stay the caller's), or NULL on out
 * of memory. `resource` holds extra resource attributes (may be NULL). */
char *sbio__otlp_request(cJSON *const *spans, size_t n, const char *service_name, const sbio__kvlist *resource);

#endif
