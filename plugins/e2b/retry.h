/* SPDX-License-Identifier: MIT */
/* Retries with backoff. Only idempotent requests are retried on an answer
 * (429, 5xx); a request that may have changed something (a create, a
 * process start) is retried only when it provably never reached the server
 * (the connection could not be made). 429 waits what Retry-After says;
 * every wait stays within the request's deadline. */
#ifndef SBIO_E2B_RETRY_H
#define SBIO_E2B_RETRY_H

#include "http.h"

typedef enum e2b_target {
  E2B_API,  /* the control plane: 502/503/504 are transient */
  E2B_ENVD, /* through E2B's proxy: 502 means the sandbox is gone */
} e2b_target;

/* Like sbio__e2b_http, with up to settings.max_retries more attempts.
 * *attempts (may be NULL) receives how many were made. */
int sbio__e2b_http_retry(e2b_instance *inst, const sbio_bk_call *call, const e2b_req *req, int idempotent,
                         e2b_target target, e2b_resp *resp, int *attempts);

/* Seconds a Retry-After value asks for (delta-seconds or an HTTP date);
 * -1 when absent or unreadable. */
double sbio__e2b_retry_after_s(const char *value, long long now_unix);
/* The n-th backoff (n from 0): base * 2^n, capped, with +-20% jitter. */
double sbio__e2b_backoff_s(const e2b_settings *s, int n);

#endif
