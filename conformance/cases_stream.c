/* SPDX-License-Identifier: MIT */
/* Streams: what the output callback sees, in which order, on which stream,
 * and when. The callback runs on the exec's thread; the recorder is shared
 * with the case's thread under a lock. */
#include "cases.h"
#include "probes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct recorder {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  char *data[3]; /* by sbio_stream: [1] stdout, [2] stderr, [0] anything else */
  size_t len[3];
  size_t chunks;
  int bad_tag; /* a chunk with a stream that is neither stdout nor stderr */
} recorder;

static void on_output(sbio_stream stream, const char *data, size_t len, void *user) {
  recorder *rec = user;
  pthread_mutex_lock(&rec->lock);
  int s = stream == SBIO_STDOUT ? 1 : stream == SBIO_STDERR ? 2 : 0;
  if (!s) rec->bad_tag = 1;
  char *p = realloc(rec->data[s], rec->len[s] + len + 1);
  if (!p) kit_oom();
  memcpy(p + rec->len[s], data, len);
  rec->len[s] += len;
  p[rec->len[s]] = '\0';
  rec->data[s] = p;
  rec->chunks++;
  pthread_cond_broadcast(&rec->cond);
  pthread_mutex_unlock(&rec->lock);
}

static void recorder_free(void *p) {
  recorder *rec = p;
  for (int i = 0; i < 3; i++) free(rec->data[i]);
  pthread_mutex_destroy(&rec->lock);
  pthread_cond_destroy(&rec->cond);
  free(rec);
}

/* A recorder wired into new exec options (both owned by the case). */
static recorder *recorder_new(kit_case *c, sbio_exec_options **xo) {
  recorder *rec = kit_xmalloc(sizeof *rec);
  pthread_mutex_init(&rec->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&rec->cond, &attr);
  pthread_condattr_destroy(&attr);
  kit_defer_free(c, recorder_free, rec);
  *xo = kit_xopts(c);
  sbio_exec_options_set_output_callback(*xo, on_output, rec);
  return rec;
}

/* What the recorder holds for one stream (after the exec ended). */
static const char *seen(const recorder *rec, int s) {
  return rec->data[s] ? rec->data[s] : "";
}

/* Waits until the stdout seen so far contains `needle`; 1 when it does. */
static int wait_for_stdout(recorder *rec, const char *needle, double seconds) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  double end = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + seconds;
  until.tv_sec = (time_t)end;
  until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
  pthread_mutex_lock(&rec->lock);
  int found;
  while (!(found = rec->data[1] && strstr(rec->data[1], needle) != NULL))
    if (pthread_cond_timedwait(&rec->cond, &rec->lock, &until) == ETIMEDOUT) break;
  if (!found) found = rec->data[1] && strstr(rec->data[1], needle) != NULL;
  pthread_mutex_unlock(&rec->lock);
  return found;
}

static int same(const char *a, size_t alen, const char *b, size_t blen) {
  return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

void kit_stream_order_within_stream(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo;
  recorder *rec = recorder_new(c, &xo);
  kit_run *r = kit_exec(c, sb, PROBE_SEQ("100"), xo, 0);
  if (!kit_run_ok(c, r, "seq 1 100")) return;
  char want[400] = "";
  for (int i = 1; i <= 100; i++) snprintf(want + strlen(want), sizeof want - strlen(want), "%d\n", i);
  if (!same(seen(rec, 1), rec->len[1], want, strlen(want)))
    kit_fail(c, "the streamed stdout is not 1..100 in order: %s", kit_quote(c, seen(rec, 1), rec->len[1]));
  if (!same(r->out, r->out_len, want, strlen(want)))
    kit_fail(c, "the buffered stdout is not 1..100 in order: %s", kit_quote(c, r->out, r->out_len));
  if (rec->bad_tag) kit_fail(c, "a chunk was tagged neither stdout nor stderr");
  kit_note(c, "%zu chunk(s)", rec->chunks);
}

void kit_stream_tagged(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo;
  recorder *rec = recorder_new(c, &xo);
  kit_run *r = kit_exec(c, sb, PROBE_BOTH, xo, 0);
  if (!kit_run_ok(c, r, kit_argv_text(c, PROBE_BOTH))) return;
  if (!same(seen(rec, 1), rec->len[1], "out\n", 4) || !same(seen(rec, 2), rec->len[2], "err\n", 4) || rec->bad_tag)
    kit_fail(c, "expected \"out\\n\" tagged stdout and \"err\\n\" tagged stderr, got stdout %s and stderr %s",
             kit_quote(c, seen(rec, 1), rec->len[1]), kit_quote(c, seen(rec, 2), rec->len[2]));
}

void kit_stream_exit_code(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo;
  recorder *rec = recorder_new(c, &xo);
  kit_run *r = kit_exec(c, sb, PROBE_SH("echo x; exit 4"), xo, 0);
  if (!kit_run_ok(c, r, "sh -c 'echo x; exit 4' with a callback")) return;
  if (r->exit_code != 4) kit_fail(c, "the exit status with a callback was %d, expected 4", r->exit_code);
  if (!same(seen(rec, 1), rec->len[1], "x\n", 2))
    kit_fail(c, "the callback saw stdout %s, expected \"x\\n\"", kit_quote(c, seen(rec, 1), rec->len[1]));
}

void kit_stream_timeout(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo;
  recorder *rec = recorder_new(c, &xo);
  double deadline = ctx->opt.short_timeout;
  sbio_exec_options_set_timeout(xo, deadline);
  kit_run *r = kit_exec(c, sb, PROBE_OUTPUT_THEN_HANG, xo, deadline + ctx->opt.grace);
  const char *what = kit_argv_text(c, PROBE_OUTPUT_THEN_HANG);
  if (r->watchdog) {
    kit_fail(c,
             "%s with a callback and a %g s deadline was still running after %.1f s; the kit killed the sandbox: "
             "the deadline was not honoured",
             what, deadline, r->seconds);
    return;
  }
  if (r->rc != SBIO_E_EXEC_TIMEOUT) {
    kit_fail(c, "%s with a callback and a %g s deadline: expected SBX_E1302, got %s", what, deadline,
             r->rc == SBIO_OK ? kit_fmt(c, "success with exit %d", r->exit_code) : kit_err_text(c, r->rc, r->err));
    return;
  }
  if (!strstr(seen(rec, 1), "started"))
    kit_fail(c, "the output printed before the deadline (\"started\") never reached the callback");
  kit_note(c, "SBX_E1302 after %.2f s", r->seconds);
}

void kit_stream_output_before_exit(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo;
  recorder *rec = recorder_new(c, &xo);
  sbio_exec_options_set_timeout(xo, ctx->opt.op_limit);
  double start = kit_now();
  kit_async *a = kit_exec_start(c, sb, PROBE_OUTPUT_THEN_HANG, NULL, xo);
  int arrived = wait_for_stdout(rec, "started", ctx->opt.settle + ctx->opt.grace);
  double at = kit_now() - start;
  int running = !kit_exec_wait(a, 0);
  /* Either way the process must go now; killing the sandbox ends it. */
  sbio_sandbox_kill(sb, NULL);
  kit_run *r = kit_exec_finish(c, a);
  if (!arrived)
    kit_fail(c,
             "no output reached the callback within %.1f s although the process prints at once and then sleeps "
             "(is output held until the process ends?)",
             ctx->opt.settle + ctx->opt.grace);
  else if (!running)
    kit_fail(c, "the process had already ended (%s) when its first output arrived", kit_err_text(c, r->rc, r->err));
  else
    kit_note(c, "first output after %.2f s while the process ran", at);
}
