/* SPDX-License-Identifier: MIT */
/* Policy: egress really denied, allow-lists honoured or refused, and the
 * requests that would unbound a sandbox refused before anything exists. */
#include "cases.h"
#include "probes.h"

#include <stdio.h>
#include <string.h>

/* Runs the egress probe for `host`: 1 reached, 0 did not, -1 could not
 * tell (the case is failed). */
static int egress_reaches(kit_case *c, sbio_sandbox *sb, const char *host, kit_run **out) {
  const char *probe = kit_probe_egress(c, host);
  sbio_exec_options *xo = kit_xopts(c);
  sbio_exec_options_set_timeout(xo, c->ctx->opt.op_limit);
  kit_run *r = kit_shell(c, sb, probe, xo, c->ctx->opt.op_limit + c->ctx->opt.grace);
  *out = r;
  if (r->watchdog) {
    kit_fail(c, "the egress probe `%s` did not end within its %.0f s deadline", probe, c->ctx->opt.op_limit);
    return -1;
  }
  if (r->rc == SBIO_OK) return r->exit_code == 0;
  /* A policy refusal, or a probe that hung until its deadline, did not
   * reach the host either. */
  if (r->rc == SBIO_E_NETWORK_POLICY || r->rc == SBIO_E_EXEC_TIMEOUT) return 0;
  kit_fail(c, "the egress probe `%s` could not run: %s", probe, kit_err_text(c, r->rc, r->err));
  return -1;
}

void kit_policy_deny_actually_denies(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create with the default policy");
  if (!sb) return;
  kit_run *r;
  int reached = egress_reaches(c, sb, ctx->opt.canary_host, &r);
  if (reached < 0) return;
  if (reached) {
    kit_fail(c, "under the default deny policy `%s` succeeded (stdout %s): egress is not denied",
             kit_probe_egress(c, ctx->opt.canary_host), kit_quote(c, r->out, r->out_len));
    return;
  }
  if (ctx->opt.offline) {
    kit_note(c, "denied; the control with egress allowed was not run (--offline)");
    return;
  }
  /* Control: the same probe with egress allowed must succeed, or the
   * denial above proves nothing (no HTTP client in the image, no network). */
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_set_egress(o, SBIO_EGRESS_ALLOW);
  sbio_sandbox *allowed = kit_create_ok(c, o, "create with egress allowed (the control)");
  if (!allowed) return;
  kit_run *control;
  int ok = egress_reaches(c, allowed, ctx->opt.canary_host, &control);
  if (ok == 0)
    kit_warn(c,
             "denied, but the probe also fails with egress allowed (exit %d, stderr %s), so the denial is unproven: "
             "give --egress-probe-cmd a client the image has, or --offline when the machine has no network",
             control->exit_code, kit_quote(c, control->errout, control->err_len));
  else if (ok == 1)
    kit_note(c, "denied by default, reached with egress allowed");
}

void kit_policy_allowlist(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_allow_host(o, ctx->opt.canary_host);
  if (!(ctx->caps & SBIO_CAP_NETWORK_ALLOWLIST)) {
    sbio_error *err = kit_err(c);
    sbio_code rc;
    sbio_sandbox *sb = kit_create(c, o, &rc, err);
    if (sb)
      kit_fail(c, "an allow-list was accepted by a backend that does not declare network_allowlist: it would be "
                  "ignored");
    else if (rc != SBIO_E_CAPABILITY)
      kit_fail(c, "create with an allow-list: expected SBX_E1101, got %s", kit_err_text(c, rc, err));
    else
      kit_note(c, "refused with SBX_E1101");
    return;
  }
  if (!(ctx->caps & SBIO_CAP_RUN_COMMAND)) {
    kit_skip(c, "the backend declares network_allowlist but not run_command, so egress cannot be probed");
    return;
  }
  sbio_sandbox *sb = kit_create_ok(c, o, kit_fmt(c, "create allowing only %s", ctx->opt.canary_host));
  if (!sb) return;
  const char *unlisted = kit_fmt(c, "%s.invalid", kit_probe_name(c, "unlisted"));
  kit_run *r;
  int reached = egress_reaches(c, sb, unlisted, &r);
  if (reached == 1)
    kit_fail(c, "the unlisted host %s was reached although only %s is allowed (stdout %s)", unlisted,
             ctx->opt.canary_host, kit_quote(c, r->out, r->out_len));
  if (reached != 0) return;
  if (ctx->opt.offline) {
    kit_note(c, "unlisted host denied; reaching the listed host was not checked (--offline)");
    return;
  }
  reached = egress_reaches(c, sb, ctx->opt.canary_host, &r);
  if (reached == 0)
    kit_fail(c, "the listed host %s was not reached (exit %d, stderr %s)", ctx->opt.canary_host, r->exit_code,
             kit_quote(c, r->errout, r->err_len));
  else if (reached == 1)
    kit_note(c, "only the listed host was reached");
}

/* A refused setter must make the create fail too (fail closed), and
 * nothing may be provisioned. */
static void expect_refused(kit_case *c, sbio_create_options *o, sbio_code set, const char *what) {
  if (set != SBIO_E_CONFIG) kit_fail(c, "%s: the setter returned %s, expected SBX_E1000", what, kit_code(set));
  size_t before = 0, after = 0;
  char why[512];
  int counted = kit_managed_count(c, NULL, &before, why, sizeof why) == 0;
  sbio_error *err = kit_err(c);
  sbio_code rc;
  sbio_sandbox *sb = kit_create(c, o, &rc, err);
  if (sb)
    kit_fail(c, "%s: create succeeded anyway", what);
  else if (rc != SBIO_E_CONFIG)
    kit_fail(c, "%s: create expected SBX_E1000, got %s", what, kit_err_text(c, rc, err));
  if (counted && kit_managed_count(c, NULL, &after, why, sizeof why) == 0 && after != before)
    kit_fail(c, "%s: the provider lists %zu sandboxes of this run, %zu before", what, after, before);
}

void kit_policy_unknown_egress_refused(kit_case *c) {
  sbio_create_options *o = kit_opts(c);
  expect_refused(c, o, sbio_create_options_set_egress(o, (sbio_egress)7), "egress mode 7 (neither deny nor allow)");
}

void kit_policy_caps_cannot_be_unset(kit_case *c) {
  sbio_create_options *o = kit_opts(c);
  expect_refused(c, o, sbio_create_options_set_memory_mb(o, 0), "memory_mb 0");
  o = kit_opts(c);
  expect_refused(c, o, sbio_create_options_set_cpu(o, -1.0), "cpu -1");
  o = kit_opts(c);
  expect_refused(c, o, sbio_create_options_set_disk_mb(o, 0), "disk_mb 0");
}

void kit_policy_gpu_without_capability(kit_case *c) {
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_set_gpu(o, "T4");
  sbio_error *err = kit_err(c);
  sbio_code rc;
  sbio_sandbox *sb = kit_create(c, o, &rc, err);
  if (sb)
    kit_fail(c, "a GPU request was accepted by a backend without the gpu capability");
  else if (rc != SBIO_E_CAPABILITY)
    kit_fail(c, "create with a GPU: expected SBX_E1101, got %s", kit_err_text(c, rc, err));
  else if (!strstr(sbio_error_message(err), "gpu") && !strstr(sbio_error_message(err), "GPU"))
    kit_fail(c, "the refusal does not name the GPU: %s", kit_err_text(c, rc, err));
}

void kit_policy_unbounded_timeout_refused(kit_case *c) {
  static const double bad[] = {0.0, -5.0};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sbio_create_options *o = kit_opts(c);
    expect_refused(c, o, sbio_create_options_set_timeout(o, bad[i]), kit_fmt(c, "timeout %g", bad[i]));
  }
  if (c->ctx->uri_has_query) {
    kit_note(c, "the URI form was not checked: the URI already has a query");
    return;
  }
  const char *uri = kit_fmt(c, "%s?timeout=0", c->ctx->opt.uri);
  sbio_sandbox *sb = NULL;
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_sandbox_create(c->ctx->host, uri, kit_opts(c), &sb, err);
  if (sb) {
    kit_track(c, sb);
    kit_fail(c, "%s created a sandbox", uri);
  } else if (rc != SBIO_E_CONFIG) {
    kit_fail(c, "%s: expected SBX_E1000, got %s", uri, kit_err_text(c, rc, err));
  }
}

void kit_policy_network_policy_undeclared(kit_case *c) {
  sbio_error *err = kit_err(c);
  sbio_code rc;
  sbio_sandbox *sb = kit_create(c, kit_opts(c), &rc, err);
  if (sb)
    kit_fail(c, "a backend without network_policy created a sandbox: its egress policy would be unenforced");
  else if (rc != SBIO_E_CAPABILITY)
    kit_fail(c, "expected SBX_E1101, got %s", kit_err_text(c, rc, err));
  else if (!strstr(sbio_error_message(err), "network_policy"))
    kit_fail(c, "the refusal does not name network_policy: %s", kit_err_text(c, rc, err));
}
