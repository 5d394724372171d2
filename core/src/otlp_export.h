/* SPDX-License-Identifier: MIT */
/* The span exporter: a bounded queue drained by one thread per host that
 * POSTs batches as OTLP/HTTP JSON with libcurl, which is loaded when the
 * first exporter is made (curl_load.h), never by a process that exports
 * nothing. The caller's thread only enqueues (never blocks on the
 * network); when the queue is full the oldest span is dropped and
 * counted. The thread starts with the first span. */
#ifndef SBIO_OTLP_EXPORT_H
#define SBIO_OTLP_EXPORT_H

#include "trace_settings.h"

#include <cjson/cJSON.h>
#include <stdint.h>

typedef struct sbio__exporter sbio__exporter;

typedef struct sbio__export_stats {
  uint64_t exported;        /* spans the collector accepted */
  uint64_t dropped_full;    /* spans dropped because the queue was full */
  uint64_t dropped_failed;  /* spans in requests that failed */
  uint64_t dropped_at_exit; /* spans still queued when the flush ran out of time */
  char last_error[256];     /* "" when no request failed */
} sbio__export_stats;

/* Takes the settings over (s is left empty). NULL with the reason in why
 * when libcurl cannot be loaded or on out of memory; freeing s is then
 * the caller's, and safe whether or not it was taken over. */
sbio__exporter *sbio__exporter_new(sbio__trace_settings *s, char *why, size_t why_size);
/* Takes the span over. Never blocks on the network. */
void sbio__exporter_enqueue(sbio__exporter *e, cJSON *span);
/* 1 once at the start of each run of failed requests, with the reason. */
int sbio__exporter_new_failure(sbio__exporter *e, char *why, size_t size);
/* Exports what is queued within the settings' timeout, stops the thread
 * and frees the exporter. A thread stuck past the deadline (e.g. in name
 * resolution) is left to finish on its own; it frees what it uses. */
void sbio__exporter_shutdown(sbio__exporter *e, sbio__export_stats *stats);

#endif
