/* SPDX-License-Identifier: MIT */
/* Retries with backoff. A 429 is retried for any method: Daytona's
 * throttler refuses the request before any handler runs, so nothing
 * happened. A 5xx or a broken connection is retried only for idempotent
 * calls: a create or an exec might have happened anyway. Waits are never
 * longer than the call's deadline allows. */
#include "http.h"
#include "http_once.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLICE_S 0.02

int sbio__dt_cancelled(const dt_ctx *ctx) {
  if (ctx->killed && atomic_load(ctx->killed)) return 1;
  return ctx->call && ctx->call->cancelled && ctx->call->cancelled(ctx->call);
}

double sbio__dt_remaining_s(const dt_ctx *ctx) {
  return (double)sbio_bk_remaining_ns(ctx->call) / 1e9;
}

int sbio__dt_sleep(dt_ctx *ctx, double seconds) {
  while (seconds > 0) {
    if (sbio__dt_cancelled(ctx)) return 1;
    double step = seconds < SLICE_S ? seconds : SLICE_S;
    struct timespec ts = {(time_t)step, (long)((step - (double)(time_t)step) * 1e9)};
    nanosleep(&ts, NULL);
    seconds -= step;
  }
  return sbio__dt_cancelled(ctx);
}

void sbio__dt_http_resp_free(dt_http_resp *resp) {
  free(resp->body);
  memset(resp, 0, sizeof *resp);
}

static int retryable_status(long status) {
  return status == 500 || status == 502 || status == 503 || status == 504;
}

/* The request's method and path, for log lines (never the query). */
static void describe(const dt_http_req *req, char *buf, size_t size) {
  const char *path = strstr(req->url, "://");
  path = path ? strchr(path + 3, '/') : NULL;
  size_t n = path ? strcspn(path, "?") : 0;
  snprintf(buf, size, "%s %.*s", req->method, (int)(n > 160 ? 160 : n), path ? path : "/");
}

dt_http_outcome sbio__dt_http(dt_ctx *ctx, const dt_http_req *req, dt_http_resp *resp) {
  const dt_settings *s = &ctx->inst->settings;
  double backoff = s->retry_base_ms / 1000.0;
  memset(resp, 0, sizeof *resp);
  for (int attempt = 1;; attempt++) {
    sbio__dt_http_resp_free(resp);
    int cap_timeout = 0;
    dt_http_outcome out = sbio__dt_http_once(ctx, req, resp, &cap_timeout);
    resp->attempts = attempt;
    int more = attempt <= s->max_retries;
    double delay = backoff;
    const char *why = NULL;
    if (out == DT_HTTP_OK && resp->status == 429) {
      if (resp->has_retry_after) delay = resp->retry_after_s;
      why = "was throttled (429)";
      if (!more || delay > sbio__dt_remaining_s(ctx)) return DT_HTTP_RATE_LIMITED;
    } else if (out == DT_HTTP_OK && retryable_status(resp->status) && req->idempotent) {
      why = "failed on the server";
    } else if (out == DT_HTTP_TRANSPORT && req->idempotent) {
      why = cap_timeout ? "got no answer in time" : "could not reach Daytona";
    } else {
      return out;
    }
    if (!more || delay >= sbio__dt_remaining_s(ctx)) return out;
    char what[200];
    describe(req, what, sizeof what);
    sbio__dt_log(ctx->inst, SBIO_BK_LOG_INFO, "daytona: %s %s (status %ld); retrying in %.2f s (attempt %d of %d)",
                 what, why, resp->status, delay, attempt + 1, s->max_retries + 1);
    if (sbio__dt_sleep(ctx, delay)) return DT_HTTP_CANCELLED;
    backoff *= 2;
    if (backoff > s->retry_max_ms / 1000.0) backoff = s->retry_max_ms / 1000.0;
  }
}

int sbio__dt_parse_retry_after(const char *value, long long now, double *seconds) {
  if (!value || !*value) return -1;
  if (value[0] >= '0' && value[0] <= '9') {
    char *end = NULL;
    double v = strtod(value, &end);
    while (end && (*end == ' ' || *end == '\t')) end++;
    if (!end || *end || v < 0 || v > 86400.0 * 365) return -1;
    *seconds = v;
    return 0;
  }
  /* An HTTP date, IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT". */
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *end = strptime(value, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end || *end) return -1;
  long long at = (long long)timegm(&tm);
  *seconds = at > now ? (double)(at - now) : 0.0;
  return 0;
}
