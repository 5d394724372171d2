/* SPDX-License-Identifier: MIT */
/* Audit events: one JSON object per line per operation, redacted before any
 * sink sees it. Sinks: an append-only file (config audit.path), stderr
 * (audit.stderr) and caller callbacks. A sink failure warns, or under
 * audit.on_failure: fail becomes the operation's error -- unless the
 * operation already failed, in which case the operation's error wins and
 * the sink failure is a warning. The same record, once redacted, is also
 * rendered as an OpenTelemetry span when tracing is on (trace.h): one
 * record, several renderings, so no operation site knows about spans.
 * Schema: docs/audit.md and docs/audit.schema.json. */
#ifndef SBIO_AUDIT_H
#define SBIO_AUDIT_H

#include "config.h"
#include "redact.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <sandboxio/sandboxio.h>

typedef struct sbio__audit_callback {
  sbio_audit_fn fn;
  void *user;
} sbio__audit_callback;

typedef struct sbio__audit {
  pthread_mutex_t lock; /* one writer at a time keeps file lines whole */
  char *path;
  int to_stderr; /* audit.stderr */
  sbio__on_failure on_failure;
  sbio__audit_callback cbs[8];
  size_t n_cbs;
  /* Under on_failure: warn, each sink's first failure is a warning and
   * the later ones are counted, reported once at host close: a full disk
   * must not turn every operation into a log line. Atomic. */
  unsigned warned;   /* bit per sink (sink_kind in audit.c) */
  size_t suppressed; /* failures not warned about */
  /* Time the stderr sink waited for a reader to make room, under lock: at
   * most SBIO_DEADLINE_MARGIN_S for the host's life, then a line that does
   * not fit at once fails the sink (audit.c, write_stderr_line). */
  int64_t stderr_waited_ns;
  /* Time spent waiting for the audit file's lock, under lock (audit.c,
   * lock_bounded). */
  int64_t lock_waited_ns;
} sbio__audit;

typedef struct sbio__event {
  int listening; /* someone receives it; when not, nothing is built */
  cJSON *obj;
  int64_t started_ns;      /* monotonic: the duration */
  int64_t started_unix_ns; /* wall clock: the span's start time */
  sbio__redactor *redactor;
} sbio__event;

struct sbio_host;
struct sbio_sandbox;
struct sbio_backend_info;
struct sbio__mechanism;

/* Whether any sink, callback or tracer receives this host's events. Fixed
 * when the host opens: when nobody listens no event is built, serialised
 * or redacted, so an operation costs nothing to observe. */
int sbio__audit_listening(const struct sbio_host *host);
/* Starts an event named `name` with its timestamp. When nobody listens,
 * or on OOM, obj is NULL and every setter is a no-op; emit then returns
 * SBIO_OK when nobody listens, the sink failure on OOM. */
void sbio__event_begin(sbio__event *ev, struct sbio_host *host, const char *name);
void sbio__event_str(sbio__event *ev, const char *key, const char *value); /* redacted; NULL -> null */
void sbio__event_int(sbio__event *ev, const char *key, long long value);
void sbio__event_argv(sbio__event *ev, const char *const *argv, size_t argc);
/* backend, mechanism, tier (effective), claimed_tier, source_url,
 * verified_on; `m` may be NULL (no mechanism yet). */
void sbio__event_backend(sbio__event *ev, const struct sbio_backend_info *b, const struct sbio__mechanism *m);
/* sandbox_id, the backend fields, tenant_id and session_id labels. */
void sbio__event_sandbox(sbio__event *ev, const struct sbio_sandbox *sb);
/* outcome "ok" or "error" plus error_code and (redacted) error message. */
void sbio__event_outcome(sbio__event *ev, sbio_code code, const sbio_error *err);
/* Completes the record (every field of the schema is present: null, 0, or
 * outcome from op_failed when the operation site did not set it),
 * serialises it, sends it to every sink and to the tracer, and frees the
 * event. Returns SBIO_OK or SBIO_E_AUDIT_SINK (and fills err) per the
 * on_failure rule above. */
sbio_code sbio__audit_emit(struct sbio_host *host, sbio__event *ev, int op_failed, sbio_error *err);
/* At host close: one warning counting the sink failures that were not
 * warned about one by one (none when there were none). */
void sbio__audit_close(struct sbio_host *host);
/* Closes an operation's event: redacts err when rc failed, records the
 * outcome, emits. Returns rc, or the sink's failure when rc succeeded. */
sbio_code sbio__audit_finish(struct sbio_host *host, sbio__event *ev, sbio_code rc, sbio_error *err);

#endif
