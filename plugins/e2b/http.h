/* SPDX-License-Identifier: MIT */
/* HTTP over libcurl. Every request has a connect and a total timeout taken
 * from its deadline, so nothing waits unbounded, and stops early when its
 * call is cancelled. Connections, DNS answers and TLS sessions are shared
 * by all the requests of one backend instance (a curl share object), so
 * they are reused across requests and threads.
 *
 * Requests run in a loop (a curl multi handle) so that an exec can keep its
 * output stream open while it sends stdin or a kill signal next to it. */
#ifndef SBIO_E2B_HTTP_H
#define SBIO_E2B_HTTP_H

#include "e2b.h"

#include <curl/curl.h>

#define E2B_BODY_LIMIT ((size_t)4 << 20) /* buffered answers (JSON, errors) */

typedef struct e2b_req {
  const char *method; /* GET POST DELETE PUT */
  const char *url;
  const struct curl_slist *headers;
  const void *body; /* request body, or NULL */
  size_t body_len;
  /* Streaming answer: a 2xx body goes here instead of the buffer. Return
   * non-zero to stop the transfer. */
  int (*sink)(void *user, const char *data, size_t len);
  void *sink_user;
  int64_t deadline_ns; /* absolute, host clock */
} e2b_req;

typedef struct e2b_resp {
  long status; /* 0 when no answer arrived */
  int curl_code;
  char error[256];
  int timed_out, cancelled, sink_stopped;
  size_t sunk; /* bytes handed to the sink: a retry would repeat them */
  char *body;  /* NUL-terminated, at most E2B_BODY_LIMIT bytes */
  size_t len, cap;
  char retry_after[64];
  char next_token[1024];
} e2b_resp;

int sbio__e2b_http_new(e2b_http **out);
void sbio__e2b_http_free(e2b_http *http);

/* One blocking request. 0 when an HTTP answer arrived (any status); -1 on a
 * transport failure, timeout or cancellation (see resp). resp is always
 * initialised; free it with sbio__e2b_resp_free. */
int sbio__e2b_http(e2b_instance *inst, const sbio_bk_call *call, const e2b_req *req, e2b_resp *resp);
void sbio__e2b_resp_free(e2b_resp *resp);

/* ---------------------------------------------------------------- loops */
typedef struct e2b_loop e2b_loop;
typedef struct e2b_xfer e2b_xfer;

e2b_loop *sbio__e2b_loop_new(e2b_instance *inst, const sbio_bk_call *call);
/* Aborts and frees whatever is still in it. */
void sbio__e2b_loop_free(e2b_loop *loop);
/* Starts a request; `req` (and what it points to) must outlive the
 * transfer. NULL on failure (out of memory). */
e2b_xfer *sbio__e2b_loop_add(e2b_loop *loop, const e2b_req *req);
/* Drives every transfer for at most timeout_ms. -1 on a curl failure. */
int sbio__e2b_loop_step(e2b_loop *loop, int timeout_ms);
int sbio__e2b_xfer_done(const e2b_xfer *x);
e2b_resp *sbio__e2b_xfer_resp(e2b_xfer *x);
/* Aborts (if running) and frees one transfer; its resp goes with it. */
void sbio__e2b_loop_remove(e2b_loop *loop, e2b_xfer *x);

/* Frees a header list after wiping its text: it may hold a key. */
void sbio__e2b_headers_free(struct curl_slist *headers);
/* Appends "Name: value"; returns the new head or NULL on OOM (the old
 * list is then freed, wiped). */
struct curl_slist *sbio__e2b_header(struct curl_slist *list, const char *name, const char *value);

/* Milliseconds from now to deadline (0 when past). */
long sbio__e2b_ms_left(const sbio_bk_call *call, int64_t deadline_ns);

#endif
