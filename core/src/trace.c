/* SPDX-License-Identifier: MIT */
#include "trace.h"

#include "host_internal.h"
#include "otlp_export.h"
#include "otlp_json.h"
#include "trace_settings.h"
#include "traceparent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct sbio__tracer {
  sbio_host *host;
  sbio__exporter *exporter;
  char *endpoint; /* display form */
  int has_parent;
  sbio__trace_context parent;
};

static int random_bytes(unsigned char *out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(out + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    got += (size_t)r;
  }
  return 0;
}

static void warn_to_log(void *user, const char *message) {
  sbio__log(user, SBIO_LOG_WARN, "%s", message);
}

sbio__tracer *sbio__tracer_open(sbio_host *host, const char *traceparent) {
  sbio__trace_settings s;
  if (sbio__trace_settings_load(&s, &host->cfg, warn_to_log, host) != SBIO_OK) {
    sbio__log(host, SBIO_LOG_WARN, "out of memory reading the tracing settings; spans are not exported");
    host->trace_off_reason = "out of memory reading the tracing settings";
    return NULL;
  }
  if (!s.export_on) {
    host->trace_off_reason = s.off_reason; /* static text */
    sbio__log(host, SBIO_LOG_DEBUG, "spans are not exported: %s", s.off_reason);
    sbio__trace_settings_free(&s);
    return NULL;
  }
  sbio__tracer *t = calloc(1, sizeof *t);
  if (t) t->endpoint = strdup(s.display_url);
  char reason[256] = "out of memory";
  if (t && t->endpoint) t->exporter = sbio__exporter_new(&s, reason, sizeof reason);
  if (!t || !t->endpoint || !t->exporter) {
    sbio__log(host, SBIO_LOG_WARN, "cannot start the span exporter (%s); spans are not exported", reason);
    host->trace_off_reason = "the span exporter could not start (see its warning)";
    sbio__trace_settings_free(&s);
    if (t) free(t->endpoint);
    free(t);
    return NULL;
  }
  t->host = host;
  const char *why;
  if (traceparent && sbio__traceparent_parse(traceparent, &t->parent, &why) == 0) {
    t->has_parent = 1;
  } else if (traceparent) {
    /* W3C: a malformed traceparent is ignored and a new trace starts. The
     * value is not echoed: it is not secret, but it may be long garbage. */
    sbio__log(host, SBIO_LOG_WARN, "ignoring the traceparent: %s; spans start a new trace", why);
  }
  sbio__log(host, SBIO_LOG_DEBUG, "exporting spans to %s", t->endpoint);
  return t;
}

void sbio__tracer_record(sbio__tracer *t, const char *record_json, int64_t start_unix_ns, int64_t end_unix_ns) {
  if (!t) return;
  /* The caller decided not to sample its trace: neither do we. */
  if (t->has_parent && !(t->parent.flags & SBIO__TRACE_FLAG_SAMPLED)) return;
  cJSON *record = cJSON_Parse(record_json);
  const cJSON *event = cJSON_GetObjectItemCaseSensitive(record, "event");
  if (record && cJSON_IsString(event) && sbio__otlp_is_operation(event->valuestring)) {
    sbio__span_ids ids = {0};
    int ok = random_bytes(ids.span_id, sizeof ids.span_id) == 0;
    if (t->has_parent) {
      memcpy(ids.trace_id, t->parent.trace_id, sizeof ids.trace_id);
      memcpy(ids.parent_id, t->parent.span_id, sizeof ids.parent_id);
      ids.has_parent = 1;
    } else {
      ok = ok && random_bytes(ids.trace_id, sizeof ids.trace_id) == 0;
    }
    if (ok) sbio__exporter_enqueue(t->exporter, sbio__otlp_span(record, &ids, start_unix_ns, end_unix_ns));
  }
  cJSON_Delete(record);
  char why[256];
  if (sbio__exporter_new_failure(t->exporter, why, sizeof why))
    sbio__log(t->host, SBIO_LOG_WARN, "span export failing: %s; spans are dropped until it recovers", why);
}

void sbio__tracer_close(sbio__tracer *t) {
  if (!t) return;
  sbio__export_stats st;
  sbio__exporter_shutdown(t->exporter, &st);
  uint64_t lost = st.dropped_full + st.dropped_failed + st.dropped_at_exit;
  if (lost)
    sbio__log(t->host, SBIO_LOG_WARN,
              "%llu spans were not exported to %s (%llu: queue full, %llu: failed requests, %llu: no time left at "
              "close)%s%s",
              (unsigned long long)lost, t->endpoint, (unsigned long long)st.dropped_full,
              (unsigned long long)st.dropped_failed, (unsigned long long)st.dropped_at_exit,
              st.last_error[0] ? "; last error: " : "", st.last_error);
  free(t->endpoint);
  free(t);
}

const char *sbio__tracer_endpoint(const sbio__tracer *t) {
  return t ? t->endpoint : NULL;
}

/* ------------------------------------------------------- public setters */
sbio_code sbio_host_options_set_traceparent(sbio_host_options *opts, const char *traceparent) {
  if (!opts) return SBIO_E_INVALID_ARGUMENT;
  char *copy = NULL;
  if (traceparent && !(copy = strdup(traceparent))) return SBIO_E_INTERNAL;
  free(opts->traceparent);
  opts->traceparent = copy;
  return SBIO_OK;
}

const char *sbio_host_trace_off_reason(const sbio_host *host) {
  if (!host || host->tracer) return NULL;
  return host->trace_off_reason ? host->trace_off_reason : "span export is off";
}

const char *sbio_host_trace_endpoint(const sbio_host *host) {
  return host ? sbio__tracer_endpoint(host->tracer) : NULL;
}
