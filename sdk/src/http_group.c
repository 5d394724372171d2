/* SPDX-License-Identifier: MIT */
/* Groups of transfers driven together by one libcurl multi handle: the
 * multi handle of a pooled slot, whose connection cache the transfers
 * share. A single request (sbio__http_attempt) is a group of one. */
#include "http_internal.h"

#include <sandboxio/sdk/http_group.h>

#include <stdlib.h>
#include <string.h>

#define SPARE_EASY_MAX 4

struct sbio_sdk_http_transfer {
  sbio_sdk_http_transfer *next;
  http_xfer x;
  CURL *easy;
  int running, done, sink_used, owned;
  sbio_sdk_http_response resp;
};

struct sbio_sdk_http_group {
  sbio_sdk_http *c;
  const sbio_bk_call *call;
  http_slot *slot;
  int slot_easy_busy;
  sbio_sdk_http_transfer *list;
  CURL *spare[SPARE_EASY_MAX];
  size_t n_spare;
};

/* ------------------------------------------------------ easy handles */
/* The slot's own handle first (it carries TLS session state from earlier
 * requests), then a spare one, then a new one. */
static CURL *easy_take(sbio_sdk_http_group *g) {
  if (!g->slot_easy_busy) {
    g->slot_easy_busy = 1;
    return g->slot->easy;
  }
  if (g->n_spare) return g->spare[--g->n_spare];
  return curl_easy_init();
}

static void easy_give(sbio_sdk_http_group *g, CURL *easy) {
  if (!easy) return;
  if (easy == g->slot->easy)
    g->slot_easy_busy = 0;
  else if (g->n_spare < SPARE_EASY_MAX)
    g->spare[g->n_spare++] = easy;
  else
    curl_easy_cleanup(easy);
}

/* ------------------------------------------------------------ groups */
static int group_init(sbio_sdk_http_group *g, sbio_sdk_http *c, const sbio_bk_call *call) {
  memset(g, 0, sizeof *g);
  g->c = c;
  g->call = call;
  g->slot = sbio__http_slot_take(c);
  return g->slot ? 0 : -1;
}

/* Ends a running transfer: how it went (rc), or why it was abandoned. */
static void finish(sbio_sdk_http_group *g, sbio_sdk_http_transfer *t, CURLcode rc, int outcome) {
  if (!t->running) return;
  curl_multi_remove_handle(g->slot->multi, t->easy);
  sbio__http_xfer_end(&t->x, rc, outcome, &t->resp);
  easy_give(g, t->easy);
  t->easy = NULL;
  t->running = 0;
  t->done = 1;
}

static void abandon_all(sbio_sdk_http_group *g, CURLcode rc, int outcome) {
  for (sbio_sdk_http_transfer *t = g->list; t; t = t->next) finish(g, t, rc, outcome);
}

static void transfer_release(sbio_sdk_http_group *g, sbio_sdk_http_transfer *t) {
  finish(g, t, CURLE_ABORTED_BY_CALLBACK, SBIO_SDK_HTTP_CANCELLED);
  easy_give(g, t->easy); /* one that never started */
  t->easy = NULL;
  sbio_sdk_http_response_free(&t->resp);
}

static void group_fini(sbio_sdk_http_group *g) {
  while (g->list) {
    sbio_sdk_http_transfer *t = g->list;
    g->list = t->next;
    transfer_release(g, t);
    if (t->owned) free(t);
  }
  for (size_t i = 0; i < g->n_spare; i++) curl_easy_cleanup(g->spare[i]);
  g->n_spare = 0;
  if (g->slot) sbio__http_slot_give(g->c, g->slot); /* with the connections it holds */
  g->slot = NULL;
}

/* Starts `req` in caller-provided storage, linked into the group. */
static void transfer_start(sbio_sdk_http_group *g, sbio_sdk_http_transfer *t, const sbio_sdk_http_request *req,
                           int *sink_used) {
  t->next = g->list;
  g->list = t;
  t->done = 1; /* until it runs */
  t->easy = easy_take(g);
  if (!t->easy) {
    t->resp.outcome = SBIO_SDK_HTTP_NOMEM;
    snprintf(t->resp.error, sizeof t->resp.error, "out of memory");
    t->resp.body = calloc(1, 1);
    return;
  }
  if (sbio__http_xfer_begin(&t->x, g->c, t->easy, req, g->call, sink_used, &t->resp) != 0) {
    easy_give(g, t->easy);
    t->easy = NULL;
    return;
  }
  if (curl_multi_add_handle(g->slot->multi, t->easy) != CURLM_OK) {
    sbio__http_xfer_end(&t->x, CURLE_FAILED_INIT, SBIO_SDK_HTTP_BROKEN, &t->resp);
    snprintf(t->resp.error, sizeof t->resp.error, "libcurl would not start the transfer");
    easy_give(g, t->easy);
    t->easy = NULL;
    return;
  }
  t->done = 0;
  t->running = 1;
}

/* Collects the transfers libcurl finished; returns how many. */
static int collect(sbio_sdk_http_group *g) {
  int finished = 0, left = 0;
  for (CURLMsg *msg; (msg = curl_multi_info_read(g->slot->multi, &left));) {
    if (msg->msg != CURLMSG_DONE) continue;
    for (sbio_sdk_http_transfer *t = g->list; t; t = t->next)
      if (t->running && t->easy == msg->easy_handle) {
        finish(g, t, msg->data.result, SBIO_SDK_HTTP_ANSWERED);
        finished++;
        break;
      }
  }
  return finished;
}

static int running_count(const sbio_sdk_http_group *g) {
  int n = 0;
  for (const sbio_sdk_http_transfer *t = g->list; t; t = t->next) n += t->running;
  return n;
}

static int group_wait(sbio_sdk_http_group *g, long wait_ms) {
  int64_t until = sbio__sdk_now_ns(g->call) + (int64_t)(wait_ms > 0 ? wait_ms : 0) * 1000000;
  for (;;) {
    int still = 0;
    if (curl_multi_perform(g->slot->multi, &still) != CURLM_OK) {
      abandon_all(g, CURLE_FAILED_INIT, SBIO_SDK_HTTP_BROKEN);
      return -1;
    }
    int finished = collect(g);
    int running = running_count(g);
    if (!running) return 0;
    if (g->call->cancelled && g->call->cancelled(g->call)) {
      abandon_all(g, CURLE_ABORTED_BY_CALLBACK, SBIO_SDK_HTTP_CANCELLED);
      return 0;
    }
    if (sbio__http_ms_left(g->call) == 0) {
      abandon_all(g, CURLE_OPERATION_TIMEDOUT, SBIO_SDK_HTTP_TIMEOUT);
      return 0;
    }
    int64_t left_ns = until - sbio__sdk_now_ns(g->call);
    if (finished || left_ns <= 0) return running;
    long slice = left_ns / 1000000 < SBIO_SDK_HTTP_POLL_MS ? (long)(left_ns / 1000000) : SBIO_SDK_HTTP_POLL_MS;
    curl_multi_poll(g->slot->multi, NULL, 0, (int)(slice > 0 ? slice : 1), NULL);
  }
}

/* ------------------------------------------------------- single requests */
void sbio__http_attempt(sbio_sdk_http *c, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                        sbio_sdk_http_response *resp, int *sink_used) {
  sbio_sdk_http_group g;
  sbio_sdk_http_transfer t;
  memset(&t, 0, sizeof t);
  if (group_init(&g, c, call) != 0) {
    memset(resp, 0, sizeof *resp);
    resp->outcome = SBIO_SDK_HTTP_NOMEM;
    resp->not_sent = 1;
    snprintf(resp->error, sizeof resp->error, "out of memory");
    resp->body = calloc(1, 1);
    return;
  }
  int attempts = resp->attempts;
  transfer_start(&g, &t, req, sink_used);
  while (!t.done)
    if (group_wait(&g, SBIO_SDK_HTTP_POLL_MS) < 0) break;
  *resp = t.resp;
  resp->attempts = attempts;
  memset(&t.resp, 0, sizeof t.resp); /* handed over */
  group_fini(&g);
}

/* ----------------------------------------------------------- the API */
int sbio_sdk_http_group_new(sbio_sdk_http *client, const sbio_bk_call *call, sbio_sdk_http_group **out,
                            sbio_bk_error *err) {
  *out = NULL;
  if (!client || !call)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "an HTTP group needs a client and a call");
  sbio_sdk_http_group *g = malloc(sizeof *g);
  if (!g || group_init(g, client, call) != 0) {
    free(g);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory starting HTTP transfers");
  }
  *out = g;
  return SBIO_OK;
}

void sbio_sdk_http_group_free(sbio_sdk_http_group *g) {
  if (!g) return;
  group_fini(g);
  free(g);
}

sbio_sdk_http_transfer *sbio_sdk_http_group_start(sbio_sdk_http_group *g, const sbio_sdk_http_request *req) {
  if (!g || !req) return NULL;
  sbio_sdk_http_transfer *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->owned = 1;
  t->resp.attempts = 1;
  transfer_start(g, t, req, &t->sink_used);
  t->resp.attempts = 1;
  return t;
}

int sbio_sdk_http_group_wait(sbio_sdk_http_group *g, long wait_ms) {
  return g ? group_wait(g, wait_ms) : -1;
}

int sbio_sdk_http_transfer_done(const sbio_sdk_http_transfer *t) {
  return !t || t->done;
}

const sbio_sdk_http_response *sbio_sdk_http_transfer_response(const sbio_sdk_http_transfer *t) {
  return t ? &t->resp : NULL;
}

void sbio_sdk_http_transfer_free(sbio_sdk_http_group *g, sbio_sdk_http_transfer *t) {
  if (!g || !t) return;
  for (sbio_sdk_http_transfer **p = &g->list; *p; p = &(*p)->next)
    if (*p == t) {
      *p = t->next;
      transfer_release(g, t);
      if (t->owned) free(t);
      return;
    }
}
