/* SPDX-License-Identifier: MIT */
/* Pull-style response bodies: libarchive asks for the next block, we run
 * libcurl (multi interface) until some bytes are there. The write callback
 * pauses the transfer once a window is buffered, so memory stays bounded
 * whatever the size of the file. */
#include "http.h"

#include <stdlib.h>
#include <string.h>

#define WINDOW ((size_t)256 * 1024)
#define POLL_SLICE_MS 100

struct dk_stream {
  dk_instance *inst;
  dk_http_req req;
  dk_http_resp *resp;
  dk_xfer x;
  CURL *easy;
  CURLM *multi;
  struct curl_slist *headers;
  char errbuf[CURL_ERROR_SIZE];
  char *buf;
  size_t len, cap;
  int paused, done, failed;
  int delivered;  /* buf was handed to the reader: drop it on the next read */
  int error_body; /* the status is not 2xx: collect the error message */
};

static size_t on_chunk(char *data, size_t size, size_t n, void *user) {
  dk_stream *s = user;
  size_t len = size * n;
  if (s->resp->status < 200 || s->resp->status >= 300) {
    s->error_body = 1;
    return sbio__dk_body_append(s->resp, &s->x.cap, data, len) == 0 ? len : 0;
  }
  if (s->len >= WINDOW) {
    s->paused = 1;
    return CURL_WRITEFUNC_PAUSE; /* libcurl keeps this chunk and hands it over again */
  }
  if (s->len + len > s->cap) {
    size_t ncap = s->cap ? s->cap : 64 * 1024;
    while (ncap < s->len + len) ncap *= 2;
    char *p = realloc(s->buf, ncap);
    if (!p) return 0;
    s->buf = p;
    s->cap = ncap;
  }
  memcpy(s->buf + s->len, data, len);
  s->len += len;
  return len;
}

/* Drives the transfer until it has data, ends, or fails. */
static void pump(dk_stream *s) {
  while (!s->done && s->len == 0 && !s->error_body) {
    int running = 0;
    CURLMcode mc = curl_multi_perform(s->multi, &running);
    int msgs = 0;
    CURLMsg *m;
    while ((m = curl_multi_info_read(s->multi, &msgs))) {
      if (m->msg != CURLMSG_DONE) continue;
      s->done = 1;
      sbio__dk_http_finish(s->inst, s->easy, &s->req, m->data.result, s->errbuf, s->resp);
      if (m->data.result != CURLE_OK) s->failed = 1;
    }
    if (mc != CURLM_OK && !s->done) {
      s->done = s->failed = 1;
      s->resp->curl = CURLE_RECV_ERROR;
      snprintf(s->resp->error, sizeof s->resp->error, "%s", curl_multi_strerror(mc));
    }
    if (s->done || s->len || s->error_body) break;
    long ms = sbio__dk_ms_left(s->inst, s->req.deadline);
    if (ms == 0) {
      s->done = s->failed = 1;
      s->resp->timed_out = 1;
      s->resp->curl = CURLE_OPERATION_TIMEDOUT;
      snprintf(s->resp->error, sizeof s->resp->error, "timed out reading the response");
      break;
    }
    if (s->req.cancel && s->req.cancel->cancelled && s->req.cancel->cancelled(s->req.cancel)) {
      s->done = s->failed = 1;
      s->resp->cancelled = 1;
      snprintf(s->resp->error, sizeof s->resp->error, "cancelled");
      break;
    }
    curl_multi_poll(s->multi, NULL, 0, ms < POLL_SLICE_MS ? (int)ms : POLL_SLICE_MS, NULL);
  }
}

int sbio__dk_stream_open(dk_instance *inst, const dk_http_req *req, dk_stream **out, dk_http_resp *resp) {
  memset(resp, 0, sizeof *resp);
  *out = NULL;
  dk_stream *s = calloc(1, sizeof *s);
  if (!s) return -1;
  s->inst = inst;
  s->req = *req;
  s->resp = resp;
  s->x = (dk_xfer){.inst = inst, .req = &s->req, .resp = resp};
  s->easy = sbio__dk_pool_take(inst);
  s->multi = curl_multi_init();
  int rc = s->easy && s->multi ? 0 : -1;
  if (rc != 0) snprintf(resp->error, sizeof resp->error, "out of memory");
  if (rc == 0) rc = sbio__dk_http_setup(inst, s->easy, &s->req, &s->x, &s->headers, resp);
  if (rc == 0) {
    curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_chunk);
    curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(s->easy, CURLOPT_ERRORBUFFER, s->errbuf);
    rc = curl_multi_add_handle(s->multi, s->easy) == CURLM_OK ? 0 : -1;
  }
  if (rc == 0) {
    pump(s);
    /* An error answer is read to its end so its message can be shown. */
    while (s->error_body && !s->done) {
      s->error_body = 0;
      pump(s);
      s->error_body = 1;
    }
    if (s->failed)
      rc = -1;
    else if (resp->status < 200 || resp->status >= 300) {
      long code = 0;
      curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &code);
      if (code) resp->status = code;
    }
  }
  if (rc != 0 || resp->status < 200 || resp->status >= 300) {
    sbio__dk_stream_close(s);
    return rc;
  }
  *out = s;
  return 0;
}

long sbio__dk_stream_read(dk_stream *s, const void **data) {
  if (s->delivered) s->len = 0; /* the reader is done with the previous chunk */
  s->delivered = 0;
  if (s->paused) {
    s->paused = 0;
    curl_easy_pause(s->easy, CURLPAUSE_CONT); /* may deliver the held chunk right here */
  }
  pump(s);
  if (s->len) {
    s->delivered = 1;
    *data = s->buf;
    return (long)s->len;
  }
  return s->failed ? -1 : 0;
}

void sbio__dk_stream_close(dk_stream *s) {
  if (!s) return;
  if (s->multi && s->easy) curl_multi_remove_handle(s->multi, s->easy);
  if (s->multi) curl_multi_cleanup(s->multi);
  /* Closed mid-body the connection cannot be reused. */
  if (s->easy && s->done && !s->failed) {
    curl_easy_setopt(s->easy, CURLOPT_ERRORBUFFER, NULL);
    sbio__dk_pool_give(s->inst, s->easy);
  } else if (s->easy) {
    curl_easy_cleanup(s->easy);
  }
  curl_slist_free_all(s->headers);
  free(s->buf);
  free(s);
}
