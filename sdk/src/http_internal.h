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

  pthread_mutex_t lock;
  http_slot *idle[HTTP_POOL_SIZE];
  size_t n_idle;
};

/* One request on one connection, no retries: fills resp (outcome, status,
 * error, body, headers). *sink_used is set once the sink received data. */
void sbio__http_attempt(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                        sbio_sdk_http_response *resp, int *sink_used);

http_slot *sbio__http_slot_take(sbio_sdk_http *c);
void sbio__http_slot_give(sbio_sdk_http *c, http_slot *slot);

/* Removes everything that is not a printable line from s, in place. */
void sbio__http_one_line(char *s);

#endif
