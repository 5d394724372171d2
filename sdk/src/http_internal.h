/* SPDX-License-Identifier: MIT */
/* The HTTP client's internals, shared by http*.c. */
#ifndef SBIO_SDK_HTTP_INTERNAL_H
#define SBIO_SDK_HTTP_INTERNAL_H

#include "sdk_internal.h"

#include <curl/curl.h>
#include <pthread.h>

#define HTTP_POOL_SIZE 8
#define HTTP_HEADERS_LIMIT ((size_t)64 << 10)

/* A connection slot: an easy handle with the multi handle that drives it.
 * The multi handle holds the connection cache, so keeping the pair together
 * keeps keep-alive connections for the next request. */
typedef struct http_slot {
  CURLM *multi;
  CURL *easy;
} http_slot;

struct sbio_sdk_http {
  char *backend;
  char *base_url;
  char *unix_socket;
  char *user_agent;
  char *ca_file;
  char *credential_env;
  char **headers; /* default header lines, secret ones included */
  size_t n_headers;
  sbio_sdk_secrets *own_secrets; /* values of the secret headers */
  const sbio_sdk_secrets *secrets;
  const sbio_host_services *host;
  long connect_timeout_ms;
  int max_attempts;
  long backoff_initial_ms;
  long backoff_max_ms;
  long retry_after_max_ms;
  size_t body_limit;
  long request_timeout_ms; /* an attempt's own limit; 0: none */
  long *retry_statuses;    /* answers that make an idempotent request worth repeating */
  size_t n_retry_statuses;
  /* Transport beyond the URL (http_transport.c). */
  char *client_cert;
  char *client_key;
  int tls_no_verify;
  int no_proxy;

  pthread_mutex_t lock;
  http_slot *idle[HTTP_POOL_SIZE];
  size_t n_idle;
};

/* One transfer on one easy handle, from sbio__http_xfer_begin() to
 * sbio__http_xfer_end(); a multi handle drives it in between (a group's,
 * http_group.c, for requests; a stream's own loop, http_stream.c). With
 * sbio__http_begin()/sbio__http_end() it also holds a pooled slot. */
typedef struct http_mime http_mime;
typedef struct http_xfer {
  sbio_sdk_http *c;
  const sbio_sdk_http_request *req;
  http_slot *slot; /* only from sbio__http_begin() */
  CURL *easy;
  char *url;
  struct curl_slist *header_list;
  http_mime *mime;
  char errbuf[CURL_ERROR_SIZE];
  long left_ms; /* time left before the deadline when the transfer began */
  long cap_ms;  /* the attempt's own limit when shorter than left_ms, else 0 */
  sbio__sdk_buf body, headers;
  int too_large, stopped, nomem;
  int head_done; /* the head of a 2xx answer (the last one, not a 1xx) is complete */
  int *sink_used;
} http_xfer;

/* Sets `req` up on `easy` (reset first, so it keeps its connections and
 * forgets the last request's options); the body goes to
 * sbio__http_on_body. 0, or -1 with resp filled (cancelled, deadline
 * passed, bad header, out of memory) and nothing to end. *sink_used is set
 * once the request cannot be repeated. */
int sbio__http_xfer_begin(http_xfer *x, sbio_sdk_http *c, CURL *easy, const sbio_sdk_http_request *req,
                          const sbio_bk_call *call, int *sink_used, sbio_sdk_http_response *resp);
/* Fills resp from the finished transfer (`rc`), or from one abandoned with
 * `outcome` (not ANSWERED), and frees what begin allocated; the easy
 * handle stays the caller's. */
void sbio__http_xfer_end(http_xfer *x, CURLcode rc, int outcome, sbio_sdk_http_response *resp);

/* The same on a pooled slot of its own (taken by begin, given back by
 * end), for a caller that drives x->slot->multi itself. */
int sbio__http_begin(http_xfer *x, sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                     int *sink_used, sbio_sdk_http_response *resp);
void sbio__http_end(http_xfer *x, CURLcode rc, int outcome, sbio_sdk_http_response *resp);
size_t sbio__http_on_body(char *data, size_t size, size_t n, void *user);
/* Milliseconds left before the call's deadline (0 once passed). */
long sbio__http_ms_left(const sbio_bk_call *call);

/* base_url + path. malloc'd; NULL on out-of-memory. */
char *sbio__http_url(const sbio_sdk_http *c, const char *path);
/* The request's own header lines and content type are single lines. */
int sbio__http_request_ok(const sbio_sdk_http_request *req);
/* The SBIO_SDK_HTTP_AT_* step a transfer that ended with rc failed at. */
int sbio__http_failed_at(CURLcode rc, CURL *h);
/* The SBIO_SDK_HTTP_* outcome of a transfer that failed with rc, given
 * the time it had (limit_ms). */
int sbio__http_transport_outcome(CURLcode rc, CURL *h, const sbio_sdk_http *c, long limit_ms);
/* Non-zero when a transfer that failed with rc provably never reached the
 * server: no connection was made for it (DNS, refused, connect timeout). */
int sbio__http_never_sent(CURLcode rc, CURL *h, const sbio_sdk_http *c, long limit_ms);

/* One request, no retries (a group of one transfer, http_group.c): fills
 * resp (outcome, status, error, body, headers). *sink_used is set once the
 * request cannot be repeated: its sink received data, or its body stream
 * was read and has no rewind. */
void sbio__http_attempt(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                        sbio_sdk_http_response *resp, int *sink_used);

/* http_multipart.c: the request's parts as a libcurl mime body on `easy`
 * (read from the caller's memory, rewindable). NULL on out-of-memory or a
 * part without a name. */
http_mime *sbio__http_mime_new(CURL *easy, const sbio_sdk_http_request *req);
curl_mime *sbio__http_mime_handle(http_mime *m);
void sbio__http_mime_free(http_mime *m);

/* http_transport.c: the options that say how to reach the server (unix
 * socket, TLS files and verification, proxy), applied to every handle the
 * client makes, pooled or not; and what a failed connection says. */
int sbio__http_transport_configure(sbio_sdk_http *c, const sbio_sdk_http_options *opt);
void sbio__http_transport_free(sbio_sdk_http *c);
void sbio__http_transport_apply(const sbio_sdk_http *c, CURL *h, long left_ms);
/* SBIO_SDK_TLS_* for a failed transfer (0 when TLS was not the cause). */
int sbio__http_tls_failure(const sbio_sdk_http *c, CURLcode rc, const char *errbuf);
/* The one-line transport error for resp->error: for a unix socket that
 * could not be connected, the socket's own error. */
void sbio__http_transport_error(const sbio_sdk_http *c, CURL *h, CURLcode rc, const char *errbuf, char *out,
                                size_t size);

http_slot *sbio__http_slot_take(sbio_sdk_http *c);
void sbio__http_slot_give(sbio_sdk_http *c, http_slot *slot);

/* Removes everything that is not a printable line from s, in place. */
void sbio__http_one_line(char *s);

#endif
