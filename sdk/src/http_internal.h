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
  /* Transport beyond the URL (http_transport.c). */
  char *client_cert;
  char *client_key;
  int tls_no_verify;
  int no_proxy;

  pthread_mutex_t lock;
  http_slot *idle[HTTP_POOL_SIZE];
  size_t n_idle;
};

/* One transfer on one pooled connection, from sbio__http_begin() to
 * sbio__http_end(). sbio__http_attempt() runs it whole; a stream
 * (http_stream.c) drives it piece by piece with its own write callback. */
typedef struct http_xfer {
  sbio_sdk_http *c;
  const sbio_sdk_http_request *req;
  http_slot *slot;
  CURL *easy;
  char *url;
  struct curl_slist *header_list;
  char errbuf[CURL_ERROR_SIZE];
  long left_ms; /* time left when the transfer began */
  sbio__sdk_buf body, headers;
  int too_large, stopped, nomem;
  int *sink_used;
} http_xfer;

/* Takes a connection and sets the request up on it (the body goes to
 * sbio__http_on_body). 0, or -1 with resp filled (cancelled, deadline
 * passed, bad header, out of memory) and nothing to end. */
int sbio__http_begin(http_xfer *x, sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                     int *sink_used, sbio_sdk_http_response *resp);
/* Fills resp from the finished (or abandoned, `outcome` not ANSWERED)
 * transfer and gives the connection back. */
void sbio__http_end(http_xfer *x, CURLcode rc, int outcome, sbio_sdk_http_response *resp);
/* Performs the transfer, polling for cancellation and the deadline between
 * waits. Returns its result, or sets *outcome when it was abandoned. */
CURLcode sbio__http_drive(http_xfer *x, const sbio_bk_call *call, int *outcome);
size_t sbio__http_on_body(char *data, size_t size, size_t n, void *user);
/* Milliseconds left before the call's deadline (0 once passed). */
long sbio__http_ms_left(const sbio_bk_call *call);

/* base_url + path. malloc'd; NULL on out-of-memory. */
char *sbio__http_url(const sbio_sdk_http *c, const char *path);
/* The request's own header lines and content type are single lines. */
int sbio__http_request_ok(const sbio_sdk_http_request *req);
/* The SBIO_SDK_HTTP_AT_* step a transfer that ended with rc failed at. */
int sbio__http_failed_at(CURLcode rc, CURL *h);
/* The SBIO_SDK_HTTP_* outcome of a transfer that failed with rc. */
int sbio__http_transport_outcome(CURLcode rc, CURL *h, const sbio_sdk_http *c, long left_ms);

/* One request on one connection, no retries: fills resp (outcome, status,
 * error, body, headers). *sink_used is set once the request cannot be
 * repeated: its sink received data, or its body stream was read and has no
 * rewind. */
void sbio__http_attempt(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                        sbio_sdk_http_response *resp, int *sink_used);

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
