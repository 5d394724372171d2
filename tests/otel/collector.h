/* SPDX-License-Identifier: MIT */
/* A test collector: a loopback HTTP/1.1 server on its own thread that
 * records every request (path, headers, body) and answers with a chosen
 * status, after an optional delay, or never (a black hole). Enough HTTP
 * for libcurl's POST with Content-Length and keep-alive; nothing more. */
#ifndef SBIO_TEST_OTEL_COLLECTOR_H
#define SBIO_TEST_OTEL_COLLECTOR_H

#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct collector collector;

typedef enum {
  COLLECTOR_ANSWER = 0, /* reply with the status after the delay */
  COLLECTOR_BLACKHOLE   /* read requests, never reply */
} collector_mode;

collector *collector_start(collector_mode mode, int status, int delay_ms);
/* "http://127.0.0.1:PORT" */
const char *collector_url(const collector *c);
void collector_stop(collector *c);

size_t collector_requests(collector *c);
/* The i-th request's body parsed as JSON (owned by the collector), NULL
 * when it was not JSON. */
const cJSON *collector_body(collector *c, size_t i);
const char *collector_raw_body(collector *c, size_t i);
const char *collector_path(collector *c, size_t i);
const char *collector_method(collector *c, size_t i);
/* A request header by name (any case), NULL when absent. */
const char *collector_header(collector *c, size_t i, const char *name);

/* Every span received so far, in order (owned by the collector; valid
 * until the next request arrives or stop). */
size_t collector_spans(collector *c, const cJSON **out, size_t max);
/* Waits until at least n spans arrived; returns 1 if they did. */
int collector_wait_spans(collector *c, size_t n, double seconds);

/* A URL on which nothing listens: its port stays bound (so no one else
 * takes it) but not listening, so connections are refused. Returns the
 * socket to close afterwards. */
int collector_unused_url(char *buf, size_t size);

#endif
