/* SPDX-License-Identifier: MIT */
#include "http.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define POOL_MAX 8
#define CONNECT_TIMEOUT_MS 10000L

struct dk_pool {
  pthread_mutex_t lock;
  CURL *idle[POOL_MAX];
  size_t n;
};

int sbio__dk_pool_new(dk_pool **out) {
  dk_pool *p = calloc(1, sizeof *p);
  if (!p || pthread_mutex_init(&p->lock, NULL) != 0) {
    free(p);
    return -1;
  }
  *out = p;
  return 0;
}

void sbio__dk_pool_free(dk_pool *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n; i++) curl_easy_cleanup(p->idle[i]);
  pthread_mutex_destroy(&p->lock);
  free(p);
}

CURL *sbio__dk_pool_take(dk_instance *inst) {
  dk_pool *p = inst->pool;
  CURL *h = NULL;
  pthread_mutex_lock(&p->lock);
  if (p->n) h = p->idle[--p->n];
  pthread_mutex_unlock(&p->lock);
  if (h)
    curl_easy_reset(h); /* keeps the connection cache */
  else
    h = curl_easy_init();
  return h;
}

void sbio__dk_pool_give(dk_instance *inst, CURL *h) {
  if (!h) return;
  dk_pool *p = inst->pool;
  pthread_mutex_lock(&p->lock);
  if (p->n < POOL_MAX) {
    p->idle[p->n++] = h;
    h = NULL;
  }
  pthread_mutex_unlock(&p->lock);
  if (h) curl_easy_cleanup(h);
}

void sbio__dk_http_apply_endpoint(CURL *h, const dk_endpoint *ep) {
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM timeouts */
  if (ep->is_unix) curl_easy_setopt(h, CURLOPT_UNIX_SOCKET_PATH, ep->socket_path);
  curl_easy_setopt(h, CURLOPT_PROXY, ""); /* the engine is never behind the user's proxy */
  curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
  if (ep->tls) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, ep->tls_verify ? 1L : 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, ep->tls_verify ? 2L : 0L);
    if (ep->ca[0]) curl_easy_setopt(h, CURLOPT_CAINFO, ep->ca);
    if (ep->cert[0]) curl_easy_setopt(h, CURLOPT_SSLCERT, ep->cert);
    if (ep->key[0]) curl_easy_setopt(h, CURLOPT_SSLKEY, ep->key);
  }
}

int sbio__dk_http_url(const dk_instance *inst, const char *path, int versioned, char *buf, size_t size) {
  int n = versioned ? snprintf(buf, size, "%s/v%s%s", inst->endpoint.base_url, inst->api, path)
                    : snprintf(buf, size, "%s%s", inst->endpoint.base_url, path);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

long sbio__dk_ms_left(const dk_instance *inst, int64_t deadline) {
  int64_t left = deadline - sbio__dk_now(inst);
  if (left <= 0) return 0;
  int64_t ms = (left + 999999) / 1000000;
  return ms > 0x7fffffffL ? 0x7fffffffL : (long)ms;
}

int sbio__dk_body_append(dk_http_resp *resp, size_t *cap, const char *data, size_t len) {
  if (resp->len >= DK_BODY_LIMIT) return 0;
  if (len > DK_BODY_LIMIT - resp->len) len = DK_BODY_LIMIT - resp->len;
  if (resp->len + len + 1 > *cap) {
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < resp->len + len + 1) ncap *= 2;
    char *p = realloc(resp->body, ncap);
    if (!p) return -1;
    resp->body = p;
    *cap = ncap;
  }
  memcpy(resp->body + resp->len, data, len);
  resp->len += len;
  resp->body[resp->len] = '\0';
  return 0;
}

static size_t on_body(char *data, size_t size, size_t n, void *user) {
  dk_xfer *x = user;
  size_t len = size * n;
  if (x->req->sink && x->resp->status >= 200 && x->resp->status < 300) {
    if (x->req->sink(x->req->sink_user, data, len) != 0) {
      x->resp->sink_stopped = 1;
      return 0;
    }
    return len;
  }
  return sbio__dk_body_append(x->resp, &x->cap, data, len) == 0 ? len : 0;
}

static void header_value(const char *line, size_t len, const char *name, char *out, size_t size) {
  size_t nl = strlen(name);
  if (len <= nl || strncasecmp(line, name, nl) != 0) return;
  const char *v = line + nl;
  const char *end = line + len;
  while (v < end && (*v == ' ' || *v == '\t')) v++;
  while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ')) end--;
  size_t vl = (size_t)(end - v);
  if (vl >= size) vl = size - 1;
  memcpy(out, v, vl);
  out[vl] = '\0';
}

size_t sbio__dk_on_header(char *line, size_t size, size_t n, void *user) {
  dk_xfer *x = user;
  size_t len = size * n;
  /* A status line starts a (possibly new, after 100 Continue) response. */
  if (len > 9 && !strncmp(line, "HTTP/", 5)) {
    const char *sp = memchr(line, ' ', len);
    if (sp) x->resp->status = strtol(sp + 1, NULL, 10);
  }
  header_value(line, len, "Api-Version:", x->resp->api_version, sizeof x->resp->api_version);
  header_value(line, len, "X-Docker-Container-Path-Stat:", x->resp->path_stat, sizeof x->resp->path_stat);
  return len;
}

static int on_progress(void *user, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un) {
  (void)dt, (void)dn, (void)ut, (void)un;
  dk_xfer *x = user;
  if (x->req->cancel && x->req->cancel->cancelled && x->req->cancel->cancelled(x->req->cancel)) {
    x->resp->cancelled = 1;
    return 1;
  }
  return 0;
}

/* Shared by the blocking and the streaming request. */
int sbio__dk_http_setup(dk_instance *inst, CURL *h, const dk_http_req *req, void *user, struct curl_slist **headers,
                        dk_http_resp *resp) {
  char url[2048];
  if (sbio__dk_http_url(inst, req->path, req->versioned, url, sizeof url) != 0) {
    snprintf(resp->error, sizeof resp->error, "request path too long");
    resp->curl = CURLE_URL_MALFORMAT;
    return -1;
  }
  long ms = sbio__dk_ms_left(inst, req->deadline);
  if (ms <= 0) {
    resp->timed_out = 1;
    resp->curl = CURLE_OPERATION_TIMEDOUT;
    snprintf(resp->error, sizeof resp->error, "deadline already passed");
    return -1;
  }
  sbio__dk_http_apply_endpoint(h, &inst->endpoint);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms < CONNECT_TIMEOUT_MS ? ms : CONNECT_TIMEOUT_MS);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, sbio__dk_on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, user);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, user);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
  *headers = curl_slist_append(*headers, "Expect:"); /* no 100-continue round trip */
  if (!strcmp(req->method, "HEAD")) {
    curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  } else if (req->read_fn) {
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, req->read_fn);
    curl_easy_setopt(h, CURLOPT_READDATA, req->read_user);
    curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)req->upload_len);
    if (strcmp(req->method, "PUT") != 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
    if (req->content_type) {
      char ct[128];
      snprintf(ct, sizeof ct, "Content-Type: %s", req->content_type);
      *headers = curl_slist_append(*headers, ct);
    }
  } else if (!strcmp(req->method, "POST")) {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, req->json ? req->json : "");
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(req->json ? strlen(req->json) : 0));
    /* libcurl would say form-urlencoded; the engine answers that with 400. */
    *headers = curl_slist_append(*headers, "Content-Type: application/json");
  } else if (strcmp(req->method, "GET") != 0) {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req->method);
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, *headers);
  return 0;
}

void sbio__dk_http_finish(dk_instance *inst, CURL *h, const dk_http_req *req, CURLcode rc, const char *errbuf,
                          dk_http_resp *resp) {
  resp->curl = rc;
  if (rc == CURLE_OK) return;
  if (rc == CURLE_OPERATION_TIMEDOUT ||
      (rc == CURLE_ABORTED_BY_CALLBACK && req && sbio__dk_ms_left(inst, req->deadline) == 0))
    resp->timed_out = 1;
  if (rc == CURLE_WRITE_ERROR && resp->sink_stopped) return;
  long os_errno = 0;
  /* For a unix socket curl says "Failed to connect to localhost port 80":
   * the socket's own error is what helps. */
  if (rc == CURLE_COULDNT_CONNECT && inst->endpoint.is_unix && h &&
      curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK && os_errno) {
    snprintf(resp->error, sizeof resp->error, "connect to %s: %s", inst->endpoint.socket_path, strerror((int)os_errno));
    return;
  }
  snprintf(resp->error, sizeof resp->error, "%s", errbuf && errbuf[0] ? errbuf : curl_easy_strerror(rc));
}

int sbio__dk_http(dk_instance *inst, const dk_http_req *req, dk_http_resp *resp) {
  memset(resp, 0, sizeof *resp);
  dk_xfer x = {.inst = inst, .req = req, .resp = resp};
  CURL *h = sbio__dk_pool_take(inst);
  if (!h) {
    resp->curl = CURLE_OUT_OF_MEMORY;
    snprintf(resp->error, sizeof resp->error, "out of memory");
    return -1;
  }
  struct curl_slist *headers = NULL;
  char errbuf[CURL_ERROR_SIZE] = "";
  int rc = sbio__dk_http_setup(inst, h, req, &x, &headers, resp);
  if (rc == 0) {
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode c = curl_easy_perform(h);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, NULL);
    sbio__dk_http_finish(inst, h, req, c, errbuf, resp);
    if (c == CURLE_OK || (c == CURLE_WRITE_ERROR && resp->sink_stopped)) {
      long code = 0;
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
      if (code) resp->status = code;
    } else {
      rc = -1;
    }
  }
  curl_slist_free_all(headers);
  /* A failed or stopped transfer may leave the connection in any state:
   * never hand it to the next request. */
  if (rc == 0 && !resp->sink_stopped)
    sbio__dk_pool_give(inst, h);
  else
    curl_easy_cleanup(h);
  return rc;
}

void sbio__dk_http_resp_free(dk_http_resp *resp) {
  free(resp->body);
  resp->body = NULL;
  resp->len = 0;
}
