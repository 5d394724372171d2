/* SPDX-License-Identifier: MIT */
/* One HTTP transfer set up on an easy handle and, once it ended, turned
 * into a response: callbacks, headers, method and body, the attempt's time
 * limit, what a transport failure means. No retries and no driving here:
 * a group (http_group.c) or a stream (http_stream.c) drives transfers,
 * http_retry.c repeats them. */
#include "http_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sbio__http_on_body(char *data, size_t size, size_t n, void *user) {
  http_xfer *x = user;
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
  http_xfer *x = user;
  size_t len = size * n;
  /* A status line starts a new answer (after a 100 Continue, say): only
   * the last answer's headers count. */
  if (len >= 5 && !memcmp(line, "HTTP/", 5)) {
    free(x->headers.data);
    memset(&x->headers, 0, sizeof x->headers);
    x->head_done = 0;
  }
  if (x->headers.len + len <= HTTP_HEADERS_LIMIT) sbio__sdk_buf_add(&x->headers, line, len);
  /* The blank line ends a head; a stream opened "at head" may return then,
   * but only for a 2xx answer (an error's body is read whole). */
  if ((len == 2 && line[0] == '\r') || (len == 1 && line[0] == '\n')) {
    long status = 0;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    x->head_done = status >= 200 && status < 300;
  }
  return len;
}

static int add_header(struct curl_slist **list, const char *line) {
  struct curl_slist *grown = curl_slist_append(*list, line);
  if (!grown) return -1;
  *list = grown;
  return 0;
}

/* The lines may hold credentials: wiped before libcurl frees them. */
static void headers_free(struct curl_slist *list) {
  for (struct curl_slist *l = list; l; l = l->next)
    if (l->data) sbio__sdk_wipe(l->data, strlen(l->data));
  curl_slist_free_all(list);
}

static int build_headers(const sbio_sdk_http *c, const sbio_sdk_http_request *req, struct curl_slist **list) {
  for (size_t i = 0; i < c->n_headers; i++)
    if (add_header(list, c->headers[i])) return -1;
  for (size_t i = 0; i < req->n_headers; i++)
    if (add_header(list, req->headers[i])) return -1;
  if ((req->body || req->read) && !req->n_parts) { /* a multipart body has libcurl's type and boundary */
    char type[256];
    snprintf(type, sizeof type, "Content-Type: %s", req->content_type ? req->content_type : "application/json");
    if (add_header(list, type)) return -1;
  }
  /* No "Expect: 100-continue" round trip before a body. */
  return add_header(list, "Expect:");
}

int sbio__http_request_ok(const sbio_sdk_http_request *req) {
  for (size_t i = 0; i < req->n_headers; i++) {
    const char *h = req->headers[i];
    if (!h || !strchr(h, ':') || strpbrk(h, "\r\n")) return 0;
  }
  return !req->content_type || !strpbrk(req->content_type, "\r\n");
}

char *sbio__http_url(const sbio_sdk_http *c, const char *path) {
  if (!path) path = "";
  const char *sep = path[0] == '/' || path[0] == '?' || !path[0] ? "" : "/";
  size_t n = strlen(c->base_url) + strlen(sep) + strlen(path) + 1;
  char *url = malloc(n);
  if (url) snprintf(url, n, "%s%s%s", c->base_url, sep, path);
  return url;
}

/* The streaming body: the caller's read(), as libcurl wants it. */
static size_t on_read(char *buf, size_t size, size_t n, void *user) {
  http_xfer *x = user;
  if (!x->req->rewind) *x->sink_used = 1; /* what was read cannot be read again */
  long got = x->req->read(x->req->read_user, buf, size * n);
  if (got < 0 || (size_t)got > size * n) {
    x->stopped = 1;
    return CURL_READFUNC_ABORT;
  }
  return (size_t)got;
}

/* libcurl rewinds an upload itself on some resends (a connection that
 * turned out dead); only back to the start is possible. */
static int on_seek(void *user, curl_off_t offset, int origin) {
  http_xfer *x = user;
  if (offset != 0 || origin != SEEK_SET || !x->req->rewind) return CURL_SEEKFUNC_CANTSEEK;
  return x->req->rewind(x->req->read_user) == 0 ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL;
}

static void set_upload(CURL *h, const char *m, http_xfer *x) {
  curl_easy_setopt(h, CURLOPT_UPLOAD, 1L); /* PUT unless told otherwise; chunked when the length is unknown */
  curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
  curl_easy_setopt(h, CURLOPT_READDATA, x);
  curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
  curl_easy_setopt(h, CURLOPT_SEEKDATA, x);
  if (x->req->read_len >= 0) curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->req->read_len);
  if (strcmp(m, "PUT") != 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
}

static void set_method(CURL *h, const sbio_sdk_http_request *req, http_xfer *x) {
  const char *m = req->method ? req->method : req->n_parts ? "POST" : "GET";
  if (x->mime) {
    curl_easy_setopt(h, CURLOPT_MIMEPOST, sbio__http_mime_handle(x->mime));
    if (strcmp(m, "POST") != 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m);
    return;
  }
  if (req->read) {
    set_upload(h, m, x);
    return;
  }
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

long sbio__http_ms_left(const sbio_bk_call *call) {
  int64_t left = call->deadline_ns - sbio__sdk_now_ns(call);
  if (left <= 0) return 0;
  return left / 1000000 > 0x7fffffffL ? 0x7fffffffL : (long)(left / 1000000);
}

/* The attempt's own limit, when it is shorter than the time left. */
static long attempt_cap_ms(const sbio_sdk_http *c, const sbio_sdk_http_request *req, long left_ms) {
  long cap = req->timeout_ms < 0 ? 0 : req->timeout_ms > 0 ? req->timeout_ms : c->request_timeout_ms;
  return cap > 0 && cap < left_ms ? cap : 0;
}

static void setup(sbio_sdk_http *c, CURL *h, http_xfer *x) {
  long limit = x->cap_ms ? x->cap_ms : x->left_ms;
  curl_easy_setopt(h, CURLOPT_URL, x->url);
  sbio__http_transport_apply(c, h, limit);
  curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, x->header_list);
  /* left_ms is rounded down and libcurl's clock starts a little later than
   * it was read, so a limit of left_ms alone can end a transfer up to a
   * millisecond before the deadline; one more keeps libcurl from ever
   * firing first (the deadline checks end the transfer on time), so that
   * "the deadline passed" holds for whoever sees the timeout. */
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, x->cap_ms ? limit : limit + 1);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sbio__http_on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->errbuf);
  set_method(h, x->req, x);
}

int sbio__http_transport_outcome(CURLcode rc, CURL *h, const sbio_sdk_http *c, long limit_ms) {
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
    /* The connect timeout, shorter than the time the transfer had, ran out
     * first: the provider cannot be reached, the caller's time is not up. */
    curl_off_t connected = 0;
    curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connected);
    return connected == 0 && c->connect_timeout_ms < limit_ms ? SBIO_SDK_HTTP_UNREACHABLE : SBIO_SDK_HTTP_TIMEOUT;
  }
  default:
    return SBIO_SDK_HTTP_BROKEN;
  }
}

int sbio__http_never_sent(CURLcode rc, CURL *h, const sbio_sdk_http *c, long limit_ms) {
  switch (rc) {
  case CURLE_COULDNT_CONNECT:
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY:
    return 1;
  case CURLE_OPERATION_TIMEDOUT:
    return sbio__http_transport_outcome(rc, h, c, limit_ms) == SBIO_SDK_HTTP_UNREACHABLE;
  default:
    /* A TLS failure happens before the request too, but repeating one does
     * not change a certificate: it is not a reason to repeat a create. */
    return 0;
  }
}

/* The step a transfer that ended with `rc` failed at. For a timeout (and
 * a failure libcurl does not attribute) the step is read from the
 * transfer's timings: what had not completed yet is where it stopped. */
int sbio__http_failed_at(CURLcode rc, CURL *h) {
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

void sbio__http_xfer_end(http_xfer *x, CURLcode rc, int outcome, sbio_sdk_http_response *resp) {
  CURL *h = x->easy;
  long limit = x->cap_ms ? x->cap_ms : x->left_ms;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
  resp->not_sent = 0;
  if (outcome != SBIO_SDK_HTTP_ANSWERED)
    resp->outcome = outcome;
  else if (x->nomem)
    resp->outcome = SBIO_SDK_HTTP_NOMEM;
  else if (x->too_large)
    resp->outcome = SBIO_SDK_HTTP_TOO_LARGE;
  else if (x->stopped)
    resp->outcome = SBIO_SDK_HTTP_STOPPED;
  else if (rc != CURLE_OK) {
    resp->outcome = sbio__http_transport_outcome(rc, h, x->c, limit);
    /* The attempt's own limit ran out, not the caller's deadline. */
    if (resp->outcome == SBIO_SDK_HTTP_TIMEOUT && x->cap_ms) resp->outcome = SBIO_SDK_HTTP_SLOW;
    resp->not_sent = sbio__http_never_sent(rc, h, x->c, limit);
  }
  if (resp->outcome == SBIO_SDK_HTTP_UNREACHABLE || resp->outcome == SBIO_SDK_HTTP_BROKEN ||
      resp->outcome == SBIO_SDK_HTTP_TIMEOUT || resp->outcome == SBIO_SDK_HTTP_SLOW) {
    resp->failed_at = sbio__http_failed_at(rc, h);
    sbio__http_transport_error(x->c, h, rc, x->errbuf, resp->error, sizeof resp->error);
    if (resp->outcome != SBIO_SDK_HTTP_TIMEOUT && resp->outcome != SBIO_SDK_HTTP_SLOW)
      resp->tls_failure = sbio__http_tls_failure(x->c, rc, x->errbuf);
  }
  if (resp->outcome == SBIO_SDK_HTTP_SLOW)
    snprintf(resp->error, sizeof resp->error, "no complete answer within %ld ms", x->cap_ms);
  size_t body_len = x->body.len, headers_len = x->headers.len; /* bodies may hold NUL bytes */
  resp->body = sbio__sdk_buf_take(&x->body);
  resp->len = resp->body ? body_len : 0;
  resp->headers = sbio__sdk_buf_take(&x->headers);
  resp->headers_len = resp->headers ? headers_len : 0;
  if (!resp->body || !resp->headers) resp->outcome = SBIO_SDK_HTTP_NOMEM;
  /* The handle outlives this transfer: it must not point into it. */
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
  if (x->mime) curl_easy_setopt(h, CURLOPT_MIMEPOST, NULL);
  headers_free(x->header_list);
  sbio__http_mime_free(x->mime);
  free(x->url);
  x->header_list = NULL;
  x->mime = NULL;
  x->url = NULL;
}

void sbio__http_end(http_xfer *x, CURLcode rc, int outcome, sbio_sdk_http_response *resp) {
  sbio__http_xfer_end(x, rc, outcome, resp);
  sbio__http_slot_give(x->c, x->slot);
  x->slot = NULL;
}

static void fail_early(sbio_sdk_http_response *resp, int outcome, const char *why) {
  resp->outcome = outcome;
  snprintf(resp->error, sizeof resp->error, "%s", why);
  if (!resp->body) resp->body = calloc(1, 1);
}

int sbio__http_xfer_begin(http_xfer *x, sbio_sdk_http *c, CURL *easy, const sbio_sdk_http_request *req,
                          const sbio_bk_call *call, int *sink_used, sbio_sdk_http_response *resp) {
  memset(x, 0, sizeof *x);
  resp->outcome = SBIO_SDK_HTTP_ANSWERED;
  resp->status = 0;
  resp->failed_at = SBIO_SDK_HTTP_AT_NONE;
  resp->error[0] = '\0';
  resp->tls_failure = 0;
  resp->not_sent = 1; /* until it is on its way */
  if (call->cancelled && call->cancelled(call)) {
    fail_early(resp, SBIO_SDK_HTTP_CANCELLED, "cancelled");
    return -1;
  }
  long left_ms = sbio__http_ms_left(call);
  if (left_ms == 0) {
    fail_early(resp, SBIO_SDK_HTTP_TIMEOUT, "the deadline passed before the request was sent");
    return -1;
  }
  resp->not_sent = 0; /* nothing was sent below, but the same request would be refused again */
  if (!sbio__http_request_ok(req)) {
    fail_early(resp, SBIO_SDK_HTTP_BROKEN, "a request header is not one line of the form 'Name: value'");
    return -1;
  }
  if (req->read && req->rewind && req->rewind(req->read_user) != 0) {
    fail_early(resp, SBIO_SDK_HTTP_STOPPED, "the request body could not be rewound");
    return -1;
  }
  x->c = c;
  x->req = req;
  x->easy = easy;
  x->sink_used = sink_used;
  x->left_ms = left_ms;
  x->cap_ms = attempt_cap_ms(c, req, left_ms);
  curl_easy_reset(easy); /* keeps the connections, forgets the last request's options */
  x->url = sbio__http_url(c, req->path);
  int ok = x->url && build_headers(c, req, &x->header_list) == 0;
  if (ok && req->n_parts) ok = (x->mime = sbio__http_mime_new(easy, req)) != NULL;
  if (!ok) {
    headers_free(x->header_list);
    sbio__http_mime_free(x->mime);
    free(x->url);
    memset(x, 0, sizeof *x);
    fail_early(resp, SBIO_SDK_HTTP_NOMEM,
               req->n_parts ? "out of memory, or a multipart part without a name" : "out of memory");
    return -1;
  }
  setup(c, easy, x);
  return 0;
}

int sbio__http_begin(http_xfer *x, sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                     int *sink_used, sbio_sdk_http_response *resp) {
  http_slot *slot = sbio__http_slot_take(c);
  if (!slot) {
    memset(x, 0, sizeof *x);
    memset(resp, 0, sizeof *resp);
    fail_early(resp, SBIO_SDK_HTTP_NOMEM, "out of memory");
    return -1;
  }
  if (sbio__http_xfer_begin(x, c, slot->easy, req, call, sink_used, resp) != 0) {
    sbio__http_slot_give(c, slot);
    return -1;
  }
  x->slot = slot;
  return 0;
}
