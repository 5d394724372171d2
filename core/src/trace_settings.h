/* SPDX-License-Identifier: MIT */
/* Where and how spans are exported: the YAML `tracing` section overlaid
 * with the standard OpenTelemetry environment variables (docs/tracing.md).
 * Nothing is exported unless an endpoint is configured. */
#ifndef SBIO_TRACE_SETTINGS_H
#define SBIO_TRACE_SETTINGS_H

#include "config.h"
#include "strlist.h"

#include <sandboxio/sandboxio.h>

typedef void (*sbio__warn_fn)(void *user, const char *message);

typedef struct sbio__trace_settings {
  int export_on;
  const char *off_reason; /* static text: why export is off */
  char *url;              /* the full traces URL, POSTed to */
  char *display_url;      /* url without user-info, query or fragment: safe to print */
  sbio__kvlist headers;   /* values may be secrets: never logged */
  char *service_name;
  sbio__kvlist resource;  /* OTEL_RESOURCE_ATTRIBUTES, service.name excluded */
  long timeout_ms;        /* one request; also the flush at host close */
  long schedule_delay_ms; /* longest a span waits in the queue */
  size_t max_queue;       /* spans held; beyond it the oldest is dropped */
  size_t max_batch;       /* spans per request */
} sbio__trace_settings;

/* Fills s from cfg and the environment. Invalid environment values are
 * reported through warn (never with a header value) and ignored. Returns
 * SBIO_OK, or SBIO_E_INTERNAL on out of memory. */
sbio_code sbio__trace_settings_load(sbio__trace_settings *s, const sbio__config *cfg, sbio__warn_fn warn, void *user);
void sbio__trace_settings_free(sbio__trace_settings *s);

/* Whether text is an http:// or https:// URL with a host, no spaces or
 * control characters, and a port (when there is a ':') from 1 to 65535. */
int sbio__otlp_url_valid(const char *text);
/* NULL when it is; otherwise what is wrong, as static text that does not
 * quote the URL (for "ignoring VARIABLE: ..."). */
const char *sbio__otlp_url_problem(const char *text);

#endif
