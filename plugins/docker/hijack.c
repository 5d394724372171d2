/* SPDX-License-Identifier: MIT */
#include "hijack.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define HEAD_MAX 16384
#define SLICE_MS 100

static int cancelled(const sbio_bk_call *c) {
  return c && c->cancelled && c->cancelled(c);
}

int sbio__dk_hijack_send(dk_hijack *hj, const void *data, size_t len, size_t *n) {
  *n = 0;
  CURLcode rc = curl_easy_send(hj->h, data, len, n);
  if (rc == CURLE_AGAIN) return DK_IO_AGAIN;
  return rc == CURLE_OK ? DK_IO_OK : DK_IO_ERR;
}

int sbio__dk_hijack_recv(dk_hijack *hj, void *buf, size_t size, size_t *n) {
  *n = 0;
  if (hj->pending_len) {
    size_t k = hj->pending_len < size ? hj->pending_len : size;
    memcpy(buf, hj->pending, k);
    memmove(hj->pending, hj->pending + k, hj->pending_len - k);
    hj->pending_len -= k;
    *n = k;
    return DK_IO_OK;
  }
  CURLcode rc = curl_easy_recv(hj->h, buf, size, n);
  if (rc == CURLE_AGAIN) return DK_IO_AGAIN;
  if (rc != CURLE_OK) return DK_IO_ERR;
  return *n ? DK_IO_OK : DK_IO_EOF;
}

int sbio__dk_hijack_shutdown_write(dk_hijack *hj) {
  return shutdown(hj->fd, SHUT_WR);
}

int sbio__dk_hijack_wait(dk_hijack *hj, int want, int timeout_ms) {
  if (hj->pending_len && (want & DK_WAIT_READ)) return DK_WAIT_READ;
  struct pollfd p = {.fd = hj->fd,
                     .events = (short)(((want & DK_WAIT_READ) ? POLLIN : 0) | ((want & DK_WAIT_WRITE) ? POLLOUT : 0))};
  int r = poll(&p, 1, timeout_ms);
  if (r < 0) return errno == EINTR ? 0 : -1;
  if (r == 0) return 0;
  int ready = 0;
  if (p.revents & (POLLIN | POLLHUP | POLLERR)) ready |= DK_WAIT_READ;
  if (p.revents & (POLLOUT | POLLERR)) ready |= DK_WAIT_WRITE;
  return ready;
}

void sbio__dk_hijack_close(dk_hijack *hj) {
  if (hj->h) curl_easy_cleanup(hj->h); /* never pooled: a hijacked connection is not HTTP any more */
  free(hj->pending);
  memset(hj, 0, sizeof *hj);
  hj->fd = CURL_SOCKET_BAD;
}

/* Waits for readiness within the deadline, watching for cancellation. */
static int wait_until(dk_instance *inst, dk_hijack *hj, int want, int64_t deadline, const sbio_bk_call *cancel,
                      dk_http_resp *resp) {
  for (;;) {
    long ms = sbio__dk_ms_left(inst, deadline);
    if (ms == 0) {
      resp->timed_out = 1;
      resp->curl = CURLE_OPERATION_TIMEDOUT;
      snprintf(resp->error, sizeof resp->error, "timed out starting the exec");
      return -1;
    }
    if (cancelled(cancel)) {
      resp->cancelled = 1;
      resp->curl = CURLE_ABORTED_BY_CALLBACK;
      snprintf(resp->error, sizeof resp->error, "cancelled");
      return -1;
    }
    int r = sbio__dk_hijack_wait(hj, want, ms < SLICE_MS ? (int)ms : SLICE_MS);
    if (r < 0) {
      resp->curl = CURLE_RECV_ERROR;
      snprintf(resp->error, sizeof resp->error, "poll failed: %s", strerror(errno));
      return -1;
    }
    if (r) return 0;
  }
}

static int send_all(dk_instance *inst, dk_hijack *hj, const char *data, size_t len, int64_t deadline,
                    const sbio_bk_call *cancel, dk_http_resp *resp) {
  while (len) {
    size_t n = 0;
    int r = sbio__dk_hijack_send(hj, data, len, &n);
    if (r == DK_IO_ERR) {
      resp->curl = CURLE_SEND_ERROR;
      snprintf(resp->error, sizeof resp->error, "sending the exec start request failed");
      return -1;
    }
    if (r == DK_IO_AGAIN && wait_until(inst, hj, DK_WAIT_WRITE, deadline, cancel, resp) != 0) return -1;
    data += n;
    len -= n;
  }
  return 0;
}

/* Reads until the blank line ending the head; bytes past it are kept. */
static int read_head(dk_instance *inst, dk_hijack *hj, int64_t deadline, const sbio_bk_call *cancel, char *head,
                     size_t *head_len, dk_http_resp *resp) {
  size_t len = 0;
  for (;;) {
    size_t n = 0;
    int r = sbio__dk_hijack_recv(hj, head + len, HEAD_MAX - len, &n);
    if (r == DK_IO_AGAIN) {
      if (wait_until(inst, hj, DK_WAIT_READ, deadline, cancel, resp) != 0) return -1;
      continue;
    }
    if (r != DK_IO_OK) {
      resp->curl = CURLE_RECV_ERROR;
      snprintf(resp->error, sizeof resp->error, "the engine closed the connection before answering the exec start");
      return -1;
    }
    len += n;
    char *end = NULL;
    for (size_t i = 3; i < len && !end; i++)
      if (!memcmp(head + i - 3, "\r\n\r\n", 4)) end = head + i + 1;
    if (end) {
      *head_len = (size_t)(end - head);
      hj->pending_len = len - *head_len;
      if (hj->pending_len) {
        hj->pending = malloc(hj->pending_len);
        if (!hj->pending) return -1;
        memcpy(hj->pending, end, hj->pending_len);
      }
      return 0;
    }
    if (len == HEAD_MAX) {
      resp->curl = CURLE_WEIRD_SERVER_REPLY;
      snprintf(resp->error, sizeof resp->error, "the exec start answer has an oversized head");
      return -1;
    }
  }
}

static long content_length(const char *head, size_t len) {
  for (size_t i = 0; i + 16 < len; i++)
    if ((i == 0 || head[i - 1] == '\n') && !strncasecmp(head + i, "Content-Length:", 15))
      return strtol(head + i + 15, NULL, 10);
  return -1;
}

/* A refused start (404 no such exec, 409 not running): read its body. */
static void read_error_body(dk_instance *inst, dk_hijack *hj, const char *head, size_t head_len, int64_t deadline,
                            dk_http_resp *resp) {
  long want = content_length(head, head_len);
  size_t cap = 0;
  char buf[4096];
  while (want < 0 || (long)resp->len < want) {
    size_t n = 0;
    int r = sbio__dk_hijack_recv(hj, buf, sizeof buf, &n);
    if (r == DK_IO_OK) {
      if (sbio__dk_body_append(resp, &cap, buf, n) != 0 || resp->len >= 65536) break;
    } else if (r == DK_IO_AGAIN) {
      long ms = sbio__dk_ms_left(inst, deadline);
      if (ms == 0 || sbio__dk_hijack_wait(hj, DK_WAIT_READ, ms < 1000 ? (int)ms : 1000) <= 0) break;
    } else {
      break;
    }
  }
}

int sbio__dk_hijack_open(dk_instance *inst, const char *path, const char *json, int64_t deadline,
                         const sbio_bk_call *cancel, dk_hijack *hj, dk_http_resp *resp) {
  memset(resp, 0, sizeof *resp);
  memset(hj, 0, sizeof *hj);
  hj->fd = CURL_SOCKET_BAD;
  long ms = sbio__dk_ms_left(inst, deadline);
  if (ms == 0) {
    resp->timed_out = 1;
    resp->curl = CURLE_OPERATION_TIMEDOUT;
    snprintf(resp->error, sizeof resp->error, "deadline already passed");
    return -1;
  }
  hj->h = curl_easy_init();
  if (!hj->h) {
    resp->curl = CURLE_OUT_OF_MEMORY;
    snprintf(resp->error, sizeof resp->error, "out of memory");
    return -1;
  }
  char url[1024], errbuf[CURL_ERROR_SIZE] = "";
  sbio__dk_http_url(inst, "/", 0, url, sizeof url);
  sbio__dk_http_apply_endpoint(hj->h, &inst->endpoint);
  curl_easy_setopt(hj->h, CURLOPT_URL, url);
  curl_easy_setopt(hj->h, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(hj->h, CURLOPT_CONNECTTIMEOUT_MS, ms < 10000 ? ms : 10000L);
  curl_easy_setopt(hj->h, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode c = curl_easy_perform(hj->h);
  curl_easy_setopt(hj->h, CURLOPT_ERRORBUFFER, NULL);
  if (c == CURLE_OK) c = curl_easy_getinfo(hj->h, CURLINFO_ACTIVESOCKET, &hj->fd);
  if (c != CURLE_OK || hj->fd == CURL_SOCKET_BAD) {
    resp->curl = c != CURLE_OK ? (int)c : CURLE_COULDNT_CONNECT;
    resp->timed_out = c == CURLE_OPERATION_TIMEDOUT;
    sbio__dk_http_finish(inst, hj->h, NULL, c, errbuf, resp);
    sbio__dk_hijack_close(hj);
    return -1;
  }
  char host[600];
  /* Host header: what the engine sees; the unix socket ignores it. */
  snprintf(host, sizeof host, "%s", inst->endpoint.is_unix ? "localhost" : strstr(inst->endpoint.base_url, "//") + 2);
  size_t body_len = strlen(json);
  size_t cap = strlen(path) + strlen(host) + body_len + 512;
  char *request = malloc(cap);
  if (!request) {
    sbio__dk_hijack_close(hj);
    return -1;
  }
  int n = snprintf(request, cap,
                   "POST /v%s%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandboxio\r\nContent-Type: application/json\r\n"
                   "Content-Length: %zu\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n%s",
                   inst->api, path, host, body_len, json);
  char *head = malloc(HEAD_MAX);
  size_t head_len = 0;
  int rc = head && n > 0 && (size_t)n < cap ? 0 : -1;
  if (rc == 0) rc = send_all(inst, hj, request, (size_t)n, deadline, cancel, resp);
  if (rc == 0) rc = read_head(inst, hj, deadline, cancel, head, &head_len, resp);
  free(request);
  if (rc == 0) {
    const char *sp = memchr(head, ' ', head_len);
    resp->status = sp ? strtol(sp + 1, NULL, 10) : 0;
    if (resp->status != 101 && resp->status != 200) {
      read_error_body(inst, hj, head, head_len, deadline, resp);
      rc = -1;
      if (resp->status == 0) {
        resp->curl = CURLE_WEIRD_SERVER_REPLY;
        snprintf(resp->error, sizeof resp->error, "the exec start answer is not HTTP");
      }
    }
  }
  free(head);
  if (rc != 0) sbio__dk_hijack_close(hj);
  return rc;
}
