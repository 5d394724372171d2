/* SPDX-License-Identifier: MIT */
/* Requests with bounded retries: which failures are worth repeating, how
 * long to wait (exponential backoff, or the provider's Retry-After), and a
 * wait that still honours the deadline and cancellation. */
#include "http_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int method_idempotent(const char *m) {
  static const char *const safe[] = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS", NULL};
  if (!m) return 1;
  for (size_t i = 0; safe[i]; i++)
    if (!strcmp(m, safe[i])) return 1;
  return 0;
}

/* Failures that a later identical request may not meet. */
static int retryable(const sbio_sdk_http_response *resp) {
  if (resp->outcome == SBIO_SDK_HTTP_UNREACHABLE || resp->outcome == SBIO_SDK_HTTP_BROKEN) return 1;
  if (resp->outcome != SBIO_SDK_HTTP_ANSWERED) return 0;
  switch (resp->status) {
  case 408:
  case 429:
  case 500:
  case 502:
  case 503:
  case 504:
    return 1;
  default:
    return 0;
  }
}

/* Milliseconds the answer's Retry-After asks for (delay-seconds or an
 * HTTP-date), or -1 when it has none that parses. */
static long retry_after_ms(const sbio_sdk_http_response *resp) {
  char value[128];
  if (!sbio_sdk_http_header(resp, "Retry-After", value, sizeof value) || !value[0]) return -1;
  if (value[0] >= '0' && value[0] <= '9') {
    char *end;
    errno = 0;
    unsigned long s = strtoul(value, &end, 10);
    if (*end || errno) return -1;
    return s > 86400 ? 86400L * 1000 : (long)s * 1000;
  }
  time_t when = curl_getdate(value, NULL);
  if (when == (time_t)-1) return -1;
  time_t now = time(NULL);
  if (when <= now) return 0;
  return when - now > 86400 ? 86400L * 1000 : (long)(when - now) * 1000;
}

static long backoff_ms(const sbio_sdk_http *c, int attempt) {
  long wait = c->backoff_initial_ms;
  for (int i = 1; i < attempt && wait < c->backoff_max_ms; i++) wait *= 2;
  return wait < c->backoff_max_ms ? wait : c->backoff_max_ms;
}

/* Sleeps `ms` in slices, returning early (-1) when the call is cancelled. */
static int wait_ms(const sbio_bk_call *call, long ms) {
  int64_t until = sbio__sdk_now_ns(call) + (int64_t)ms * 1000000;
  for (;;) {
    if (call->cancelled && call->cancelled(call)) return -1;
    int64_t left = until - sbio__sdk_now_ns(call);
    if (left <= 0) return 0;
    int64_t slice = left < (int64_t)SBIO_SDK_HTTP_POLL_MS * 1000000 ? left : (int64_t)SBIO_SDK_HTTP_POLL_MS * 1000000;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)slice};
    nanosleep(&ts, NULL);
  }
}

static void reset(sbio_sdk_http_response *resp) {
  free(resp->body);
  free(resp->headers);
  resp->body = NULL;
  resp->headers = NULL;
  resp->len = resp->headers_len = 0;
}

/* How long to wait before the next attempt, or -1 not to make one. */
static long next_wait(const sbio_sdk_http *c, const sbio_sdk_http_response *resp, const sbio_bk_call *call,
                      int attempt) {
  long ra = resp->outcome == SBIO_SDK_HTTP_ANSWERED ? retry_after_ms(resp) : -1;
  if (ra > c->retry_after_max_ms) return -1; /* the provider asks for longer than we will wait */
  long wait = ra >= 0 ? ra : backoff_ms(c, attempt);
  /* Waiting only to find the deadline passed helps nobody. */
  if (sbio__sdk_now_ns(call) + (int64_t)wait * 1000000 >= call->deadline_ns) return -1;
  return wait;
}

int sbio_sdk_http_send(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                       sbio_sdk_http_response *resp) {
  memset(resp, 0, sizeof *resp);
  if (!c || !req || !call) {
    resp->outcome = SBIO_SDK_HTTP_BROKEN;
    snprintf(resp->error, sizeof resp->error, "no %s given", !c ? "client" : !req ? "request" : "call (deadline)");
    resp->body = calloc(1, 1);
    return -1;
  }
  const char *method = req->method ? req->method : "GET";
  int may_retry =
      req->retry == SBIO_SDK_RETRY_IDEMPOTENT || (req->retry == SBIO_SDK_RETRY_AUTO && method_idempotent(req->method));
  int sink_used = 0;
  for (int attempt = 1;; attempt++) {
    reset(resp);
    resp->attempts = attempt;
    sbio__http_attempt(c, req, call, resp, &sink_used);
    if (!may_retry || sink_used || attempt >= c->max_attempts || !retryable(resp)) break;
    long wait = next_wait(c, resp, call, attempt);
    if (wait < 0) break;
    char why[64];
    if (resp->outcome == SBIO_SDK_HTTP_ANSWERED)
      snprintf(why, sizeof why, "HTTP %ld", resp->status);
    else
      snprintf(why, sizeof why, "%s", resp->outcome == SBIO_SDK_HTTP_UNREACHABLE ? "unreachable" : "connection failed");
    sbio_sdk_log(c->host, c->own_secrets, SBIO_BK_LOG_DEBUG, "%s: %s %s: %s; retrying in %ld ms (attempt %d of %d)",
                 c->backend, method, req->path ? req->path : "/", why, wait, attempt + 1, c->max_attempts);
    if (wait_ms(call, wait) != 0) {
      reset(resp);
      resp->outcome = SBIO_SDK_HTTP_CANCELLED;
      resp->status = 0;
      snprintf(resp->error, sizeof resp->error, "cancelled while waiting to retry");
      resp->body = calloc(1, 1);
      break;
    }
  }
  return resp->outcome == SBIO_SDK_HTTP_ANSWERED ? 0 : -1;
}

void sbio_sdk_http_response_free(sbio_sdk_http_response *resp) {
  if (!resp) return;
  reset(resp);
}

const char *sbio_sdk_http_header(const sbio_sdk_http_response *resp, const char *name, char *buf, size_t size) {
  if (!resp || !resp->headers || !name || !size) return NULL;
  size_t nlen = strlen(name);
  const char *found = NULL;
  size_t found_len = 0;
  for (const char *line = resp->headers; *line;) {
    size_t len = strcspn(line, "\r\n");
    if (len > nlen && line[nlen] == ':' && !strncasecmp(line, name, nlen)) {
      found = line + nlen + 1;
      found_len = len - nlen - 1;
    }
    line += len;
    line += strspn(line, "\r\n");
  }
  if (!found) return NULL;
  while (found_len && (*found == ' ' || *found == '\t')) {
    found++;
    found_len--;
  }
  while (found_len && (found[found_len - 1] == ' ' || found[found_len - 1] == '\t')) found_len--;
  snprintf(buf, size, "%.*s", (int)(found_len < size ? found_len : size - 1), found);
  return buf;
}
