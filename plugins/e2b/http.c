/* SPDX-License-Identifier: MIT */
#include "http.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct e2b_http {
  CURLSH *share;
  pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
};

struct e2b_xfer {
  CURL *easy;
  const e2b_req *req;
  e2b_resp resp;
  int done;
  char errbuf[CURL_ERROR_SIZE];
  struct e2b_xfer *next;
};

struct e2b_loop {
  e2b_instance *inst;
  const sbio_bk_call *call;
  CURLM *multi;
  e2b_xfer *list;
};

/* ------------------------------------------------------------- sharing */
static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *user) {
  (void)h, (void)access;
  struct e2b_http *http = user;
  if (data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&http->locks[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *user) {
  (void)h;
  struct e2b_http *http = user;
  if (data >= 0 && data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&http->locks[data]);
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;
static void global_init(void) {
  global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int sbio__e2b_http_new(e2b_http **out) {
  *out = NULL;
  pthread_once(&global_once, global_init);
  if (global_rc != CURLE_OK) return -1;
  struct e2b_http *http = calloc(1, sizeof *http);
  if (!http) return -1;
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&http->locks[i], NULL);
  http->share = curl_share_init();
  if (!http->share) {
    sbio__e2b_http_free(http);
    return -1;
  }
  curl_share_setopt(http->share, CURLSHOPT_LOCKFUNC, share_lock);
  curl_share_setopt(http->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
  curl_share_setopt(http->share, CURLSHOPT_USERDATA, http);
  curl_share_setopt(http->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  curl_share_setopt(http->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(http->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  *out = http;
  return 0;
}

void sbio__e2b_http_free(e2b_http *http) {
  if (!http) return;
  if (http->share) curl_share_cleanup(http->share);
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&http->locks[i]);
  free(http);
}

/* ------------------------------------------------------------- headers */
void sbio__e2b_headers_free(struct curl_slist *headers) {
  for (struct curl_slist *h = headers; h; h = h->next)
    if (h->data) memset(h->data, 0, strlen(h->data)); /* may hold a key or token */
  curl_slist_free_all(headers);
}

struct curl_slist *sbio__e2b_header(struct curl_slist *list, const char *name, const char *value) {
  size_t n = strlen(name) + strlen(value) + 3;
  char *line = malloc(n);
  if (!line) {
    sbio__e2b_headers_free(list);
    return NULL;
  }
  snprintf(line, n, "%s:%s%s", name, value[0] ? " " : "", value);
  struct curl_slist *next = curl_slist_append(list, line);
  memset(line, 0, n);
  free(line);
  if (!next) sbio__e2b_headers_free(list);
  return next;
}

long sbio__e2b_ms_left(const sbio_bk_call *call, int64_t deadline_ns) {
  int64_t left = deadline_ns - sbio_bk_now_ns(call);
  return left > 0 ? (long)(left / 1000000) : 0;
}

/* ----------------------------------------------------------- callbacks */
static size_t on_body(char *data, size_t size, size_t n, void *user) {
  e2b_xfer *x = user;
  size_t len = size * n;
  if (!x->resp.status) curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->resp.status);
  if (x->req->sink && x->resp.status >= 200 && x->resp.status < 300) {
    x->resp.sunk += len;
    if (x->req->sink(x->req->sink_user, data, len) != 0) {
      x->resp.sink_stopped = 1;
      return 0; /* aborts the transfer */
    }
    return len;
  }
  size_t room = E2B_BODY_LIMIT > x->resp.len ? E2B_BODY_LIMIT - x->resp.len : 0;
  size_t take = len < room ? len : room;
  if (take) {
    if (x->resp.len + take + 1 > x->resp.cap) {
      size_t cap = x->resp.cap ? x->resp.cap : 1024;
      while (cap < x->resp.len + take + 1) cap *= 2;
      char *p = realloc(x->resp.body, cap);
      if (!p) return 0;
      x->resp.body = p;
      x->resp.cap = cap;
    }
    memcpy(x->resp.body + x->resp.len, data, take);
    x->resp.len += take;
    x->resp.body[x->resp.len] = '\0';
  }
  return len;
}

static void header_value(const char *line, size_t len, size_t skip, char *out, size_t out_size) {
  const char *v = line + skip;
  size_t n = len - skip;
  while (n && (*v == ' ' || *v == '\t')) v++, n--;
  while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ')) n--;
  if (n >= out_size) n = out_size - 1;
  memcpy(out, v, n);
  out[n] = '\0';
}

static size_t on_header(char *line, size_t size, size_t n, void *user) {
  e2b_xfer *x = user;
  size_t len = size * n;
  if (len >= 5 && strncmp(line, "HTTP/", 5) == 0) {
    /* A new response (after a 100 Continue, say): forget the last one's. */
    x->resp.retry_after[0] = '\0';
    x->resp.next_token[0] = '\0';
  } else if (len > 12 && strncasecmp(line, "Retry-After:", 12) == 0) {
    header_value(line, len, 12, x->resp.retry_after, sizeof x->resp.retry_after);
  } else if (len > 13 && strncasecmp(line, "X-Next-Token:", 13) == 0) {
    header_value(line, len, 13, x->resp.next_token, sizeof x->resp.next_token);
  }
  return len;
}

/* ---------------------------------------------------------------- setup */
static int setup(e2b_loop *loop, e2b_xfer *x) {
  const e2b_req *req = x->req;
  const e2b_settings *s = &loop->inst->settings;
  CURL *h = x->easy;
  long left = sbio__e2b_ms_left(loop->call, req->deadline_ns);
  if (left <= 0) return -1;
  long connect_ms = (long)(s->connect_timeout_s * 1000);
  if (connect_ms > left) connect_ms = left;
  if (connect_ms < 1) connect_ms = 1;
  CURLcode rc = CURLE_OK;
#define SET(opt, val)                                                                                                  \
  if (rc == CURLE_OK) rc = curl_easy_setopt(h, opt, val)
  SET(CURLOPT_URL, req->url);
  SET(CURLOPT_SHARE, loop->inst->http->share);
  SET(CURLOPT_NOSIGNAL, 1L);
  SET(CURLOPT_ERRORBUFFER, x->errbuf);
  SET(CURLOPT_PROTOCOLS_STR, "http,https");
  SET(CURLOPT_FOLLOWLOCATION, 0L); /* never carry the key to another host */
  SET(CURLOPT_TCP_KEEPALIVE, 1L);
  SET(CURLOPT_TIMEOUT_MS, left);
  SET(CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
  SET(CURLOPT_WRITEFUNCTION, on_body);
  SET(CURLOPT_WRITEDATA, x);
  SET(CURLOPT_HEADERFUNCTION, on_header);
  SET(CURLOPT_HEADERDATA, x);
  SET(CURLOPT_USERAGENT, E2B_USER_AGENT);
  if (req->headers) SET(CURLOPT_HTTPHEADER, (struct curl_slist *)req->headers);
  if (strcmp(req->method, "POST") == 0) {
    SET(CURLOPT_POST, 1L);
    SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    SET(CURLOPT_POSTFIELDS, req->body ? (const char *)req->body : "");
  } else if (strcmp(req->method, "GET") != 0) {
    SET(CURLOPT_CUSTOMREQUEST, req->method);
    if (req->body) {
      SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
      SET(CURLOPT_POSTFIELDS, (const char *)req->body);
    }
  }
#undef SET
  return rc == CURLE_OK ? 0 : -1;
}

/* --------------------------------------------------------------- loops */
e2b_loop *sbio__e2b_loop_new(e2b_instance *inst, const sbio_bk_call *call) {
  e2b_loop *loop = calloc(1, sizeof *loop);
  if (!loop) return NULL;
  loop->inst = inst;
  loop->call = call;
  loop->multi = curl_multi_init();
  if (!loop->multi) {
    free(loop);
    return NULL;
  }
  return loop;
}

static void xfer_free(e2b_loop *loop, e2b_xfer *x) {
  if (x->easy) {
    curl_multi_remove_handle(loop->multi, x->easy);
    curl_easy_cleanup(x->easy);
  }
  sbio__e2b_resp_free(&x->resp);
  free(x);
}

void sbio__e2b_loop_free(e2b_loop *loop) {
  if (!loop) return;
  while (loop->list) {
    e2b_xfer *x = loop->list;
    loop->list = x->next;
    xfer_free(loop, x);
  }
  curl_multi_cleanup(loop->multi);
  free(loop);
}

e2b_xfer *sbio__e2b_loop_add(e2b_loop *loop, const e2b_req *req) {
  e2b_xfer *x = calloc(1, sizeof *x);
  if (!x) return NULL;
  x->req = req;
  x->next = loop->list;
  loop->list = x;
  x->easy = curl_easy_init();
  if (!x->easy) {
    x->done = 1;
    x->resp.curl_code = CURLE_OUT_OF_MEMORY;
    snprintf(x->resp.error, sizeof x->resp.error, "out of memory");
    return x;
  }
  if (setup(loop, x) != 0) {
    /* Already past the deadline (or a setup failure): done, timed out. */
    x->done = 1;
    x->resp.curl_code = CURLE_OPERATION_TIMEDOUT;
    x->resp.timed_out = 1;
    snprintf(x->resp.error, sizeof x->resp.error, "deadline reached before the request started");
    return x;
  }
  if (curl_multi_add_handle(loop->multi, x->easy) != CURLM_OK) {
    x->done = 1;
    x->resp.curl_code = CURLE_FAILED_INIT;
    snprintf(x->resp.error, sizeof x->resp.error, "could not start the request");
  }
  return x;
}

static void collect(e2b_loop *loop) {
  CURLMsg *msg;
  int left;
  while ((msg = curl_multi_info_read(loop->multi, &left))) {
    if (msg->msg != CURLMSG_DONE) continue;
    for (e2b_xfer *x = loop->list; x; x = x->next) {
      if (x->easy != msg->easy_handle) continue;
      x->done = 1;
      x->resp.curl_code = msg->data.result;
      long status = 0;
      curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
      if (status) x->resp.status = status;
      if (msg->data.result == CURLE_OPERATION_TIMEDOUT) x->resp.timed_out = 1;
      if (msg->data.result != CURLE_OK)
        snprintf(x->resp.error, sizeof x->resp.error, "%s",
                 x->errbuf[0] ? x->errbuf : curl_easy_strerror(msg->data.result));
      break;
    }
  }
}

static int any_running(const e2b_loop *loop) {
  for (const e2b_xfer *x = loop->list; x; x = x->next)
    if (!x->done) return 1;
  return 0;
}

int sbio__e2b_loop_step(e2b_loop *loop, int timeout_ms) {
  int running = 0;
  if (curl_multi_perform(loop->multi, &running) != CURLM_OK) return -1;
  collect(loop);
  if (!any_running(loop)) return 0;
  if (curl_multi_poll(loop->multi, NULL, 0, timeout_ms, NULL) != CURLM_OK) return -1;
  if (curl_multi_perform(loop->multi, &running) != CURLM_OK) return -1;
  collect(loop);
  return 0;
}

int sbio__e2b_xfer_done(const e2b_xfer *x) {
  return x->done;
}

e2b_resp *sbio__e2b_xfer_resp(e2b_xfer *x) {
  return &x->resp;
}

void sbio__e2b_loop_remove(e2b_loop *loop, e2b_xfer *x) {
  for (e2b_xfer **p = &loop->list; *p; p = &(*p)->next) {
    if (*p == x) {
      *p = x->next;
      xfer_free(loop, x);
      return;
    }
  }
}

/* ------------------------------------------------------------ blocking */
int sbio__e2b_http(e2b_instance *inst, const sbio_bk_call *call, const e2b_req *req, e2b_resp *resp) {
  memset(resp, 0, sizeof *resp);
  e2b_loop *loop = sbio__e2b_loop_new(inst, call);
  e2b_xfer *x = loop ? sbio__e2b_loop_add(loop, req) : NULL;
  if (!x) {
    sbio__e2b_loop_free(loop);
    resp->curl_code = CURLE_OUT_OF_MEMORY;
    snprintf(resp->error, sizeof resp->error, "out of memory");
    return -1;
  }
  while (!x->done) {
    if (call->cancelled && call->cancelled(call)) {
      x->resp.cancelled = 1;
      x->resp.curl_code = CURLE_ABORTED_BY_CALLBACK;
      snprintf(x->resp.error, sizeof x->resp.error, "cancelled");
      break;
    }
    if (sbio__e2b_loop_step(loop, 50) != 0) {
      x->resp.curl_code = CURLE_FAILED_INIT;
      snprintf(x->resp.error, sizeof x->resp.error, "curl multi interface failure");
      break;
    }
  }
  *resp = x->resp;
  memset(&x->resp, 0, sizeof x->resp);
  sbio__e2b_loop_free(loop);
  return resp->curl_code == CURLE_OK ? 0 : -1;
}

void sbio__e2b_resp_free(e2b_resp *resp) {
  free(resp->body);
  resp->body = NULL;
  resp->len = resp->cap = 0;
}
