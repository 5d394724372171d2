/* SPDX-License-Identifier: MIT */
/* One HTTP request with libcurl, and the retry loop around it. Every request
 * is bounded by the call's deadline and the per-request cap, and stops when
 * the call is cancelled or the sandbox killed. */
#ifndef SBIO_DAYTONA_HTTP_H
#define SBIO_DAYTONA_HTTP_H

#include "dt.h"

#include <stddef.h>

/* Streams a successful response body; non-zero stops the transfer. */
typedef int (*dt_sink_fn)(void *user, const void *data, size_t len);

typedef struct dt_http_req {
  const char *method; /* GET, POST, DELETE */
  const char *url;
  const char *json; /* a JSON body, or NULL */
  /* Or a multipart/form-data body with one file part: */
  const char *part_name; /* NULL: no multipart */
  const void *part_data;
  size_t part_len;
  dt_sink_fn sink; /* 2xx body goes here instead of the buffer */
  void *sink_user;
  size_t max_body; /* buffered body cap (0: 16 MiB) */
  int idempotent;  /* 5xx and transport failures may be retried */
  double extra_s;  /* allowed past the call deadline (exec's own timeout) */
} dt_http_req;

typedef struct dt_http_resp {
  long status; /* 0 when no response arrived */
  char *body;  /* NUL-terminated; NULL when none or sunk */
  size_t len;
  char content_type[96];
  int has_retry_after;
  double retry_after_s;
  int attempts;
} dt_http_resp;

/* Why a request produced no usable response. */
typedef enum {
  DT_HTTP_OK = 0,       /* a response (any status) is in resp */
  DT_HTTP_TRANSPORT,    /* connection failed or broke; detail in `detail` */
  DT_HTTP_DEADLINE,     /* the call's deadline (or the request cap) passed */
  DT_HTTP_CANCELLED,    /* the call was cancelled or the sandbox killed */
  DT_HTTP_SINK_STOPPED, /* the sink asked to stop */
  DT_HTTP_TOO_BIG,      /* the buffered body passed max_body */
  DT_HTTP_RATE_LIMITED, /* 429 after every retry; resp holds the last one */
  DT_HTTP_NOMEM
} dt_http_outcome;

#define DT_KEY_MAX 1024

typedef struct dt_ctx {
  dt_instance *inst;
  const sbio_bk_call *call;
  atomic_int *killed;       /* NULL outside a sandbox (and for kill itself) */
  char api_key[DT_KEY_MAX]; /* the Bearer key; never logged, wiped after */
  char detail[256];         /* transport error text */
} dt_ctx;

/* Prepares a context for one operation and reads the API key from the
 * variable settings.api_key_env names. A missing or unusable key is
 * SBIO_E_AUTH naming the variable (never showing the value). */
int sbio__dt_ctx_init(dt_ctx *ctx, dt_instance *inst, const sbio_bk_call *call, atomic_int *killed, sbio_bk_error *err);
/* Wipes the key from the context. */
void sbio__dt_ctx_done(dt_ctx *ctx);

/* Performs `req`, retrying as the settings allow: 429 always (the server
 * refused it before doing anything), honouring Retry-After; 500/502/503/504
 * and transport failures only when idempotent. */
dt_http_outcome sbio__dt_http(dt_ctx *ctx, const dt_http_req *req, dt_http_resp *resp);
void sbio__dt_http_resp_free(dt_http_resp *resp);

/* Sleeps up to `seconds` in short slices, stopping early on cancellation;
 * returns non-zero when cancelled. */
int sbio__dt_sleep(dt_ctx *ctx, double seconds);
/* Non-zero once the call is cancelled or the sandbox killed. */
int sbio__dt_cancelled(const dt_ctx *ctx);
/* Seconds left before the call's deadline (0 when past it). */
double sbio__dt_remaining_s(const dt_ctx *ctx);

/* Parses a Retry-After value: delta-seconds or an HTTP date. Returns 0 and
 * the delay in seconds (never negative), or -1. `now` is unix seconds. */
int sbio__dt_parse_retry_after(const char *value, long long now, double *seconds);

#endif
