/* SPDX-License-Identifier: MIT */
#include "runner.h"

#include "case_api.h"
#include "registry.h"
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* After the hard limit the case's sandboxes are killed; this long more
 * (beyond --grace) is given for the case to come back. */
#define ABANDON_AFTER_S 5.0

const char *kit_status_name(kit_status s) {
  switch (s) {
  case KIT_PASS:
    return "PASS";
  case KIT_WARN:
    return "WARN";
  case KIT_SKIP:
    return "SKIP";
  case KIT_FAIL:
    return "FAIL";
  case KIT_NOT_RUN:
    return "NOT RUN";
  }
  return "?";
}

/* Capability names of `caps`, comma-separated, into buf. */
static const char *cap_names(sbio_caps caps, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t bit = 0; bit < 64; bit++) {
    sbio_caps flag = (sbio_caps)1 << bit;
    if (!(caps & flag)) continue;
    const char *name = sbio_capability_name(flag);
    int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name ? name : "?");
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
  return buf;
}

/* Why a case does not apply to this backend, or NULL when it does. */
static const char *not_applicable(const kit_ctx *ctx, const kit_case_def *d, char *buf, size_t size) {
  char names[256];
  if (d->flags & KIT_STATIC) return NULL;
  if (!ctx->usable) {
    snprintf(buf, size, "the backend is not usable: %s", ctx->unusable);
    return buf;
  }
  sbio_caps missing = d->needs & ~ctx->caps;
  if (missing) {
    snprintf(buf, size, "the backend does not declare %s", cap_names(missing, names, sizeof names));
    return buf;
  }
  sbio_caps present = d->lacks & ctx->caps;
  if (present) {
    snprintf(buf, size, "the backend declares %s; this case checks that an undeclared one is refused",
             cap_names(present, names, sizeof names));
    return buf;
  }
  if ((d->flags & KIT_CREATES) && !(ctx->caps & SBIO_CAP_NETWORK_POLICY)) {
    snprintf(buf, size,
             "the backend does not declare network_policy, so no sandbox can be created "
             "(policy.network_policy_undeclared checks that refusal)");
    return buf;
  }
  return NULL;
}

typedef struct job {
  kit_case *c;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
} job;

/* Releases what the case left: execs still running (their sandbox is
 * killed first, so they end), sandboxes, then everything deferred. */
static void case_cleanup(kit_case *c) {
  while (c->n_asyncs) {
    kit_async *a = c->asyncs[c->n_asyncs - 1];
    if (!kit_exec_wait(a, 0)) kit_kill_all(c);
    kit_exec_finish(c, a);
  }
  for (;;) {
    pthread_mutex_lock(&c->lock);
    sbio_sandbox *sb = c->n_boxes ? c->boxes[c->n_boxes - 1] : NULL;
    pthread_mutex_unlock(&c->lock);
    if (!sb) break;
    sbio_error *err = sbio_error_new();
    if (!err) kit_oom();
    char id[160];
    snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
    sbio_code rc = kit_close(c, sb, err);
    if (rc != SBIO_OK) kit_fail(c, "closing sandbox %s failed: %s", id, kit_err_text(c, rc, err));
    sbio_error_free(err);
  }
  while (c->n_defers) {
    kit_defer d = c->defers[--c->n_defers];
    d.fn(d.ptr);
  }
  free(c->defers);
  c->defers = NULL;
  c->cap_defers = 0;
}

static void *case_thread(void *arg) {
  job *j = arg;
  j->c->def->run(j->c);
  case_cleanup(j->c);
  pthread_mutex_lock(&j->lock);
  j->done = 1;
  pthread_cond_broadcast(&j->cond);
  pthread_mutex_unlock(&j->lock);
  return NULL;
}

static int wait_job(job *j, double seconds) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  double end = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + seconds;
  until.tv_sec = (time_t)end;
  until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
  pthread_mutex_lock(&j->lock);
  while (!j->done)
    if (pthread_cond_timedwait(&j->cond, &j->lock, &until) == ETIMEDOUT) break;
  int done = j->done;
  pthread_mutex_unlock(&j->lock);
  return done;
}

static void print_result(const kit_case_def *d, kit_status s, const char *reason, double seconds) {
  printf("%-4s  %s (%.2f s)%s%s\n", kit_status_name(s), d->name, seconds, reason[0] ? ": " : "", reason);
  fflush(stdout);
}

static void record(kit_ctx *ctx, const kit_case_def *d, kit_status s, const char *reason, double seconds) {
  kit_result *r = &ctx->results[ctx->n_results++];
  r->def = d;
  r->status = s;
  r->reason = kit_xstrdup(reason);
  r->seconds = seconds;
  if (s != KIT_NOT_RUN) print_result(d, s, reason, seconds);
}

/* A case that does not end even after its sandboxes were killed holds a
 * thread inside the backend: nothing can be cleaned up safely any more.
 * Report what is known and leave. */
static void abandon(kit_ctx *ctx, size_t next) __attribute__((noreturn));
static void abandon(kit_ctx *ctx, size_t next) {
  for (size_t i = next; i < kit_case_count(); i++)
    if (kit_case_selected(kit_case_at(i), ctx->opt.only))
      record(ctx, kit_case_at(i), KIT_NOT_RUN, "not run: an earlier case hung inside the backend", 0);
  printf("sbio-conformance: a case hung inside the backend even after its sandboxes were killed; stopping "
         "(sandboxes of this run may remain: `sbio reap --backend %s --label %s --kill`)\n",
         ctx->backend, ctx->run_label);
  if (ctx->opt.report_path) kit_report_write(ctx, ctx->opt.report_path);
  fflush(stdout);
  fflush(stderr);
  _exit(KIT_EXIT_FAILED);
}

static void *kill_thread(void *arg) {
  kit_kill_all(arg);
  return NULL;
}

static void abandon_now(kit_ctx *ctx, const kit_case_def *d, double start, size_t index) __attribute__((noreturn));
static void abandon_now(kit_ctx *ctx, const kit_case_def *d, double start, size_t index) {
  record(ctx, d, KIT_FAIL, "did not finish within the hard limit, and not even after its sandboxes were killed",
         kit_now() - start);
  abandon(ctx, index + 1);
}

/* Closes the shared sandbox (--reuse-sandbox), if any. */
static void drop_shared(kit_ctx *ctx) {
  if (!ctx->shared) return;
  sbio_sandbox_close(ctx->shared, NULL);
  ctx->shared = NULL;
}

static void run_one(kit_ctx *ctx, const kit_case_def *d, size_t index) {
  char why[1200];
  /* A case that may not share must not see the shared sandbox exist (the
   * cleanup and admission cases count this run's sandboxes). */
  if (!kit_case_may_share(d)) drop_shared(ctx);
  if (not_applicable(ctx, d, why, sizeof why)) {
    record(ctx, d, KIT_SKIP, why, 0);
    return;
  }
  kit_case *c = kit_xmalloc(sizeof *c);
  memset(c, 0, sizeof *c);
  c->ctx = ctx;
  c->def = d;
  pthread_mutex_init(&c->lock, NULL);
  job j = {.c = c, .done = 0};
  pthread_mutex_init(&j.lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&j.cond, &attr);
  pthread_condattr_destroy(&attr);
  double start = kit_now();
  pthread_t thread;
  if (pthread_create(&thread, NULL, case_thread, &j) != 0) kit_die("cannot start a thread");
  if (!wait_job(&j, ctx->opt.hard_limit)) {
    /* The verdict is decided here; the case's own text is not read while
     * its thread may still be writing it. The kill runs on a thread of its
     * own: a kill that hangs in the backend must not hang the runner. */
    pthread_t killer;
    if (pthread_create(&killer, NULL, kill_thread, c) != 0) abandon_now(ctx, d, start, index);
    if (!wait_job(&j, ctx->opt.grace + ABANDON_AFTER_S)) abandon_now(ctx, d, start, index);
    /* The case ended, so the killer, which held the lock the case's
     * cleanup needed, has ended too (or is about to). */
    pthread_join(killer, NULL);
    pthread_join(thread, NULL);
    char reason[300];
    snprintf(reason, sizeof reason,
             "did not finish within the hard limit of %.0f s (a call hung; the kit killed its sandboxes)",
             ctx->opt.hard_limit);
    record(ctx, d, KIT_FAIL, reason, kit_now() - start);
    if (c->shared) drop_shared(ctx);
  } else {
    pthread_join(thread, NULL);
    record(ctx, d, c->status, c->reason, kit_now() - start);
    /* A failure may have left the shared sandbox in any state. */
    if (c->shared && c->status == KIT_FAIL) drop_shared(ctx);
  }
  pthread_mutex_destroy(&j.lock);
  pthread_cond_destroy(&j.cond);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

void kit_run_all(kit_ctx *ctx) {
  ctx->results = kit_xmalloc(kit_case_count() * sizeof *ctx->results);
  for (size_t i = 0; i < kit_case_count(); i++) {
    const kit_case_def *d = kit_case_at(i);
    if (kit_case_selected(d, ctx->opt.only)) run_one(ctx, d, i);
  }
  drop_shared(ctx);
}
