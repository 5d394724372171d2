/* SPDX-License-Identifier: MIT */
/* Execs that cannot hang the kit. Each exec runs on a thread of its own
 * while the case waits with a limit; past the limit the case kills the
 * sandbox (sbio_sandbox_kill may come from any thread while an exec is in
 * flight), which must end the exec. A backend that swallows its deadline
 * therefore shows up as a failed case, not as a kit that never returns. */
#include "case_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct kit_async {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done;
  sbio_sandbox *sb;
  char **argv; /* own copies: the caller's array may be gone by the end */
  char *script;
  const sbio_exec_options *opts;
  sbio_code rc;
  sbio_error *err;
  sbio_exec_result *res;
  double started, finished;
};

static void *exec_thread(void *arg) {
  kit_async *a = arg;
  sbio_exec_result *res = NULL;
  sbio_code rc = a->argv ? sbio_sandbox_exec(a->sb, (const char *const *)a->argv, a->opts, &res, a->err)
                         : sbio_sandbox_exec_shell(a->sb, a->script, a->opts, &res, a->err);
  pthread_mutex_lock(&a->lock);
  a->rc = rc;
  a->res = res;
  a->finished = kit_now();
  a->done = 1;
  pthread_cond_broadcast(&a->cond);
  pthread_mutex_unlock(&a->lock);
  return NULL;
}

kit_async *kit_exec_start(kit_case *c, sbio_sandbox *sb, const char *const *argv, const char *script,
                          const sbio_exec_options *o) {
  if (c->n_asyncs == KIT_MAX_ASYNC) kit_die("kit error: too many execs in flight in one case");
  kit_async *a = kit_xmalloc(sizeof *a);
  pthread_mutex_init(&a->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&a->cond, &attr);
  pthread_condattr_destroy(&attr);
  a->sb = sb;
  a->opts = o;
  if (argv) {
    size_t n = 0;
    while (argv[n]) n++;
    a->argv = kit_xmalloc((n + 1) * sizeof *a->argv);
    for (size_t i = 0; i < n; i++) a->argv[i] = kit_xstrdup(argv[i]);
  } else {
    a->script = kit_xstrdup(script);
  }
  if (!(a->err = sbio_error_new())) kit_oom();
  a->started = kit_now();
  if (pthread_create(&a->thread, NULL, exec_thread, a) != 0) kit_die("cannot start a thread");
  c->asyncs[c->n_asyncs++] = a;
  return a;
}

int kit_exec_wait(kit_async *a, double limit_s) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  double end = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + (limit_s > 0 ? limit_s : 0);
  until.tv_sec = (time_t)end;
  until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
  pthread_mutex_lock(&a->lock);
  while (!a->done)
    if (pthread_cond_timedwait(&a->cond, &a->lock, &until) == ETIMEDOUT) break;
  int done = a->done;
  pthread_mutex_unlock(&a->lock);
  return done;
}

static void free_run(void *p) {
  kit_run *r = p;
  sbio_exec_result_free(r->res);
  sbio_error_free(r->err);
  free(r);
}

kit_run *kit_exec_finish(kit_case *c, kit_async *a) {
  pthread_join(a->thread, NULL);
  for (size_t i = 0; i < c->n_asyncs; i++)
    if (c->asyncs[i] == a) {
      c->asyncs[i] = c->asyncs[--c->n_asyncs];
      break;
    }
  kit_run *r = kit_xmalloc(sizeof *r);
  r->rc = a->rc;
  r->err = a->err;
  r->res = a->res;
  r->exit_code = a->res ? sbio_exec_result_exit_code(a->res) : -1;
  r->out = a->res ? sbio_exec_result_stdout(a->res, &r->out_len) : "";
  r->errout = a->res ? sbio_exec_result_stderr(a->res, &r->err_len) : "";
  r->seconds = a->finished - a->started;
  kit_defer_free(c, free_run, r);
  for (size_t i = 0; a->argv && a->argv[i]; i++) free(a->argv[i]);
  free(a->argv);
  free(a->script);
  pthread_mutex_destroy(&a->lock);
  pthread_cond_destroy(&a->cond);
  free(a);
  return r;
}

static kit_run *run_bounded(kit_case *c, sbio_sandbox *sb, const char *const *argv, const char *script,
                            const sbio_exec_options *o, double limit_s) {
  kit_async *a = kit_exec_start(c, sb, argv, script, o);
  int watchdog = 0;
  if (!kit_exec_wait(a, limit_s > 0 ? limit_s : c->ctx->opt.op_limit)) {
    sbio_sandbox_kill(sb, NULL);
    watchdog = 1;
  }
  kit_run *r = kit_exec_finish(c, a);
  r->watchdog = watchdog;
  return r;
}

kit_run *kit_exec(kit_case *c, sbio_sandbox *sb, const char *const *argv, const sbio_exec_options *o, double limit_s) {
  return run_bounded(c, sb, argv, NULL, o, limit_s);
}

kit_run *kit_shell(kit_case *c, sbio_sandbox *sb, const char *script, const sbio_exec_options *o, double limit_s) {
  return run_bounded(c, sb, NULL, script, o, limit_s);
}

int kit_run_ok(kit_case *c, const kit_run *r, const char *what) {
  if (r->watchdog) {
    kit_fail(c, "%s did not finish within %.1f s (the kit killed the sandbox)", what, r->seconds);
    return 0;
  }
  if (r->rc != SBIO_OK) {
    kit_fail(c, "%s failed: %s", what, kit_err_text(c, r->rc, r->err));
    return 0;
  }
  return 1;
}

int kit_expect_output(kit_case *c, const kit_run *r, const char *what, const char *want) {
  if (!kit_run_ok(c, r, what)) return 0;
  if (r->exit_code != 0 || r->out_len != strlen(want) || memcmp(r->out, want, r->out_len) != 0) {
    kit_fail(c, "%s: expected exit 0 and stdout %s, got exit %d, stdout %s, stderr %s", what,
             kit_quote(c, want, strlen(want)), r->exit_code, kit_quote(c, r->out, r->out_len),
             kit_quote(c, r->errout, r->err_len));
    return 0;
  }
  return 1;
}
