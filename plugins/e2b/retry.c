/* SPDX-License-Identifier: MIT */
#include "retry.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double sbio__e2b_retry_after_s(const char *value, long long now_unix) {
  if (!value || !value[0]) return -1;
  const char *p = value;
  while (isdigit((unsigned char)*p)) p++;
  if (p != value && *p == '\0') {
    double v = strtod(value, NULL);
    return v > 86400 ? 86400 : v;
  }
  time_t when = curl_getdate(value, NULL);
  if (when == (time_t)-1) return -1;
  double d = (double)((long long)when - now_unix);
  return d < 0 ? 0 : d;
}

double sbio__e2b_backoff_s(const e2b_settings *s, int n) {
  double d = s->retry_base_s;
  for (int i = 0; i < n && d < s->retry_max_s; i++) d *= 2;
  if (d > s->retry_max_s) d = s->retry_max_s;
  /* Jitter spreads clients that failed together; rand_r keeps it thread-safe. */
  static _Thread_local unsigned seed;
  if (!seed) seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)&seed;
  double j = 0.8 + 0.4 * ((double)rand_r(&seed) / (double)RAND_MAX);
  return d * j;
}

static int retryable_status(long status, e2b_target target) {
  if (status == 429 || status == 500 || status == 503 || status == 504) return 1;
  return status == 502 && target == E2B_API;
}

/* A failure that left the request unsent: safe to repeat even a create. */
static int never_sent(const e2b_resp *r) {
  return r->curl_code == CURLE_COULDNT_CONNECT || r->curl_code == CURLE_COULDNT_RESOLVE_HOST;
}

/* Sleeps up to `seconds`, in slices, stopping on cancellation. 0 when the
 * full wait fit before the deadline. */
static int wait_for(const sbio_bk_call *call, int64_t deadline_ns, double seconds) {
  int64_t until = sbio_bk_now_ns(call) + (int64_t)(seconds * 1e9);
  if (until >= deadline_ns) return -1;
  while (sbio_bk_now_ns(call) < until) {
    if (call->cancelled && call->cancelled(call)) return -1;
    int64_t left = until - sbio_bk_now_ns(call);
    if (left > 50000000) left = 50000000;
    if (left > 0) {
      struct timespec ts = {0, (long)left};
      nanosleep(&ts, NULL);
    }
  }
  return 0;
}

int sbio__e2b_http_retry(e2b_instance *inst, const sbio_bk_call *call, const e2b_req *req, int idempotent,
                         e2b_target target, e2b_resp *resp, int *attempts) {
  const e2b_settings *s = &inst->settings;
  int rc = -1;
  for (int n = 0;; n++) {
    rc = sbio__e2b_http(inst, call, req, resp);
    if (attempts) *attempts = n + 1;
    if (n >= s->max_retries || resp->cancelled) return rc;
    int again = rc != 0 ? (never_sent(resp) || (idempotent && !resp->timed_out && !resp->sink_stopped && !resp->sunk))
                        : (idempotent && retryable_status(resp->status, target));
    if (!again) return rc;
    double delay = sbio__e2b_retry_after_s(resp->retry_after, (long long)time(NULL));
    if (delay < 0) delay = sbio__e2b_backoff_s(s, n);
    if (wait_for(call, req->deadline_ns, delay) != 0) return rc; /* the answer we have is the answer */
    sbio__e2b_log(inst, SBIO_BK_LOG_DEBUG, "e2b: retrying %s (attempt %d, after HTTP %ld%s%s)", req->method, n + 2,
                  resp->status, resp->error[0] ? ": " : "", resp->error);
    sbio__e2b_resp_free(resp);
  }
}
