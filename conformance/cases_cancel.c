/* SPDX-License-Identifier: MIT */
/* Cancelling one exec (ABI 1.3, SBIO_BK_FEATURE_EXEC_CANCEL): a backend
 * that declares it must end the cancelled exec promptly with SBX_E1902 and
 * keep the sandbox, its files and its ability to run the next command. A
 * cancellation that is not delivered shows up as an exec still running
 * `grace` seconds after the cancel; the kit then kills the sandbox, so such
 * a backend fails the case instead of hanging the kit. */
#include "cases.h"
#include "probes.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Watches stdout for the probe's first line, so the cancel lands while the
 * command runs (on backends that stream; the others get `settle`). */
typedef struct started_watch {
  atomic_int seen;
  char tail[16]; /* the last bytes, for a line split across chunks */
  size_t len;
} started_watch;

static void on_output(sbio_stream stream, const char *data, size_t len, void *user) {
  started_watch *w = user;
  if (stream != SBIO_STDOUT || atomic_load(&w->seen)) return;
  char buf[sizeof w->tail + 64];
  size_t keep = w->len, take = len < 64 ? len : 64;
  memcpy(buf, w->tail, keep);
  memcpy(buf + keep, data, take);
  buf[keep + take] = '\0';
  if (strstr(buf, "started")) atomic_store(&w->seen, 1);
  size_t total = keep + take, tail = total < sizeof w->tail ? total : sizeof w->tail;
  memcpy(w->tail, buf + total - tail, tail);
  w->len = tail;
}

static void cancel_free(void *p) {
  sbio_cancel_free(p);
}

void kit_exec_cancel_one_exec(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  if (!sbio_sandbox_exec_cancellable(sb)) {
    kit_skip(c, "the backend does not declare per-exec cancellation (SBIO_BK_FEATURE_EXEC_CANCEL)");
    return;
  }
  /* Something the sandbox holds before the cancel, to find after it. */
  const char *name = kit_probe_name(c, "kept.txt");
  kit_run *w = kit_exec(c, sb, PROBE_SH(kit_fmt(c, "echo kept > '%s'", name)), NULL, 0);
  if (!kit_run_ok(c, w, "writing a file before the cancel")) return;

  sbio_cancel *token = sbio_cancel_new();
  if (!token) kit_oom();
  kit_defer_free(c, cancel_free, token); /* freed after the exec's thread was joined */
  started_watch *watch = kit_xmalloc(sizeof *watch);
  memset(watch, 0, sizeof *watch);
  kit_defer_free(c, free, watch);
  sbio_exec_options *xo = kit_xopts(c);
  sbio_exec_options_set_timeout(xo, ctx->opt.op_limit);
  sbio_exec_options_set_cancel(xo, token);
  sbio_exec_options_set_output_callback(xo, on_output, watch);
  int streams = (sbio_sandbox_capabilities(sb) & SBIO_CAP_STREAMING) != 0;
  kit_async *a = kit_exec_start(c, sb, PROBE_OUTPUT_THEN_HANG, NULL, xo);
  /* Not a timing verdict: only where the cancel lands. */
  double until = kit_now() + ctx->opt.settle + ctx->opt.grace;
  if (streams)
    while (!atomic_load(&watch->seen) && kit_now() < until && !kit_exec_wait(a, 0.05)) continue;
  else
    kit_sleep(ctx->opt.settle);
  if (kit_exec_wait(a, 0)) {
    kit_run *early = kit_exec_finish(c, a);
    kit_fail(c, "%s ended before the cancel: %s, exit %d", kit_argv_text(c, PROBE_OUTPUT_THEN_HANG),
             kit_err_text(c, early->rc, early->err), early->exit_code);
    return;
  }
  double cancelled_at = kit_now();
  sbio_cancel_request(token);
  int ended = kit_exec_wait(a, ctx->opt.grace);
  double after = kit_now() - cancelled_at;
  if (!ended) sbio_sandbox_kill(sb, NULL); /* the kit's watchdog: the exec must end now */
  kit_run *r = kit_exec_finish(c, a);
  if (!ended) {
    kit_fail(c,
             "the cancellation was not delivered: the exec was still running %.1f s after sbio_cancel_request (the "
             "kit killed the sandbox; then: %s)",
             ctx->opt.grace, r->rc == SBIO_OK ? kit_fmt(c, "exit %d", r->exit_code) : kit_code(r->rc));
    return;
  }
  if (r->rc != SBIO_E_CANCELLED) {
    kit_fail(c, "the cancelled exec ended with %s; expected SBX_E1902",
             r->rc == SBIO_OK ? kit_fmt(c, "success, exit %d", r->exit_code) : kit_err_text(c, r->rc, r->err));
    return;
  }
  /* The sandbox lives on: the same sandbox, its files, the next command. */
  if (!sbio_sandbox_alive(sb)) {
    kit_fail(c, "after cancelling one exec the sandbox reports it is no longer alive");
    return;
  }
  kit_run *next = kit_exec(c, sb, PROBE_ECHO("after cancel"), NULL, 0);
  if (!kit_expect_output(c, next, "echo in the same sandbox after the cancel", "after cancel\n")) return;
  kit_run *kept = kit_exec(c, sb, PROBE_CAT(name), NULL, 0);
  if (!kit_expect_output(c, kept, kit_fmt(c, "cat %s (written before the cancel)", name), "kept\n")) return;
  kit_note(c, "SBX_E1902 %.2f s after the cancel%s; the sandbox kept its file and ran the next command", after,
           streams ? " (sent once the first output had arrived)" : "");
}
