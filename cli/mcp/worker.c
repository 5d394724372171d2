/* SPDX-License-Identifier: MIT */
/* The tool-call worker; see worker.h.
 *
 * Locking: `lock` guards the queue, `current` and each job's `cancelled`;
 * a job's `send_lock` orders its progress notifications before its
 * response (nothing about a request may follow its answer). Jobs are
 * reference-counted because the ticker may hold the running one while the
 * worker finishes it. */
#include "worker.h"

#include "holder.h"
#include "protocol.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TICK_S 1.0                 /* progress while a command runs */
#define PULL_REPORT_NS 250000000LL /* at most 4 create-progress notifications a second */

typedef struct mcp_job {
  struct mcp_job *next;
  atomic_int refs;
  mcp_session *session;
  mcp_channel *channel;
  char *id_json;        /* the request id, to answer with */
  char *id_key;         /* the same, to find it for a cancellation */
  char *token_json;     /* the progressToken, NULL when the client asked none */
  const mcp_tool *tool; /* NULL: a reset job (no session, no channel) */
  atomic_int *reset_if_zero;
  mj_doc *args; /* our own copy of params.arguments, NULL when absent */
  char version[16];
  int cancelled; /* under the worker's lock */
  sbio_cancel *cancel;
  pthread_mutex_t send_lock;
  int answered;           /* under send_lock: nothing more may be sent */
  long long progress_seq; /* under send_lock */
  int64_t started_ns, last_pull_ns;
} mcp_job;

struct mcp_worker {
  mcp_server *srv;
  pthread_mutex_t lock;
  pthread_cond_t cond;      /* the queue changed, or stop */
  pthread_cond_t tick_cond; /* stop, for the ticker */
  mcp_job *head, *tail;
  size_t queued;
  mcp_job *current;
  int stopping;
  pthread_t thread, ticker;
  int have_thread, have_ticker;
};

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ----------------------------------------------------------------- jobs */
/* A client's value (id, progress token, arguments) as JSON text: any value
 * the reader accepted fits, escaping included. */
static char *value_json(const mj_value *v) {
  mj_writer w;
  mj_w_init(&w, RPC_MAX_ECHO + 64);
  mj_w_value(&w, v);
  return mj_w_take(&w, NULL);
}

static void job_unref(mcp_job *j) {
  if (!j || atomic_fetch_sub(&j->refs, 1) != 1) return;
  mcp_channel_unref(j->channel);
  mcp_session_unref(j->session);
  free(j->id_json);
  free(j->id_key);
  free(j->token_json);
  mj_free(j->args);
  sbio_cancel_free(j->cancel);
  pthread_mutex_destroy(&j->send_lock);
  free(j);
}

/* The request is over for its channel (HTTP ends the stream after the last
 * one). Called once per job. */
static void job_done(mcp_job *j) {
  if (j->channel) j->channel->ops->request_done(j->channel);
  job_unref(j);
}

static mcp_job *job_new(mcp_session *s, mcp_channel *ch, const mj_value *id, const mcp_tool *tool, const mj_value *args,
                        const mj_value *token, const char *version) {
  mcp_job *j = calloc(1, sizeof *j);
  if (!j) return NULL;
  atomic_init(&j->refs, 1);
  pthread_mutex_init(&j->send_lock, NULL);
  j->tool = tool;
  snprintf(j->version, sizeof j->version, "%s", version);
  j->id_json = value_json(id);
  j->id_key = rpc_id_key(id);
  j->cancel = sbio_cancel_new();
  int ok = j->id_json && j->id_key && j->cancel;
  if (ok && token) ok = (j->token_json = value_json(token)) != NULL;
  if (ok && args) {
    char *text = value_json(args);
    mj_error err;
    ok = text && (j->args = mj_parse(text, strlen(text), RPC_MAX_DEPTH, &err)) != NULL;
    free(text);
  }
  mcp_session_ref(s);
  j->session = s;
  mcp_channel_ref(ch);
  j->channel = ch;
  if (!ok) {
    job_unref(j);
    return NULL;
  }
  return j;
}

/* ------------------------------------------------------------- progress */
/* One notifications/progress for the job, unless it has been answered.
 * `progress` counts notifications, so it always increases as the
 * specification requires; what happened is in the message. */
static void job_progress(mcp_job *j, const char *message) {
  if (!j->token_json) return;
  pthread_mutex_lock(&j->send_lock);
  if (!j->answered) {
    mj_writer w;
    mj_w_init(&w, 64 * 1024 + strlen(j->token_json));
    rpc_write_notification_begin(&w, "notifications/progress");
    mj_w_obj(&w);
    mj_w_key(&w, "progressToken");
    mj_w_raw(&w, j->token_json);
    mj_w_key(&w, "progress");
    mj_w_int(&w, ++j->progress_seq);
    /* `message` exists from revision 2025-03-26 on. */
    if (strcmp(j->version, "2025-03-26") >= 0) {
      mj_w_key(&w, "message");
      mj_w_str(&w, message);
    }
    mj_w_obj_end(&w);
    rpc_write_end(&w);
    size_t len;
    char *text = mj_w_take(&w, &len);
    if (text) j->channel->ops->send(j->channel, text, len);
    free(text);
  }
  pthread_mutex_unlock(&j->send_lock);
}

/* From a tool: a step of the call ("running python3", ...). */
static void tool_progress(void *user, const char *message) {
  job_progress(user, message);
}

/* From the library, on the worker's thread, while the sandbox is created:
 * an image pull. */
static void create_progress(const char *what, int64_t done, int64_t total, void *user) {
  mcp_worker *w = user;
  pthread_mutex_lock(&w->lock);
  mcp_job *j = w->current;
  if (j) atomic_fetch_add(&j->refs, 1);
  pthread_mutex_unlock(&w->lock);
  if (!j) return;
  int64_t t = now_ns();
  if (done == total || t - j->last_pull_ns >= PULL_REPORT_NS) {
    j->last_pull_ns = t;
    char message[256];
    if (total > 0)
      snprintf(message, sizeof message, "creating the sandbox: %s: %.1f of %.1f MB", what, (double)done / 1e6,
               (double)total / 1e6);
    else
      snprintf(message, sizeof message, "creating the sandbox: %s: %.1f MB", what, (double)done / 1e6);
    job_progress(j, message);
  }
  job_unref(j);
}

static double remaining_s(const struct timespec *until) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(until->tv_sec - now.tv_sec) + (double)(until->tv_nsec - now.tv_nsec) / 1e9;
}

/* Every TICK_S while a call with a progress token runs. */
static void *ticker_main(void *arg) {
  mcp_worker *w = arg;
  pthread_mutex_lock(&w->lock);
  while (!w->stopping) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)TICK_S;
    while (!w->stopping && remaining_s(&until) > 0)
      if (pthread_cond_timedwait(&w->tick_cond, &w->lock, &until) == ETIMEDOUT) break;
    if (w->stopping) break;
    mcp_job *j = w->current;
    if (!j || !j->tool || !j->token_json || j->cancelled) continue;
    atomic_fetch_add(&j->refs, 1);
    pthread_mutex_unlock(&w->lock);
    char message[160];
    double s = (double)(now_ns() - j->started_ns) / 1e9;
    snprintf(message, sizeof message, "%s: running for %.0f s", mcp_tool_name(j->tool), s);
    job_progress(j, message);
    job_unref(j);
    pthread_mutex_lock(&w->lock);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/* --------------------------------------------------------------- running */
static void send_response(mcp_job *j, mj_writer *result) {
  size_t len = 0;
  char *text = mj_w_take(result, &len);
  mj_writer e;
  if (!text) {
    /* Too large for MCP_MAX_OUTPUT (or out of memory): the client still
     * gets an answer to its request. */
    mj_w_init(&e, 4096 + strlen(j->id_json));
    mj_w_obj(&e);
    mj_w_key(&e, "jsonrpc");
    mj_w_str(&e, "2.0");
    mj_w_key(&e, "id");
    mj_w_raw(&e, j->id_json);
    mj_w_key(&e, "error");
    mj_w_raw(&e,
             "{\"code\":-32603,\"message\":\"Internal error: the result was too large to send or memory ran out\"}");
    mj_w_obj_end(&e);
    text = mj_w_take(&e, &len);
  }
  pthread_mutex_lock(&j->send_lock);
  j->answered = 1;
  if (text) j->channel->ops->send(j->channel, text, len);
  pthread_mutex_unlock(&j->send_lock);
  free(text);
}

static void run_job(mcp_worker *w, mcp_job *j) {
  if (!j->tool) {
    if (atomic_load(j->reset_if_zero) == 0) mcp_holder_reset(w->srv->holder);
    return;
  }
  mj_writer out;
  /* The result's bound, plus the id the client chose. */
  mj_w_init(&out, MCP_MAX_OUTPUT + strlen(j->id_json));
  mj_w_obj(&out);
  mj_w_key(&out, "jsonrpc");
  mj_w_str(&out, "2.0");
  mj_w_key(&out, "id");
  mj_w_raw(&out, j->id_json);
  mj_w_key(&out, "result");
  mcp_call call = {.holder = w->srv->holder,
                   .version = j->version,
                   .cancel = j->cancel,
                   .progress = j->token_json ? tool_progress : NULL,
                   .progress_user = j};
  mcp_tool_run(j->tool, j->args ? mj_root(j->args) : NULL, &call, &out);
  mj_w_obj_end(&out);
  pthread_mutex_lock(&w->lock);
  int cancelled = j->cancelled || w->stopping || atomic_load(&j->session->closed);
  pthread_mutex_unlock(&w->lock);
  /* A cancelled request gets no response (the specification: the
   * receiver SHOULD NOT answer it); nor does one the shutdown cut short
   * (the client is leaving, or the operator stopped the server). */
  cancelled = cancelled || mcp_holder_stopping(w->srv->holder);
  if (!cancelled)
    send_response(j, &out);
  else {
    pthread_mutex_lock(&j->send_lock);
    j->answered = 1;
    pthread_mutex_unlock(&j->send_lock);
    mj_w_free(&out);
  }
}

static void *worker_main(void *arg) {
  mcp_worker *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->head && !w->stopping) pthread_cond_wait(&w->cond, &w->lock);
    if (w->stopping) break;
    mcp_job *j = w->head;
    w->head = j->next;
    if (!w->head) w->tail = NULL;
    w->queued--;
    j->next = NULL;
    w->current = j;
    j->started_ns = now_ns();
    pthread_mutex_unlock(&w->lock);
    run_job(w, j);
    pthread_mutex_lock(&w->lock);
    w->current = NULL;
    pthread_mutex_unlock(&w->lock);
    job_done(j);
    pthread_mutex_lock(&w->lock);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

mcp_worker *mcp_worker_start(mcp_server *srv) {
  mcp_worker *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->srv = srv;
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->cond, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&w->tick_cond, &attr);
  pthread_condattr_destroy(&attr);
  mcp_holder_set_progress(srv->holder, create_progress, w);
  w->have_thread = pthread_create(&w->thread, NULL, worker_main, w) == 0;
  w->have_ticker = w->have_thread && pthread_create(&w->ticker, NULL, ticker_main, w) == 0;
  if (!w->have_ticker) {
    mcp_worker_stop(w);
    return NULL;
  }
  return w;
}

/* Appends j to the queue and wakes a thread. Refused, j released and 1
 * returned, when the worker is stopping or, if `bounded`, the queue is
 * full. */
static int enqueue(mcp_worker *w, mcp_job *j, int bounded) {
  pthread_mutex_lock(&w->lock);
  if ((bounded && w->queued >= MCP_QUEUE_MAX) || w->stopping) {
    pthread_mutex_unlock(&w->lock);
    job_unref(j);
    return 1;
  }
  if (w->tail)
    w->tail->next = j;
  else
    w->head = j;
  w->tail = j;
  w->queued++;
  pthread_cond_signal(&w->cond);
  pthread_mutex_unlock(&w->lock);
  return 0;
}

int mcp_worker_submit(mcp_worker *w, mcp_session *s, mcp_channel *ch, const mj_value *id, const mcp_tool *tool,
                      const mj_value *args, const mj_value *progress_token, const char *version) {
  mcp_job *j = job_new(s, ch, id, tool, args, progress_token, version);
  if (!j) return -1;
  return enqueue(w, j, 1);
}

int mcp_worker_submit_reset(mcp_worker *w, atomic_int *live_sessions) {
  mcp_job *j = calloc(1, sizeof *j);
  if (!j) return -1;
  atomic_init(&j->refs, 1);
  pthread_mutex_init(&j->send_lock, NULL);
  j->reset_if_zero = live_sessions;
  /* A full queue still takes it: it is how the sandbox gets destroyed. */
  return enqueue(w, j, 0) ? -1 : 0;
}

/* Under w->lock: removes the queued jobs matching (s, key) (key NULL: all
 * of s; s NULL: every job) into *out, and cancels a matching running one. */
static void take_matching(mcp_worker *w, mcp_session *s, const char *key, mcp_job **out) {
  mcp_job **p = &w->head;
  w->tail = NULL;
  while (*p) {
    mcp_job *j = *p;
    int match = (!s || j->session == s) && (!key || (j->id_key && strcmp(j->id_key, key) == 0));
    if (match) {
      *p = j->next;
      w->queued--;
      j->next = *out;
      *out = j;
    } else {
      w->tail = j;
      p = &j->next;
    }
  }
  mcp_job *c = w->current;
  if (c && c->tool && (!s || c->session == s) && (!key || strcmp(c->id_key, key) == 0)) {
    c->cancelled = 1;
    /* Kills the command and keeps the sandbox where the backend can
     * (tools.c only hands the token to such a backend). */
    sbio_cancel_request(c->cancel);
  }
}

static void drop_all(mcp_job *list) {
  while (list) {
    mcp_job *next = list->next;
    job_done(list);
    list = next;
  }
}

void mcp_worker_cancel(mcp_worker *w, mcp_session *s, const mj_value *id) {
  char *key = rpc_id_key(id);
  if (!key) return;
  mcp_job *dropped = NULL;
  pthread_mutex_lock(&w->lock);
  take_matching(w, s, key, &dropped);
  pthread_mutex_unlock(&w->lock);
  free(key);
  drop_all(dropped);
}

void mcp_worker_cancel_session(mcp_worker *w, mcp_session *s) {
  if (!w) return;
  mcp_job *dropped = NULL;
  pthread_mutex_lock(&w->lock);
  take_matching(w, s, NULL, &dropped);
  pthread_mutex_unlock(&w->lock);
  drop_all(dropped);
}

void mcp_worker_stop(mcp_worker *w) {
  if (!w) return;
  mcp_job *dropped = NULL;
  pthread_mutex_lock(&w->lock);
  w->stopping = 1;
  take_matching(w, NULL, NULL, &dropped);
  pthread_cond_broadcast(&w->cond);
  pthread_cond_broadcast(&w->tick_cond);
  pthread_mutex_unlock(&w->lock);
  drop_all(dropped);
  if (w->have_thread) pthread_join(w->thread, NULL);
  if (w->have_ticker) pthread_join(w->ticker, NULL);
  mcp_holder_set_progress(w->srv->holder, NULL, NULL);
  pthread_cond_destroy(&w->cond);
  pthread_cond_destroy(&w->tick_cond);
  pthread_mutex_destroy(&w->lock);
  free(w);
}
