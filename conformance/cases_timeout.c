/* SPDX-License-Identifier: MIT */
/* Deadlines: an exec past its own timeout, and one that inherits the
 * sandbox's. The kit never waits on a backend's word that a deadline will
 * fire: each exec runs under a watchdog that kills the sandbox `grace`
 * seconds after the deadline, so a backend that swallows deadlines fails
 * these cases instead of hanging the kit. */
#include "cases.h"
#include "probes.h"

/* Shared verdict: the exec must have ended by itself with SBX_E1302 (or,
 * when `gone_ok`, SBX_E1204), not before `earliest` seconds and not after
 * deadline + grace (the watchdog). */
static int check_deadline(kit_case *c, const kit_run *r, const char *what, double deadline, double earliest,
                          int gone_ok) {
  if (r->watchdog) {
    kit_fail(c,
             "%s with a %g s deadline was still running after %.1f s; the kit killed the sandbox (then: %s): the "
             "deadline was not honoured",
             what, deadline, r->seconds, r->rc == SBIO_OK ? kit_fmt(c, "exit %d", r->exit_code) : kit_code(r->rc));
    return 0;
  }
  int ok_code = r->rc == SBIO_E_EXEC_TIMEOUT || (gone_ok && r->rc == SBIO_E_GONE);
  if (!ok_code) {
    kit_fail(c, "%s with a %g s deadline: expected SBX_E1302%s, got %s after %.2f s", what, deadline,
             gone_ok ? " or SBX_E1204" : "",
             r->rc == SBIO_OK ? kit_fmt(c, "success with exit %d", r->exit_code) : kit_err_text(c, r->rc, r->err),
             r->seconds);
    return 0;
  }
  if (r->seconds < earliest) {
    kit_fail(c, "%s reported %s after %.2f s, before its %g s deadline", what, kit_code(r->rc), r->seconds, deadline);
    return 0;
  }
  return 1;
}

void kit_exec_timeout_raises(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo = kit_xopts(c);
  sbio_exec_options_set_timeout(xo, ctx->opt.short_timeout);
  const char *what = kit_argv_text(c, PROBE_HANG);
  kit_run *r = kit_exec(c, sb, PROBE_HANG, xo, ctx->opt.short_timeout + ctx->opt.grace);
  if (!check_deadline(c, r, what, ctx->opt.short_timeout, ctx->opt.short_timeout * 0.9 - 0.05, 0)) return;
  /* The deadline kills the process, not the sandbox. */
  kit_run *after = kit_exec(c, sb, PROBE_ECHO("after timeout"), NULL, 0);
  if (!kit_expect_output(c, after, "echo in the same sandbox after the timeout", "after timeout\n")) return;
  kit_note(c, "SBX_E1302 after %.2f s; the sandbox still runs commands", r->seconds);
}

void kit_exec_timeout_inherits(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (ctx->uri_has_query) {
    kit_skip(c, "the URI's ?timeout= fixes every sandbox's lifetime, so a short one cannot be set");
    return;
  }
  double lifetime = ctx->opt.inherit_lifetime;
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_set_timeout(o, lifetime);
  sbio_sandbox *sb = kit_create_ok(c, o, kit_fmt(c, "create with a %g s lifetime", lifetime));
  if (!sb) return;
  /* The lifetime runs from create, so the exec may end a little earlier
   * than `lifetime` after it started; only "at once" is wrong. */
  kit_run *r = kit_exec(c, sb, PROBE_HANG, NULL, lifetime + ctx->opt.grace);
  if (check_deadline(c, r, kit_fmt(c, "%s without its own timeout", kit_argv_text(c, PROBE_HANG)), lifetime,
                     lifetime * 0.25, 1))
    kit_note(c, "%s after %.2f s", kit_code(r->rc), r->seconds);
}
