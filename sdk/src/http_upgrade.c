/* SPDX-License-Identifier: MIT */
/* Connections upgraded to a raw byte stream. libcurl connects (CONNECT_ONLY:
 * the client's socket, TLS and proxy settings, nothing sent), then the
 * request is written by hand with curl_easy_send, because after the answer
 * the connection is no longer HTTP and libcurl must not read it as such.
 * The half-close is shutdown(SHUT_WR) on the connection's socket. */
#include "http_internal.h"

#include <errno.h>
#include <poll.h>
#include <sandboxio/sdk/http_stream.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define HEAD_MAX 16384

struct sbio_sdk_http_conn {
  sbio_sdk_http *c;
  CURL *h;
  curl_socket_t fd;
  unsigned char *pending; /* stream bytes that arrived with the answer's head */
  size_t pending_len, pending_off;
  char errbuf[CURL_ERROR_SIZE];
};

int sbio_sdk_http_conn_send(sbio_sdk_http_conn *conn, const void *data, size_t len, size_t *n) {
  *n = 0;
  if (!conn) return SBIO_SDK_IO_ERROR;
  CURLcode rc = curl_easy_send(conn->h, data, len, n);
  if (rc == CURLE_AGAIN) return SBIO_SDK_IO_AGAIN;
  return rc == CURLE_OK ? SBIO_SDK_IO_OK : SBIO_SDK_IO_ERROR;
}

int sbio_sdk_http_conn_recv(sbio_sdk_http_conn *conn, void *buf, size_t size, size_t *n) {
  *n = 0;
  if (!conn) return SBIO_SDK_IO_ERROR;
  if (conn->pending_off < conn->pending_len) {
    size_t k = conn->pending_len - conn->pending_off;
    if (k > size) k = size;
    memcpy(buf, conn->pending + conn->pending_off, k);
    conn->pending_off += k;
    *n = k;
    return SBIO_SDK_IO_OK;
  }
  CURLcode rc = curl_easy_recv(conn->h, buf, size, n);
  if (rc == CURLE_AGAIN) return SBIO_SDK_IO_AGAIN;
  if (rc != CURLE_OK) return SBIO_SDK_IO_ERROR;
  return *n ? SBIO_SDK_IO_OK : SBIO_SDK_IO_EOF;
}

int sbio_sdk_http_conn_shutdown_write(sbio_sdk_http_conn *conn) {
  return conn && shutdown(conn->fd, SHUT_WR) == 0 ? 0 : -1;
}

int sbio_sdk_http_conn_wait(sbio_sdk_http_conn *conn, int want, int timeout_ms) {
  if (!conn) return -1;
  if ((want & SBIO_SDK_WAIT_READ) && conn->pending_off < conn->pending_len) return SBIO_SDK_WAIT_READ;
  struct pollfd p = {
      .fd = conn->fd,
      .events = (short)(((want & SBIO_SDK_WAIT_READ) ? POLLIN : 0) | ((want & SBIO_SDK_WAIT_WRITE) ? POLLOUT : 0))};
  int r = poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
  if (r < 0) return errno == EINTR ? 0 : -1;
  if (r == 0) return 0;
  int ready = 0;
  if (p.revents & (POLLIN | POLLHUP | POLLERR)) ready |= SBIO_SDK_WAIT_READ;
  if (p.revents & (POLLOUT | POLLERR)) ready |= SBIO_SDK_WAIT_WRITE;
  return ready;
}

void sbio_sdk_http_conn_close(sbio_sdk_http_conn *conn) {
  if (!conn) return;
  if (conn->h) curl_easy_cleanup(conn->h); /* never pooled: the connection is not HTTP any more */
  free(conn->pending);
  free(conn);
}

/* ----------------------------------------------------------- the request */
static void fail(sbio_sdk_http_response *resp, int outcome, const char *why) {
  resp->outcome = outcome;
  snprintf(resp->error, sizeof resp->error, "%s", why);
}

/* A failure on the connection once it was made. */
static void fail_transfer(sbio_sdk_http_response *resp, int outcome, const char *why) {
  fail(resp, outcome, why);
  resp->failed_at = SBIO_SDK_HTTP_AT_TRANSFER;
}

static void transport_fail(sbio_sdk_http_conn *conn, CURLcode rc, int outcome, sbio_sdk_http_response *resp) {
  resp->outcome = outcome;
  resp->failed_at = sbio__http_failed_at(rc, conn->h);
  sbio__http_transport_error(conn->c, conn->h, rc, conn->errbuf, resp->error, sizeof resp->error);
  if (outcome != SBIO_SDK_HTTP_TIMEOUT) resp->tls_failure = sbio__http_tls_failure(conn->c, rc, conn->errbuf);
}

/* Waits until the connection is ready for `want`, within the deadline and
 * watching for cancellation. 0, or -1 with resp filled. */
static int wait_ready(sbio_sdk_http_conn *conn, int want, const sbio_bk_call *call, sbio_sdk_http_response *resp) {
  for (;;) {
    long ms = sbio__http_ms_left(call);
    if (ms == 0) {
      fail_transfer(resp, SBIO_SDK_HTTP_TIMEOUT, "the deadline passed waiting for the upgrade");
      return -1;
    }
    if (call->cancelled && call->cancelled(call)) {
      fail(resp, SBIO_SDK_HTTP_CANCELLED, "cancelled");
      return -1;
    }
    int r = sbio_sdk_http_conn_wait(conn, want, ms < SBIO_SDK_HTTP_POLL_MS ? (int)ms : SBIO_SDK_HTTP_POLL_MS);
    if (r < 0) {
      fail_transfer(resp, SBIO_SDK_HTTP_BROKEN, "poll failed on the connection");
      return -1;
    }
    if (r) return 0; /* ready, or an error the next send/recv reports */
  }
}

static int send_all(sbio_sdk_http_conn *conn, const char *data, size_t len, const sbio_bk_call *call,
                    sbio_sdk_http_response *resp) {
  while (len) {
    size_t n = 0;
    CURLcode rc = curl_easy_send(conn->h, data, len, &n);
    if (rc == CURLE_AGAIN) {
      if (wait_ready(conn, SBIO_SDK_WAIT_WRITE, call, resp) != 0) return -1;
      continue;
    }
    if (rc != CURLE_OK) {
      transport_fail(conn, rc, SBIO_SDK_HTTP_BROKEN, resp);
      return -1;
    }
    data += n;
    len -= n;
  }
  return 0;
}

/* Reads until the blank line that ends the head; bytes past it are kept
 * as the stream's first. *head is malloc'd. */
static int read_head(sbio_sdk_http_conn *conn, const sbio_bk_call *call, char **head, size_t *head_len,
                     sbio_sdk_http_response *resp) {
  char *buf = malloc(HEAD_MAX + 1);
  size_t len = 0;
  if (!buf) {
    fail(resp, SBIO_SDK_HTTP_NOMEM, "out of memory");
    return -1;
  }
  for (;;) {
    size_t n = 0;
    CURLcode rc = curl_easy_recv(conn->h, buf + len, HEAD_MAX - len, &n);
    if (rc == CURLE_AGAIN) {
      if (wait_ready(conn, SBIO_SDK_WAIT_READ, call, resp) != 0) break;
      continue;
    }
    if (rc != CURLE_OK || n == 0) {
      if (rc != CURLE_OK)
        transport_fail(conn, rc, SBIO_SDK_HTTP_BROKEN, resp);
      else
        fail_transfer(resp, SBIO_SDK_HTTP_BROKEN, "the server closed the connection before answering");
      break;
    }
    size_t from = len > 3 ? len - 3 : 0;
    len += n;
    buf[len] = '\0';
    char *end = NULL;
    for (size_t i = from; i + 4 <= len && !end; i++)
      if (!memcmp(buf + i, "\r\n\r\n", 4)) end = buf + i + 4;
    if (end) {
      *head_len = (size_t)(end - buf);
      conn->pending_len = len - *head_len;
      if (conn->pending_len) {
        conn->pending = malloc(conn->pending_len);
        if (!conn->pending) {
          fail(resp, SBIO_SDK_HTTP_NOMEM, "out of memory");
          break;
        }
        memcpy(conn->pending, end, conn->pending_len);
      }
      *end = '\0';
      *head = buf;
      return 0;
    }
    if (len == HEAD_MAX) {
      fail_transfer(resp, SBIO_SDK_HTTP_BROKEN, "the answer's head is larger than 16 KiB");
      break;
    }
  }
  free(buf);
  return -1;
}

static long content_length(const char *head) {
  for (const char *line = strstr(head, "\r\n"); line; line = strstr(line + 2, "\r\n"))
    if (!strncasecmp(line + 2, "Content-Length:", 15)) return strtol(line + 17, NULL, 10);
  return -1;
}

/* A refused upgrade: its body (the server's explanation), within the body
 * limit and the deadline. What cannot be read in time is left out. */
static void read_error_body(sbio_sdk_http_conn *conn, const char *head, const sbio_bk_call *call,
                            sbio_sdk_http_response *resp) {
  long want = content_length(head);
  sbio__sdk_buf body = {0};
  size_t limit = conn->c->body_limit;
  char buf[4096];
  while ((want < 0 || (long)body.len < want) && body.len < limit && body.ok >= 0) {
    size_t n = 0;
    int io = sbio_sdk_http_conn_recv(conn, buf, sizeof buf, &n);
    if (io == SBIO_SDK_IO_OK) {
      sbio__sdk_buf_add(&body, buf, n < limit - body.len ? n : limit - body.len);
    } else if (io != SBIO_SDK_IO_AGAIN) {
      break;
    } else {
      sbio_sdk_http_response scratch;
      memset(&scratch, 0, sizeof scratch);
      if (wait_ready(conn, SBIO_SDK_WAIT_READ, call, &scratch) != 0) break;
    }
  }
  size_t len = body.len;
  resp->body = sbio__sdk_buf_take(&body);
  resp->len = resp->body ? len : 0;
}

/* "METHOD TARGET HTTP/1.1" and the headers, for the URL `url`. */
static char *request_text(const sbio_sdk_http *c, const sbio_sdk_http_request *req, const char *url,
                          const char *protocol) {
  const char *method = req->method ? req->method : "GET";
  const char *authority = strstr(url, "://") + 3;
  size_t alen = strcspn(authority, "/?#");
  const char *target = authority + alen;
  sbio__sdk_buf b = {0};
  char line[512];
  snprintf(line, sizeof line, "%s ", method);
  sbio__sdk_buf_add(&b, line, strlen(line));
  if (target[0] != '/') sbio__sdk_buf_add(&b, "/", 1);
  sbio__sdk_buf_add(&b, target, strlen(target));
  snprintf(line, sizeof line, " HTTP/1.1\r\nHost: %.*s\r\nUser-Agent: %.300s\r\n", (int)alen, authority, c->user_agent);
  sbio__sdk_buf_add(&b, line, strlen(line));
  for (size_t i = 0; i < c->n_headers + req->n_headers; i++) {
    const char *h = i < c->n_headers ? c->headers[i] : req->headers[i - c->n_headers];
    sbio__sdk_buf_add(&b, h, strlen(h));
    sbio__sdk_buf_add(&b, "\r\n", 2);
  }
  if (req->body) {
    snprintf(line, sizeof line, "Content-Type: %.200s\r\nContent-Length: %zu\r\n",
             req->content_type ? req->content_type : "application/json", req->body_len);
    sbio__sdk_buf_add(&b, line, strlen(line));
  }
  snprintf(line, sizeof line, "Connection: Upgrade\r\nUpgrade: %.200s\r\n\r\n", protocol);
  sbio__sdk_buf_add(&b, line, strlen(line));
  if (req->body) sbio__sdk_buf_add(&b, req->body, req->body_len);
  return sbio__sdk_buf_take(&b);
}

static int token_ok(const char *s) {
  if (!s || !*s) return 0;
  for (; *s; s++)
    if ((unsigned char)*s <= 0x20 || *s == 0x7f || *s == ',' || *s == ';') return 0;
  return 1;
}

/* Connects with the client's transport settings. 0, or -1 with resp. */
static int connect_only(sbio_sdk_http_conn *conn, const char *url, long left_ms, sbio_sdk_http_response *resp) {
  CURL *h = conn->h;
  curl_easy_setopt(h, CURLOPT_URL, url);
  sbio__http_transport_apply(conn->c, h, left_ms);
  curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, conn->errbuf);
  CURLcode rc = curl_easy_perform(h);
  if (rc == CURLE_OK) rc = curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &conn->fd);
  if (rc == CURLE_OK && conn->fd == CURL_SOCKET_BAD) rc = CURLE_COULDNT_CONNECT;
  if (rc == CURLE_OK) return 0;
  transport_fail(conn, rc, sbio__http_transport_outcome(rc, h, conn->c, left_ms), resp);
  return -1;
}

int sbio_sdk_http_upgrade(sbio_sdk_http *c, const sbio_sdk_http_request *req, const char *protocol,
                          const sbio_bk_call *call, sbio_sdk_http_conn **out, sbio_sdk_http_response *resp) {
  memset(resp, 0, sizeof *resp);
  resp->attempts = 1;
  if (out) *out = NULL;
  int rc = -1;
  sbio_sdk_http_conn *conn = NULL;
  char *url = NULL, *text = NULL, *head = NULL;
  long left_ms = call ? sbio__http_ms_left(call) : 0;
  if (!c || !req || !call || !out)
    fail(resp, SBIO_SDK_HTTP_BROKEN, "no client, request, call or connection pointer given");
  else if (req->read)
    fail(resp, SBIO_SDK_HTTP_BROKEN, "an upgrade request takes its body in memory, not through read()");
  else if (!token_ok(protocol) || !sbio__http_request_ok(req))
    fail(resp, SBIO_SDK_HTTP_BROKEN, "the upgrade protocol or a request header is not a single token or line");
  else if (call->cancelled && call->cancelled(call))
    fail(resp, SBIO_SDK_HTTP_CANCELLED, "cancelled");
  else if (left_ms == 0)
    fail(resp, SBIO_SDK_HTTP_TIMEOUT, "the deadline passed before the request was sent");
  else if (!(conn = calloc(1, sizeof *conn)) || !(conn->h = curl_easy_init()) ||
           !(url = sbio__http_url(c, req->path)) || !(text = request_text(c, req, url, protocol)))
    fail(resp, SBIO_SDK_HTTP_NOMEM, "out of memory");
  else {
    conn->c = c;
    conn->fd = CURL_SOCKET_BAD;
    size_t head_len = 0;
    rc = connect_only(conn, url, left_ms, resp);
    if (rc == 0) rc = send_all(conn, text, strlen(text), call, resp);
    if (rc == 0) rc = read_head(conn, call, &head, &head_len, resp);
    if (rc == 0) {
      const char *sp = strchr(head, ' ');
      resp->status = !strncmp(head, "HTTP/", 5) && sp ? strtol(sp + 1, NULL, 10) : 0;
      resp->headers = strdup(head);
      resp->headers_len = resp->headers ? strlen(resp->headers) : 0;
      if (resp->status < 100 || resp->status > 599) {
        fail_transfer(resp, SBIO_SDK_HTTP_BROKEN, "the answer to the upgrade is not HTTP");
        rc = -1;
      } else if (resp->status != 101 && (resp->status < 200 || resp->status >= 300)) {
        read_error_body(conn, head, call, resp);
      } else {
        resp->body = calloc(1, 1);
        *out = conn;
        conn = NULL;
      }
      if (rc == 0 && (!resp->headers || !resp->body)) {
        fail(resp, SBIO_SDK_HTTP_NOMEM, "out of memory");
        rc = -1;
        if (*out) {
          conn = *out;
          *out = NULL;
        }
      }
    }
  }
  if (!resp->body) resp->body = calloc(1, 1);
  if (text) sbio__sdk_wipe(text, strlen(text)); /* it carried the secret headers */
  free(text);
  free(url);
  free(head);
  sbio_sdk_http_conn_close(conn);
  return rc;
}
