/* SPDX-License-Identifier: MIT */
#include "otlp_export.h"

#include "clock.h"
#include "curl_load.h"
#include "otlp_json.h"

#include <errno.h>
#include <pthread.h>
#include <sandboxio/sandboxio.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JOIN_GRACE_NS 500000000LL /* past the flush deadline, for curl to notice the abort */

struct sbio__exporter {
  pthread_mutex_t lock;
  pthread_cond_t wake; /* the thread: spans queued, or stop */
  sbio__trace_settings s;
  const sbio__curl_api *cu; /* libcurl, loaded when the exporter is made */
  struct curl_slist *headers;
  CURL *curl; /* the thread's; reused so requests share a connection */
  cJSON **ring;
  size_t head, count; /* ring[head] is the oldest */
  int started, start_failed;
  atomic_int stopping;
  _Atomic int64_t deadline_ns; /* monotonic; set when stopping */
  int refs;                    /* the owner and, once started, the thread */
  pthread_t thread;
  sbio__export_stats stats;
  int failing, failure_reported;
};

static void exporter_free(sbio__exporter *e) {
  for (size_t i = 0; i < e->count; i++) cJSON_Delete(e->ring[(e->head + i) % e->s.max_queue]);
  free(e->ring);
  if (e->curl) e->cu->easy_cleanup(e->curl);
  if (e->headers) e->cu->slist_free_all(e->headers);
  sbio__trace_settings_free(&e->s);
  pthread_cond_destroy(&e->wake);
  pthread_mutex_destroy(&e->lock);
  free(e);
}

static struct curl_slist *build_headers(const sbio__curl_api *cu, const sbio__trace_settings *s) {
  struct curl_slist *list = cu->slist_append(NULL, "Content-Type: application/json");
  /* No "Expect: 100-continue" round trip before a large batch. */
  struct curl_slist *no_expect = list ? cu->slist_append(list, "Expect:") : NULL;
  if (!no_expect) {
    if (list) cu->slist_free_all(list);
    return NULL;
  }
  list = no_expect;
  for (size_t i = 0; list && i < s->headers.n; i++) {
    size_t n = strlen(s->headers.keys[i]) + strlen(s->headers.values[i]) + 3;
    char *line = malloc(n);
    struct curl_slist *grown = NULL;
    if (line) {
      snprintf(line, n, "%s: %s", s->headers.keys[i], s->headers.values[i]);
      grown = cu->slist_append(list, line);
      free(line);
    }
    if (!grown) {
      cu->slist_free_all(list);
      return NULL;
    }
    list = grown;
  }
  return list;
}

sbio__exporter *sbio__exporter_new(sbio__trace_settings *s, char *why, size_t why_size) {
  const sbio__curl_api *cu = sbio__curl(why, why_size);
  if (!cu) return NULL;
  sbio__exporter *e = calloc(1, sizeof *e);
  if (!e) {
    snprintf(why, why_size, "out of memory");
    return NULL;
  }
  e->cu = cu;
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&e->wake, &attr);
  pthread_condattr_destroy(&attr);
  pthread_mutex_init(&e->lock, NULL);
  e->s = *s;
  memset(s, 0, sizeof *s);
  e->refs = 1;
  atomic_init(&e->stopping, 0);
  atomic_init(&e->deadline_ns, INT64_MAX);
  e->ring = calloc(e->s.max_queue, sizeof *e->ring);
  e->headers = build_headers(cu, &e->s);
  if (!e->ring || !e->headers) {
    snprintf(why, why_size, "out of memory");
    exporter_free(e);
    return NULL;
  }
  return e;
}

/* ------------------------------------------------------------ requests */

static size_t discard_body(char *data, size_t size, size_t nmemb, void *user) {
  (void)data, (void)user;
  return size * nmemb;
}

/* Aborts a transfer that would outlive the flush at host close. */
static int check_abort(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
  (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
  sbio__exporter *e = user;
  return atomic_load(&e->stopping) && sbio__monotonic_ns() > atomic_load(&e->deadline_ns);
}

static int prepare_curl(sbio__exporter *e) {
  if (e->curl) return 0;
  const sbio__curl_api *cu = e->cu;
  if (!(e->curl = cu->easy_init())) return -1;
  CURL *c = e->curl;
  cu->easy_setopt(c, CURLOPT_URL, e->s.url);
  cu->easy_setopt(c, CURLOPT_HTTPHEADER, e->headers);
  cu->easy_setopt(c, CURLOPT_USERAGENT, "sandboxio/" SBIO_VERSION_STRING);
  cu->easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* no SIGALRM in someone else's process */
  cu->easy_setopt(c, CURLOPT_TIMEOUT_MS, e->s.timeout_ms);
  cu->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, e->s.timeout_ms);
  cu->easy_setopt(c, CURLOPT_WRITEFUNCTION, discard_body);
  cu->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  cu->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, check_abort);
  cu->easy_setopt(c, CURLOPT_XFERINFODATA, e);
#if LIBCURL_VERSION_NUM >= 0x075500
  cu->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
  return 0;
}

/* POSTs one batch. Returns 0, or -1 with the reason (no header values:
 * they may be credentials). */
static int post_batch(sbio__exporter *e, cJSON *const *spans, size_t n, char *why, size_t size) {
  if (prepare_curl(e) != 0) {
    snprintf(why, size, "libcurl could not be initialised");
    return -1;
  }
  char *body = sbio__otlp_request(spans, n, e->s.service_name, &e->s.resource);
  if (!body) {
    snprintf(why, size, "out of memory encoding %zu spans", n);
    return -1;
  }
  const sbio__curl_api *cu = e->cu;
  char curl_error[CURL_ERROR_SIZE] = "";
  cu->easy_setopt(e->curl, CURLOPT_ERRORBUFFER, curl_error);
  cu->easy_setopt(e->curl, CURLOPT_POSTFIELDS, body);
  cu->easy_setopt(e->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
  CURLcode res = cu->easy_perform(e->curl);
  long status = 0;
  cu->easy_getinfo(e->curl, CURLINFO_RESPONSE_CODE, &status);
  cu->easy_setopt(e->curl, CURLOPT_ERRORBUFFER, NULL);
  cu->easy_setopt(e->curl, CURLOPT_POSTFIELDS, NULL);
  cJSON_free(body);
  if (res != CURLE_OK) {
    snprintf(why, size, "cannot send spans to %s: %s", e->s.display_url,
             res == CURLE_ABORTED_BY_CALLBACK ? "the flush at host close ran out of time"
             : curl_error[0]                  ? curl_error
                                              : cu->easy_strerror(res));
    return -1;
  }
  if (status < 200 || status > 299) {
    snprintf(why, size, "the collector at %s answered HTTP %ld", e->s.display_url, status);
    return -1;
  }
  return 0;
}

/* -------------------------------------------------------------- thread */

static struct timespec monotonic_at(int64_t ns) {
  return (struct timespec){.tv_sec = ns / 1000000000LL, .tv_nsec = ns % 1000000000LL};
}

/* Waits (lock held) until a batch is full, the schedule delay passed or
 * the owner stops us. */
static void wait_for_work(sbio__exporter *e) {
  int64_t until = sbio__monotonic_ns() + e->s.schedule_delay_ms * 1000000LL;
  struct timespec ts = monotonic_at(until);
  while (!atomic_load(&e->stopping) && e->count < e->s.max_batch)
    if (pthread_cond_timedwait(&e->wake, &e->lock, &ts) == ETIMEDOUT) break;
}

/* Drops a reference; the last one frees. Called with the lock held. */
static void release_ref(sbio__exporter *e) {
  int last = --e->refs == 0;
  pthread_mutex_unlock(&e->lock);
  if (last) exporter_free(e);
}

static void *export_loop(void *arg) {
  sbio__exporter *e = arg;
  cJSON **batch = malloc(e->s.max_batch * sizeof *batch);
  pthread_mutex_lock(&e->lock);
  for (;;) {
    wait_for_work(e);
    if (e->count == 0) {
      if (atomic_load(&e->stopping)) break;
      continue;
    }
    if (!batch || (atomic_load(&e->stopping) && sbio__monotonic_ns() > atomic_load(&e->deadline_ns))) {
      /* Out of time (or memory): what is left is dropped, and counted. */
      for (; e->count; e->count--, e->head = (e->head + 1) % e->s.max_queue) {
        cJSON_Delete(e->ring[e->head]);
        e->stats.dropped_at_exit++;
      }
      if (atomic_load(&e->stopping)) break;
      continue;
    }
    size_t n = e->count < e->s.max_batch ? e->count : e->s.max_batch;
    for (size_t i = 0; i < n; i++) {
      batch[i] = e->ring[e->head];
      e->head = (e->head + 1) % e->s.max_queue;
    }
    e->count -= n;
    pthread_mutex_unlock(&e->lock);
    char why[sizeof e->stats.last_error] = "";
    int failed = post_batch(e, batch, n, why, sizeof why) != 0;
    for (size_t i = 0; i < n; i++) cJSON_Delete(batch[i]);
    pthread_mutex_lock(&e->lock);
    if (failed) {
      e->stats.dropped_failed += n;
      snprintf(e->stats.last_error, sizeof e->stats.last_error, "%s", why);
      e->failing = 1;
    } else {
      e->stats.exported += n;
      e->failing = e->failure_reported = 0;
    }
  }
  free(batch);
  release_ref(e);
  return NULL;
}

void sbio__exporter_enqueue(sbio__exporter *e, cJSON *span) {
  if (!e || !span) {
    cJSON_Delete(span);
    return;
  }
  pthread_mutex_lock(&e->lock);
  if (!e->started && !e->start_failed) {
    /* The thread blocks every signal (it inherits the mask it is created
     * with): a library thread must not take the application's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int created = pthread_create(&e->thread, NULL, export_loop, e) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (created) {
      e->started = 1;
      e->refs++;
    } else {
      e->start_failed = 1;
      e->failing = 1;
      snprintf(e->stats.last_error, sizeof e->stats.last_error, "cannot start the span exporter thread");
    }
  }
  if (!e->started || atomic_load(&e->stopping)) {
    cJSON_Delete(span);
    e->stats.dropped_failed++;
    pthread_mutex_unlock(&e->lock);
    return;
  }
  if (e->count == e->s.max_queue) { /* full: the oldest goes */
    cJSON_Delete(e->ring[e->head]);
    e->head = (e->head + 1) % e->s.max_queue;
    e->count--;
    e->stats.dropped_full++;
  }
  e->ring[(e->head + e->count) % e->s.max_queue] = span;
  e->count++;
  if (e->count >= e->s.max_batch) pthread_cond_signal(&e->wake);
  pthread_mutex_unlock(&e->lock);
}

int sbio__exporter_new_failure(sbio__exporter *e, char *why, size_t size) {
  if (!e) return 0;
  pthread_mutex_lock(&e->lock);
  int fresh = e->failing && !e->failure_reported;
  if (fresh) {
    e->failure_reported = 1;
    snprintf(why, size, "%s", e->stats.last_error);
  }
  pthread_mutex_unlock(&e->lock);
  return fresh;
}

void sbio__exporter_shutdown(sbio__exporter *e, sbio__export_stats *stats) {
  if (!e) return;
  int64_t deadline = sbio__monotonic_ns() + e->s.timeout_ms * 1000000LL;
  pthread_mutex_lock(&e->lock);
  atomic_store(&e->deadline_ns, deadline);
  atomic_store(&e->stopping, 1);
  pthread_cond_signal(&e->wake);
  int started = e->started;
  pthread_mutex_unlock(&e->lock);
  if (started) {
    /* pthread_timedjoin_np measures against CLOCK_REALTIME. */
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t left = deadline + JOIN_GRACE_NS - sbio__monotonic_ns();
    int64_t at = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec + (left > 0 ? left : 0);
    struct timespec abs = {.tv_sec = at / 1000000000LL, .tv_nsec = at % 1000000000LL};
    if (pthread_timedjoin_np(e->thread, NULL, &abs) != 0) pthread_detach(e->thread);
  }
  pthread_mutex_lock(&e->lock);
  if (stats) *stats = e->stats;
  release_ref(e); /* the thread dropped its own reference, or will */
}
