/* SPDX-License-Identifier: MIT */
/* Pull-style response bodies: the reader asks for the next piece, the
 * transfer runs (libcurl multi, on a pooled connection) until some bytes
 * are there. The write callback pauses the transfer once a window is
 * buffered, so memory stays bounded whatever the size of the body. */
#include "http_internal.h"

#include <sandboxio/sdk/http_stream.h>
#include <stdlib.h>
#include <string.h>

#define STREAM_WINDOW ((size_t)256 * 1024)

struct sbio_sdk_http_stream {
  http_xfer x;
  sbio_sdk_http_request req; /* a copy: the caller's may go away after open */
  const sbio_bk_call *call;
  sbio_sdk_http_response *resp;
  int unrepeatable;
  char *buf;
  size_t len, cap;
  int paused;
  int ended;     /* the transfer finished, or was abandoned, and x was ended */
  int failed;    /* ... and not with a complete body */
  int delivered; /* buf went to the reader: dropped on the next read */
  int at_head;   /* open returns once a 2xx head is complete (open_at_head) */
  CURLcode rc;
  int outcome;
};

static long status_of(const sbio_sdk_http_stream *s) {
  long status = 0;
  curl_easy_getinfo(s->x.easy, CURLINFO_RESPONSE_CODE, &status);
  return status;
}

static size_t on_chunk(char *data, size_t size, size_t n, void *user) {
  sbio_sdk_http_stream *s = user;
  size_t len = size * n;
  long status = status_of(s);
  if (status < 200 || status >= 300) return sbio__http_on_body(data, size, n, &s->x); /* an error answer, kept whole */
  if (s->len >= STREAM_WINDOW) {
    s->paused = 1;
    return CURL_WRITEFUNC_PAUSE; /* libcurl keeps this chunk and offers it again after the pause */
  }
  if (s->len + len > s->cap) {
    size_t cap = s->cap ? s->cap : 64 * 1024;
    while (cap < s->len + len) cap *= 2;
    char *grown = realloc(s->buf, cap);
    if (!grown) {
      s->x.nomem = 1;
      return len ? 0 : 1;
    }
    s->buf = grown;
    s->cap = cap;
  }
  memcpy(s->buf + s->len, data, len);
  s->len += len;
  return len;
}

/* The transfer is over: the connection goes back to the pool at once and
 * what the end says is recorded. `into` receives status, headers and body
 * (open, for an error answer); otherwise only the outcome is kept. */
static void end(sbio_sdk_http_stream *s, sbio_sdk_http_response *into) {
  sbio_sdk_http_response tmp;
  memset(&tmp, 0, sizeof tmp);
  sbio_sdk_http_response *r = into ? into : &tmp;
  sbio__http_end(&s->x, s->rc, s->outcome, r);
  s->ended = 1;
  s->failed = r->outcome != SBIO_SDK_HTTP_ANSWERED;
  if (!into) {
    s->resp->outcome = tmp.outcome;
    s->resp->tls_failure = tmp.tls_failure;
    snprintf(s->resp->error, sizeof s->resp->error, "%s", tmp.error);
    sbio_sdk_http_response_free(&tmp);
  }
}

/* Runs the transfer until it has bytes for the reader or is over. */
static void pump(sbio_sdk_http_stream *s) {
  http_slot *slot = s->x.slot;
  while (!s->ended && s->len == 0 && !(s->at_head && s->x.head_done)) {
    int running = 0;
    if (curl_multi_perform(slot->multi, &running) != CURLM_OK) {
      s->rc = CURLE_RECV_ERROR;
      return;
    }
    int left = 0;
    for (CURLMsg *msg; (msg = curl_multi_info_read(slot->multi, &left));)
      if (msg->msg == CURLMSG_DONE) {
        s->rc = msg->data.result;
        running = 0;
      }
    if (!running && s->rc == CURLE_AGAIN) s->rc = CURLE_RECV_ERROR; /* over without a result: say so */
    if (!running || s->len || (s->at_head && s->x.head_done)) return;
    if (s->call->cancelled && s->call->cancelled(s->call)) {
      s->outcome = SBIO_SDK_HTTP_CANCELLED;
      s->rc = CURLE_ABORTED_BY_CALLBACK;
      return;
    }
    long ms = sbio__http_ms_left(s->call);
    if (ms == 0) {
      s->outcome = SBIO_SDK_HTTP_TIMEOUT;
      s->rc = CURLE_OPERATION_TIMEDOUT;
      return;
    }
    curl_multi_poll(slot->multi, NULL, 0, ms < SBIO_SDK_HTTP_POLL_MS ? (int)ms : SBIO_SDK_HTTP_POLL_MS, NULL);
  }
}

/* pump() stopped: is the transfer over? */
static int over(const sbio_sdk_http_stream *s) {
  return s->rc != CURLE_AGAIN;
}

static void stop_transfer(sbio_sdk_http_stream *s) {
  curl_multi_remove_handle(s->x.slot->multi, s->x.easy);
}

static int stream_open(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                       sbio_sdk_http_stream **stream, sbio_sdk_http_response *resp, int at_head) {
  memset(resp, 0, sizeof *resp);
  if (stream) *stream = NULL;
  if (!c || !req || !call || !stream) {
    resp->outcome = SBIO_SDK_HTTP_BROKEN;
    snprintf(resp->error, sizeof resp->error, "no %s given",
             !c      ? "client"
             : !req  ? "request"
             : !call ? "call (deadline)"
                     : "stream");
    resp->body = calloc(1, 1);
    return -1;
  }
  sbio_sdk_http_stream *s = calloc(1, sizeof *s);
  if (!s) {
    resp->outcome = SBIO_SDK_HTTP_NOMEM;
    snprintf(resp->error, sizeof resp->error, "out of memory");
    resp->body = calloc(1, 1);
    return -1;
  }
  s->req = *req;
  s->req.sink = NULL;
  s->call = call;
  s->resp = resp;
  s->at_head = at_head;
  s->outcome = SBIO_SDK_HTTP_ANSWERED;
  s->rc = CURLE_AGAIN; /* "still running" until the transfer says otherwise */
  resp->attempts = 1;
  if (sbio__http_begin(&s->x, c, &s->req, call, &s->unrepeatable, resp) != 0) {
    free(s);
    return -1;
  }
  curl_easy_setopt(s->x.easy, CURLOPT_WRITEFUNCTION, on_chunk);
  curl_easy_setopt(s->x.easy, CURLOPT_WRITEDATA, s);
  if (curl_multi_add_handle(s->x.slot->multi, s->x.easy) != CURLM_OK) s->rc = CURLE_FAILED_INIT;
  if (!over(s)) pump(s);
  long status = status_of(s);
  if (over(s) || status < 200 || status >= 300) {
    /* Over before any byte of a 2xx body arrived, or an error answer
     * (read to its end by pump: its body never fills the window). */
    if (!over(s)) s->rc = CURLE_OK;
    stop_transfer(s);
    end(s, resp);
    int answered = resp->outcome == SBIO_SDK_HTTP_ANSWERED;
    if (answered && status >= 200 && status < 300) {
      *stream = s; /* an empty (or complete, tiny) body: read() says where it ends */
      return 0;
    }
    free(s->buf);
    free(s);
    return answered ? 0 : -1;
  }
  /* A 2xx with its first bytes (or, at_head, its complete head): the
   * headers are complete. From here on reads wait for bytes. */
  s->at_head = 0;
  resp->status = status;
  resp->headers = strdup(s->x.headers.data ? s->x.headers.data : "");
  resp->headers_len = resp->headers ? strlen(resp->headers) : 0;
  resp->body = calloc(1, 1);
  if (!resp->headers || !resp->body) {
    stop_transfer(s);
    s->outcome = SBIO_SDK_HTTP_NOMEM;
    end(s, NULL);
    sbio_sdk_http_stream_close(s);
    return -1;
  }
  *stream = s;
  return 0;
}

int sbio_sdk_http_stream_open(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                              sbio_sdk_http_stream **stream, sbio_sdk_http_response *resp) {
  return stream_open(c, req, call, stream, resp, 0);
}

int sbio_sdk_http_stream_open_at_head(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                                      sbio_sdk_http_stream **stream, sbio_sdk_http_response *resp) {
  return stream_open(c, req, call, stream, resp, 1);
}

long sbio_sdk_http_stream_read(sbio_sdk_http_stream *s, const void **data) {
  if (!s) return -1;
  if (s->delivered) s->len = 0; /* the reader is done with the previous piece */
  s->delivered = 0;
  if (!s->ended && s->paused) {
    s->paused = 0;
    curl_easy_pause(s->x.easy, CURLPAUSE_CONT); /* may hand over the held chunk right here */
  }
  if (!s->ended) {
    pump(s);
    if (over(s)) {
      stop_transfer(s);
      end(s, NULL);
    }
  }
  if (s->len && !(s->ended && s->failed)) {
    s->delivered = 1;
    *data = s->buf;
    return (long)s->len;
  }
  return s->ended && s->failed ? -1 : 0;
}

void sbio_sdk_http_stream_close(sbio_sdk_http_stream *s) {
  if (!s) return;
  if (!s->ended) {
    /* Left in the middle of the body: removing the handle makes libcurl
     * close that connection instead of reusing it. */
    stop_transfer(s);
    s->outcome = SBIO_SDK_HTTP_STOPPED;
    sbio_sdk_http_response tmp;
    memset(&tmp, 0, sizeof tmp);
    sbio__http_end(&s->x, CURLE_WRITE_ERROR, s->outcome, &tmp);
    sbio_sdk_http_response_free(&tmp);
  }
  free(s->buf);
  free(s);
}
