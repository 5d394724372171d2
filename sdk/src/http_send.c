/* SPDX-License-Identifier: MIT */
/* One HTTP request on one pooled connection, bounded by the call's
 * deadline and abandoned when the call is cancelled. No retries here. */
#include "http_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct xfer {
  sbio_sdk_http *c;
  const sbio_sdk_http_request *req;
  CURL *easy;
  sbio__sdk_buf body, headers;
  int too_large, stopped, nomem;
  int *sink_used;
} xfer;

static size_t on_body(char *data, size_t size, size_t n, void *user) {
  xfer *x = user;
  size_t len = size * n;
  long status = 0;
  curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
  if (x->req->sink && status >= 200 && status < 300) {
    *x->sink_used = 1;
    if (x->req->sink(x->req->sink_user, data, len) != 0) {
      x->stopped = 1;
      return len ? 0 : 1; /* any count other than len stops the transfer */
    }
    return len;
  }
  if (x->body.len + len > x->c->body_limit) {
    x->too_large = 1;
    return len ? 0 : 1;
  }
  sbio__sdk_buf_add(&x->body, data, len);
  if (x->body.ok < 0) {
    x->nomem = 1;
    return len ? 0 : 1;
  }
  return len;
}

static size_t on_header(char *line, size_t size, size_t n, void *user) {
  xfer *x = user;
  size_t len = size * n;
  /* A status line starts a new answer (after a 100 Continue, say): only
   * the last answer's headers count. */
  if (len >= 5 && !memcmp(line, "HTTP/", 5)) {
    free(x->headers.data);
    memset(&x->headers, 0, sizeof x->headers);
  }
  if (x->headers.len + len <= HTTP_HEADERS_LIMIT) sbio__sdk_buf_add(&x->headers, line, len);
  return len;
}

static int add_header(struct curl_slist **list, const char *line) {
  struct curl_slist *grown = curl_slist_append(*list, line);
  if (!grown) return -1;
  *list = grown;
  return 0;
}

static int build_headers(const sbio_sdk_http *c, const sbio_sdk_http_request *req, struct curl_slist **list) {
  for (size_t i = 0; i < c->n_headers; i++)
    if (add_header(list, c->headers[i])) return -1;
  for (size_t i = 0; i < req->n_headers; i++)
    if (add_header(list, req->headers[i])) return -1;
  if (req->body) {
    char type[256];
    snprintf(type, sizeof type, "Content-Type: %s", req->content_type ? req->content_type : "application/json");
    if (add_header(list, type)) return -1;
  }
  /* No "Expect: 100-continue" round trip before a body. */
  return add_header(list, "Expect:");
}

static int request_headers_ok(const sbio_sdk_http_request *req) {
  for (size_t i = 0; i < req->n_headers; i++) {
    const char *h = req->headers[i];
    if (!h || !strchr(h, ':') || strpbrk(h, "\r\n")) return 0;
  }
  return !req->content_type || !strpbrk(req->content_type, "\r\n");
}

static char *full_url(const sbio_sdk_http *c, const char *path) {
  if (!path) path = "";
  const char *sep = path[0] == '/' || path[0] == '?' || !path[0] ? "" : "/";
  size_t n = strlen(c->base_url) + strlen(sep) + strlen(path) + 1;
  char *url = malloc(n);
  if (url) snprintf(url, n, "%s%s%s", c->base_url, sep, path);
  return url;
}

static void set_method(CURL *h, const sbio_sdk_http_request *req) {
  const char *m = req->method ? req->method : "GET";
  if (!strcmp(m, "GET") && !req->body) {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    return;
  }
  if (!strcmp(m, "HEAD")) {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    return;
  }
  if (strcmp(m, "POST") != 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
  if (req->body || !strcmp(m, "POST")) {
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(req->body ? req->body_len : 0));
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->body ? (const char *)req->body : "");
  }
}

static long ms_left(const sbio_bk_call *call) {
  int64_t left = call->deadline_ns - sbio__sdk_now_ns(call);
  if (left <= 0) return 0;
  return left / 1000000 > 0x7fffffffL ? 0x7fffffffL : (long)(left / 1000000);
}

static void setup(sbio_sdk_http *c, CURL *h, const char *url, struct curl_slist *headers, xfer *x, char *errbuf,
                  long left_ms) {
  curl_easy_setopt(h, CURLOPT_URL, url);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  if (c->unix_socket) curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, c->unix_socket);
  if (c->ca_file) curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
  curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, left_ms > 0 ? left_ms : 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->connect_timeout_ms < left_ms ? c->connect_timeout_ms : left_ms);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  set_method(h, x->req);
}

/* Drives the transfer, polling for cancellation and the deadline between
 * waits. Returns the transfer's result, or sets *outcome when it was
 * abandoned. */
static CURLcode drive(http_slot *slot, const sbio_bk_call *call, int *outcome) {
  int running = 1;
  while (running) {
    if (curl_multi_perform(slot->multi, &running) != CURLM_OK) return CURLE_FAILED_INIT;
    if (!running) break;
    if (call->cancelled && call->cancelled(call)) {
      *outcome = SBIO_SDK_HTTP_CANCELLED;
      return CURLE_ABORTED_BY_CALLBACK;
    }
    if (ms_left(call) == 0) {
      *outcome = SBIO_SDK_HTTP_TIMEOUT;
      return CURLE_OPERATION_TIMEDOUT;
    }
    curl_multi_poll(slot->multi, NULL, 0, SBIO_SDK_HTTP_POLL_MS, NULL);
  }
  CURLcode result = CURLE_FAILED_INIT;
  int left = 0;
  for (CURLMsg *msg; (msg = curl_multi_info_read(slot->multi, &left));)
    if (msg->msg == CURLMSG_DONE) result = msg->data.result;
  return result;
}

static int transport_outcome(CURLcode rc, CURL *h, const sbio_sdk_http *c, long left_ms) {
  switch (rc) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY:
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CACERT_BADFILE:
    return SBIO_SDK_HTTP_UNREACHABLE;
  case CURLE_OUT_OF_MEMORY:
    return SBIO_SDK_HTTP_NOMEM;
  case CURLE_OPERATION_TIMEDOUT: {
    /* The connect timeout, shorter than the deadline, ran out first: the
     * provider cannot be reached, the caller's time is not up. */
    curl_off_t connected = 0;
    curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connected);
    return connected == 0 && c->connect_timeout_ms < left_ms ? SBIO_SDK_HTTP_UNREACHABLE : SBIO_SDK_HTTP_TIMEOUT;
  }
  default:
    return SBIO_SDK_HTTP_BROKEN;
  }
}

/* The step a transfer that ended with `rc` failed at. For a timeout (and
 * a failure libcurl does not attribute) the step is read from the
 * transfer's timings: what had not completed yet is where it stopped. */
static int failed_at(CURLcode rc, CURL *h) {
  long proxy_answer = 0;
  curl_easy_getinfo(h, CURLINFO_HTTP_CONNECTCODE, &proxy_answer);
  switch (rc) {
  case CURLE_COULDNT_RESOLVE_HOST:
    return SBIO_SDK_HTTP_AT_DNS;
  case CURLE_COULDNT_RESOLVE_PROXY:
#if LIBCURL_VERSION_NUM >= 0x074900
  case CURLE_PROXY:
#endif
    return SBIO_SDK_HTTP_AT_PROXY;
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_ISSUER_ERROR:
  case CURLE_SSL_CRL_BADFILE:
  case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
  case CURLE_SSL_INVALIDCERTSTATUS:
  case CURLE_USE_SSL_FAILED:
    return SBIO_SDK_HTTP_AT_TLS;
  default:
    break;
  }
  /* A proxy that answered the tunnel request with anything but 2xx. */
  if (proxy_answer != 0 && (proxy_answer < 200 || proxy_answer >= 300)) return SBIO_SDK_HTTP_AT_PROXY;
  curl_off_t resolved = 0, connected = 0, handshaken = 0, started = 0;
  curl_easy_getinfo(h, CURLINFO_NAMELOOKUP_TIME_T, &resolved);
  curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connected);
  curl_easy_getinfo(h, CURLINFO_APPCONNECT_TIME_T, &handshaken);
  curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &started);
  char *url = NULL;
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &url);
  int tls = url && !strncmp(url, "https:", 6);
  if (rc == CURLE_COULDNT_CONNECT) return SBIO_SDK_HTTP_AT_CONNECT;
  if (connected == 0) return resolved == 0 ? SBIO_SDK_HTTP_AT_DNS : SBIO_SDK_HTTP_AT_CONNECT;
  if (tls && handshaken == 0 && started == 0) return SBIO_SDK_HTTP_AT_TLS;
  return SBIO_SDK_HTTP_AT_TRANSFER;
}

static void finish(xfer *x, CURL *h, CURLcode rc, int outcome, const char *errbuf, long left_ms,
                   sbio_sdk_http_response *resp) {
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
  if (outcome != SBIO_SDK_HTTP_ANSWERED)
    resp->outcome = outcome;
  else if (x->nomem)
    resp->outcome = SBIO_SDK_HTTP_NOMEM;
  else if (x->too_large)
    resp->outcome = SBIO_SDK_HTTP_TOO_LARGE;
  else if (x->stopped)
    resp->outcome = SBIO_SDK_HTTP_STOPPED;
  else if (rc != CURLE_OK)
    resp->outcome = transport_outcome(rc, h, x->c, left_ms);
  if (resp->outcome == SBIO_SDK_HTTP_UNREACHABLE || resp->outcome == SBIO_SDK_HTTP_BROKEN ||
      resp->outcome == SBIO_SDK_HTTP_TIMEOUT)
    resp->failed_at = failed_at(rc, h);
  if (resp->outcome == SBIO_SDK_HTTP_UNREACHABLE || resp->outcome == SBIO_SDK_HTTP_BROKEN ||
      resp->outcome == SBIO_SDK_HTTP_TIMEOUT)
    snprintf(resp->error, sizeof resp->error, "%s%s%s", curl_easy_strerror(rc), errbuf[0] ? ": " : "", errbuf);
  sbio__http_one_line(resp->error);
  size_t body_len = x->body.len, headers_len = x->headers.len; /* bodies may hold NUL bytes */
  resp->body = sbio__sdk_buf_take(&x->body);
  resp->len = resp->body ? body_len : 0;
  resp->headers = sbio__sdk_buf_take(&x->headers);
  resp->headers_len = resp->headers ? headers_len : 0;
  if (!resp->body || !resp->headers) resp->outcome = SBIO_SDK_HTTP_NOMEM;
}

static void fail_early(sbio_sdk_http_response *resp, int outcome, const char *why) {
  resp->outcome = outcome;
  snprintf(resp->error, sizeof resp->error, "%s", why);
  if (!resp->body) resp->body = calloc(1, 1);
}

void sbio__http_attempt(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                        sbio_sdk_http_response *resp, int *sink_used) {
  resp->outcome = SBIO_SDK_HTTP_ANSWERED;
  resp->status = 0;
  resp->failed_at = SBIO_SDK_HTTP_AT_NONE;
  resp->error[0] = '\0';
  if (call->cancelled && call->cancelled(call)) {
    fail_early(resp, SBIO_SDK_HTTP_CANCELLED, "cancelled");
    return;
  }
  long left_ms = ms_left(call);
  if (left_ms == 0) {
    fail_early(resp, SBIO_SDK_HTTP_TIMEOUT, "the deadline passed before the request was sent");
    return;
  }
  if (!request_headers_ok(req)) {
    fail_early(resp, SBIO_SDK_HTTP_BROKEN, "a request header is not one line of the form 'Name: value'");
    return;
  }
  xfer x = {.c = c, .req = req, .sink_used = sink_used};
  struct curl_slist *headers = NULL;
  char *url = full_url(c, req->path);
  http_slot *slot = url && build_headers(c, req, &headers) == 0 ? sbio__http_slot_take(c) : NULL;
  if (!slot) {
    free(url);
    curl_slist_free_all(headers);
    fail_early(resp, SBIO_SDK_HTTP_NOMEM, "out of memory");
    return;
  }
  x.easy = slot->easy;
  curl_easy_reset(slot->easy); /* keeps the connections, forgets the last request's options */
  char errbuf[CURL_ERROR_SIZE] = "";
  setup(c, slot->easy, url, headers, &x, errbuf, left_ms);
  int outcome = SBIO_SDK_HTTP_ANSWERED;
  CURLcode rc = CURLE_FAILED_INIT;
  if (curl_multi_add_handle(slot->multi, slot->easy) == CURLM_OK) {
    rc = drive(slot, call, &outcome);
    curl_multi_remove_handle(slot->multi, slot->easy);
  }
  finish(&x, slot->easy, rc, outcome, errbuf, left_ms, resp);
  sbio__http_slot_give(c, slot);
  curl_slist_free_all(headers);
  free(url);
}
