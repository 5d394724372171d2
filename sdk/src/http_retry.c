/* SPDX-License-Identifier: MIT */
/* Requests with bounded retries: which failures are worth repeating (the
 * rules in http.h), how long to wait (the provider's Retry-After, or the
 * jittered backoff), and a wait that still honours the deadline and
 * cancellation. */
#include "http_internal.h"

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

static int status_listed(const sbio_sdk_http *c, long status) {
  for (size_t i = 0; i < c->n_retry_statuses; i++)
    if (c->retry_statuses[i] == status) return 1;
  return 0;
}

/* Whether a later identical request may fare better, and may be made: the
 * retry rules of http.h. */
static int worth_repeating(const sbio_sdk_http *c, const sbio_sdk_http_response *resp, int idempotent) {
  switch (resp->outcome) {
  case SBIO_SDK_HTTP_ANSWERED:
    /* Refused before anything was done: harmless to repeat, whatever it asks. */
    if (resp->status == 429) return 1;
    return idempotent && status_listed(c, resp->status);
  case SBIO_SDK_HTTP_UNREACHABLE:
  case SBIO_SDK_HTTP_BROKEN:
  case SBIO_SDK_HTTP_SLOW:
    /* Never sent: nothing can have happened. Otherwise it may have. */
    return resp->not_sent || idempotent;
  default:
    return 0; /* the deadline, a cancellation, a stop, a limit: the same again */
  }
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

/* How long to wait before retry number `retry`, or -1 not to make one. */
static long next_wait(const sbio_sdk_http *c, const sbio_sdk_http_response *resp, const sbio_bk_call *call, int retry) {
  char value[128];
  long ra = resp->outcome == SBIO_SDK_HTTP_ANSWERED && sbio_sdk_http_header(resp, "Retry-After", value, sizeof value)
                ? sbio_sdk_retry_after_ms(value, time(NULL))
                : -1;
  if (ra > c->retry_after_max_ms) return -1; /* the provider asks for longer than we will wait */
  long wait = ra >= 0 ? ra : sbio_sdk_backoff_ms(c->backoff_initial_ms, c->backoff_max_ms, retry);
  /* Waiting only to find the deadline passed helps nobody: answer now. */
  if (sbio__sdk_now_ns(call) + (int64_t)wait * 1000000 >= call->deadline_ns) return -1;
  return wait;
}

/* "was throttled (429)", "answered HTTP 503", ...: for the log line. */
static void why_text(const sbio_sdk_http_response *resp, char *buf, size_t size) {
  if (resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status == 429)
    snprintf(buf, size, "was throttled (429)");
  else if (resp->outcome == SBIO_SDK_HTTP_ANSWERED)
    snprintf(buf, size, "answered HTTP %ld", resp->status);
  else if (resp->outcome == SBIO_SDK_HTTP_SLOW)
    snprintf(buf, size, "got no answer in time");
  else if (resp->not_sent || resp->outcome == SBIO_SDK_HTTP_UNREACHABLE)
    snprintf(buf, size, "could not reach the provider");
  else
    snprintf(buf, size, "lost its connection");
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
  int idempotent =
      req->retry == SBIO_SDK_RETRY_IDEMPOTENT || (req->retry == SBIO_SDK_RETRY_AUTO && method_idempotent(req->method));
  int sink_used = 0;
  for (int attempt = 1;; attempt++) {
    reset(resp);
    resp->attempts = attempt;
    sbio__http_attempt(c, req, call, resp, &sink_used);
    if (req->retry == SBIO_SDK_RETRY_NEVER || sink_used || attempt >= c->max_attempts ||
        !worth_repeating(c, resp, idempotent))
      break;
    long wait = next_wait(c, resp, call, attempt);
    if (wait < 0) break;
    char why[64];
    why_text(resp, why, sizeof why);
    /* The path without its query: query values may be tokens. */
    const char *path = req->path ? req->path : "/";
    sbio_sdk_log(c->host, c->own_secrets, SBIO_BK_LOG_DEBUG, "%s: %s %.*s %s; retrying in %ld ms (attempt %d of %d)",
                 c->backend, method, (int)strcspn(path, "?#"), path, why, wait, attempt + 1, c->max_attempts);
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
