/* SPDX-License-Identifier: MIT */
/* libcurl transport to the engine. Every request carries a connect and a
 * total timeout taken from its deadline, so no read is ever unbounded; a
 * request tied to a call also stops when that call is cancelled.
 *
 * Idle easy handles are pooled per instance so their keep-alive connections
 * are reused across requests and threads (a handle is used by one thread at
 * a time). */
#ifndef SBIO_DOCKER_HTTP_H
#define SBIO_DOCKER_HTTP_H

#include "dk.h"

#include <curl/curl.h>

#define DK_BODY_LIMIT ((size_t)1 << 20) /* buffered response bodies (JSON answers) */

typedef struct dk_http_req {
  const char *method; /* GET POST PUT DELETE HEAD */
  const char *path;   /* "/containers/json?all=1": query already escaped */
  int versioned;      /* prefix the negotiated /vX.Y */
  const char *json;   /* request body, sent as application/json; NULL: none */
  /* Streaming request body (PUT): `read_fn` as CURLOPT_READFUNCTION. */
  size_t (*read_fn)(char *buf, size_t size, size_t n, void *user);
  void *read_user;
  int64_t upload_len;
  const char *content_type;
  /* Streaming response body: each chunk of a 2xx answer goes here instead
   * of the buffer; return non-zero to stop the transfer. */
  int (*sink)(void *user, const char *data, size_t len);
  void *sink_user;
  int64_t deadline;           /* host clock, absolute */
  const sbio_bk_call *cancel; /* stop when cancel->cancelled() turns true; NULL: never */
} dk_http_req;

typedef struct dk_http_resp {
  long status; /* HTTP status, 0 when none arrived */
  int curl;    /* CURLcode of the transfer */
  char error[256];
  int timed_out, cancelled, sink_stopped;
  char *body; /* NUL-terminated, at most DK_BODY_LIMIT bytes */
  size_t len;
  char api_version[16]; /* Api-Version header */
  char path_stat[1024]; /* X-Docker-Container-Path-Stat header (base64 JSON) */
} dk_http_resp;

/* 0 when an HTTP answer arrived (any status); -1 on a transport failure, a
 * timeout or a cancellation (see resp). resp is always initialised. */
int sbio__dk_http(dk_instance *inst, const dk_http_req *req, dk_http_resp *resp);
void sbio__dk_http_resp_free(dk_http_resp *resp);

/* Handle pool. take() never returns a handle in use elsewhere; give() puts
 * it back (or frees it when the pool is full). */
int sbio__dk_pool_new(dk_pool **out);
void sbio__dk_pool_free(dk_pool *pool);
CURL *sbio__dk_pool_take(dk_instance *inst);
void sbio__dk_pool_give(dk_instance *inst, CURL *h);

/* Transport options shared with the exec hijack: socket or TLS settings. */
void sbio__dk_http_apply_endpoint(CURL *h, const dk_endpoint *ep);
/* Full URL of a path, versioned or not, into buf; -1 when it does not fit. */
int sbio__dk_http_url(const dk_instance *inst, const char *path, int versioned, char *buf, size_t size);
/* Milliseconds left before `deadline` (>= 0). */
long sbio__dk_ms_left(const dk_instance *inst, int64_t deadline);

/* Internals shared by http.c and http_stream.c. */
typedef struct dk_xfer {
  dk_instance *inst;
  const dk_http_req *req;
  dk_http_resp *resp;
  size_t cap;
} dk_xfer;
int sbio__dk_http_setup(dk_instance *inst, CURL *h, const dk_http_req *req, void *xfer, struct curl_slist **headers,
                        dk_http_resp *resp);
void sbio__dk_http_finish(dk_instance *inst, CURL *h, const dk_http_req *req, CURLcode rc, const char *errbuf,
                          dk_http_resp *resp);
size_t sbio__dk_on_header(char *line, size_t size, size_t n, void *user);
/* Appends to resp->body up to DK_BODY_LIMIT (silently cut beyond); -1 on OOM. */
int sbio__dk_body_append(dk_http_resp *resp, size_t *cap, const char *data, size_t len);

/* Pull-style reading of a response body (for libarchive): http_stream.c. */
typedef struct dk_stream dk_stream;
/* Starts the request and waits for the status. On a non-2xx status the
 * error body is collected into resp and *out is NULL. */
int sbio__dk_stream_open(dk_instance *inst, const dk_http_req *req, dk_stream **out, dk_http_resp *resp);
/* Next chunk: >0 bytes at *data (valid until the next call), 0 at the end,
 * -1 on failure (details in the resp given to open). */
long sbio__dk_stream_read(dk_stream *s, const void **data);
void sbio__dk_stream_close(dk_stream *s);

#endif
