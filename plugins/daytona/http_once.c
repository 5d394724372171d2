/* SPDX-License-Identifier: MIT */
/* One request, one libcurl easy handle. The handle is never reused across
 * threads; connection reuse is not worth the shared state here. */
#include "http_once.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define DEFAULT_MAX_BODY ((size_t)16 * 1024 * 1024)
#define USER_AGENT "sandboxio-daytona/" DT_VERSION

typedef struct xfer {
  CURL *easy;
  dt_ctx *ctx;
  const dt_http_req *req;
  dt_http_resp *resp;
  size_t cap, alloc;
  int decided, to_sink, too_big, sink_stopped, nomem;
} xfer;

/* ------------------------------------------------------------ callbacks */
static size_t on_write(char *data, size_t size, size_t nmemb, void *user) {
  xfer *x = user;
  size_t n = size * nmemb;
  if (!x->decided) {
    /* Only a success goes to the sink; an error body is kept for its
     * message. */
    long status = 0;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    x->to_sink = x->req->sink && status >= 200 && status < 300;
    x->decided = 1;
  }
  if (x->to_sink) {
    if (x->req->sink(x->req->sink_user, data, n) != 0) {
      x->sink_stopped = 1;
      return 0;
    }
    return n;
  }
  dt_http_resp *r = x->resp;
  if (n > x->cap - r->len) {
    x->too_big = 1;
    return 0;
  }
  if (r->len + n + 1 > x->alloc) {
    size_t na = x->alloc ? x->alloc : 4096;
    while (na < r->len + n + 1) na *= 2;
    char *p = realloc(r->body, na);
    if (!p) {
      x->nomem = 1;
      return 0;
    }
    r->body = p;
    x->alloc = na;
  }
  memcpy(r->body + r->len, data, n);
  r->len += n;
  r->body[r->len] = '\0';
  return n;
}

/* Copies a header value (trimmed) into `out`. */
static void header_value(const char *line, size_t n, size_t name_len, char *out, size_t size) {
  const char *v = line + name_len, *end = line + n;
  while (v < end && (*v == ' ' || *v == '\t')) v++;
  while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
  size_t len = (size_t)(end - v) < size - 1 ? (size_t)(end - v) : size - 1;
  memcpy(out, v, len);
  out[len] = '\0';
}

static size_t on_header(char *line, size_t size, size_t nitems, void *user) {
  xfer *x = user;
  size_t n = size * nitems;
  dt_http_resp *r = x->resp;
  if (n >= 5 && strncmp(line, "HTTP/", 5) == 0) { /* a new response (after 1xx) */
    r->has_retry_after = 0;
    r->content_type[0] = '\0';
  } else if (n > 12 && strncasecmp(line, "Retry-After:", 12) == 0) {
    char value[64];
    header_value(line, n, 12, value, sizeof value);
    r->has_retry_after = sbio__dt_parse_retry_after(value, (long long)time(NULL), &r->retry_after_s) == 0;
  } else if (n > 13 && strncasecmp(line, "Content-Type:", 13) == 0) {
    header_value(line, n, 13, r->content_type, sizeof r->content_type);
  }
  return n;
}

static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  return sbio__dt_cancelled(((xfer *)user)->ctx) ? 1 : 0;
}

/* The multipart file part reads straight from the caller's buffer. */
typedef struct mem_reader {
  const char *data;
  size_t len, pos;
} mem_reader;

static size_t mime_read(char *buf, size_t size, size_t nitems, void *arg) {
  mem_reader *m = arg;
  size_t n = size * nitems, left = m->len - m->pos;
  if (n > left) n = left;
  memcpy(buf, m->data + m->pos, n);
  m->pos += n;
  return n;
}

static int mime_seek(void *arg, curl_off_t offset, int origin) {
  mem_reader *m = arg;
  if (origin != SEEK_SET || offset < 0 || (size_t)offset > m->len) return CURL_SEEKFUNC_CANTSEEK;
  m->pos = (size_t)offset;
  return CURL_SEEKFUNC_OK;
}

/* --------------------------------------------------------------- setup */
static struct curl_slist *headers_for(const dt_ctx *ctx, const dt_http_req *req, int *nomem) {
  struct curl_slist *h = NULL, *t;
  char line[1200];
  const dt_settings *s = &ctx->inst->settings;
  snprintf(line, sizeof line, "Authorization: Bearer %s", ctx->api_key);
  const char *fixed[] = {req->sink ? "Accept: */*" : "Accept: application/json", "User-Agent: " USER_AGENT,
                         "X-Daytona-Source: sandboxio", "Expect:", req->json ? "Content-Type: application/json" : NULL};
  *nomem = 1;
  if (!(t = curl_slist_append(h, line))) goto out;
  h = t;
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
    if (!fixed[i]) continue;
    if (!(t = curl_slist_append(h, fixed[i]))) goto out;
    h = t;
  }
  if (s->organization_id) {
    snprintf(line, sizeof line, "X-Daytona-Organization-ID: %s", s->organization_id);
    if (!(t = curl_slist_append(h, line))) goto out;
    h = t;
  }
  *nomem = 0;
out:
  /* The header line held the key; do not leave it on the stack. */
  memset(line, 0, sizeof line);
  return h;
}

static long clamp_ms(double seconds) {
  if (seconds < 0.001) return 1;
  if (seconds > 86400) return 86400000L;
  return (long)(seconds * 1000.0);
}

dt_http_outcome sbio__dt_http_once(dt_ctx *ctx, const dt_http_req *req, dt_http_resp *resp, int *cap_timeout) {
  *cap_timeout = 0;
  ctx->detail[0] = '\0';
  if (sbio__dt_cancelled(ctx)) return DT_HTTP_CANCELLED;
  double budget = sbio__dt_remaining_s(ctx) + req->extra_s;
  if (budget <= 0.0005) return DT_HTTP_DEADLINE;
  double cap_s = ctx->inst->settings.request_timeout_s + req->extra_s;
  int deadline_binds = budget <= cap_s;

  xfer x = {.ctx = ctx, .req = req, .resp = resp, .cap = req->max_body ? req->max_body : DEFAULT_MAX_BODY};
  x.easy = curl_easy_init();
  if (!x.easy) return DT_HTTP_NOMEM;
  int nomem = 0;
  struct curl_slist *headers = headers_for(ctx, req, &nomem);
  curl_mime *mime = NULL;
  mem_reader reader = {req->part_data, req->part_len, 0};
  char errbuf[CURL_ERROR_SIZE] = "";
  if (nomem) {
    curl_slist_free_all(headers);
    curl_easy_cleanup(x.easy);
    return DT_HTTP_NOMEM;
  }

  CURL *e = x.easy;
  curl_easy_setopt(e, CURLOPT_URL, req->url);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L); /* never carry the key elsewhere */
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, clamp_ms(ctx->inst->settings.connect_timeout_s));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, clamp_ms(deadline_binds ? budget : cap_s));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &x);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &x);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, &x);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  if (req->part_name) {
    mime = curl_mime_init(e);
    curl_mimepart *part = mime ? curl_mime_addpart(mime) : NULL;
    if (!part || curl_mime_name(part, req->part_name) != CURLE_OK ||
        curl_mime_filename(part, "upload") != CURLE_OK || /* the daemon's FormFile needs one */
        curl_mime_type(part, "application/octet-stream") != CURLE_OK ||
        curl_mime_data_cb(part, (curl_off_t)req->part_len, mime_read, mime_seek, NULL, &reader) != CURLE_OK) {
      curl_mime_free(mime);
      curl_slist_free_all(headers);
      curl_easy_cleanup(e);
      return DT_HTTP_NOMEM;
    }
    curl_easy_setopt(e, CURLOPT_MIMEPOST, mime);
  } else if (strcmp(req->method, "POST") == 0) {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->json ? req->json : "");
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(req->json ? strlen(req->json) : 0));
  }
  if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "POST") != 0)
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);

  CURLcode rc = curl_easy_perform(e);
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &resp->status);
  curl_mime_free(mime);
  curl_slist_free_all(headers);
  curl_easy_cleanup(e);

  if (x.nomem) return DT_HTTP_NOMEM;
  if (x.too_big) return DT_HTTP_TOO_BIG;
  if (x.sink_stopped) return DT_HTTP_SINK_STOPPED;
  if (rc == CURLE_ABORTED_BY_CALLBACK || sbio__dt_cancelled(ctx)) return DT_HTTP_CANCELLED;
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    if (deadline_binds) return DT_HTTP_DEADLINE;
    *cap_timeout = 1;
    snprintf(ctx->detail, sizeof ctx->detail, "no complete answer within %g s", cap_s);
    return DT_HTTP_TRANSPORT;
  }
  if (rc != CURLE_OK) {
    /* A response may have started; without its end it is not one. */
    resp->status = 0;
    snprintf(ctx->detail, sizeof ctx->detail, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    return DT_HTTP_TRANSPORT;
  }
  return DT_HTTP_OK;
}
