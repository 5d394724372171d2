/* SPDX-License-Identifier: MIT */
/* Errors and hints: every refusal of an undeclared capability names the
 * capability and says what to do instead. */
#include "cases.h"
#include "probes.h"

#include <string.h>

/* One refusal: code SBX_E1101, the capability's name in the message, and
 * a non-empty hint. */
static void check_refusal(kit_case *c, const char *what, sbio_caps cap, sbio_code rc, const sbio_error *err,
                          int *checked) {
  const char *name = sbio_capability_name(cap);
  (*checked)++;
  if (rc != SBIO_E_CAPABILITY) {
    kit_fail(c, "%s without %s: expected SBX_E1101, got %s", what, name, kit_err_text(c, rc, err));
    return;
  }
  if (!strstr(sbio_error_message(err), name))
    kit_fail(c, "%s: the message does not name %s: %s", what, name, sbio_error_message(err));
  if (!sbio_error_hint(err)[0]) kit_fail(c, "%s: the refusal of %s carries no hint", what, name);
}

static void refused_creates(kit_case *c, int *checked) {
  kit_ctx *ctx = c->ctx;
  sbio_error *err = kit_err(c);
  sbio_code rc;
  if (!(ctx->caps & SBIO_CAP_NETWORK_POLICY)) {
    kit_create(c, kit_opts(c), &rc, err);
    check_refusal(c, "create", SBIO_CAP_NETWORK_POLICY, rc, err, checked);
    return; /* every other create would be refused for this reason first */
  }
  if (!(ctx->caps & SBIO_CAP_GPU)) {
    sbio_create_options *o = kit_opts(c);
    sbio_create_options_set_gpu(o, "T4");
    kit_create(c, o, &rc, err);
    check_refusal(c, "create with a GPU", SBIO_CAP_GPU, rc, err, checked);
  }
  if (!(ctx->caps & SBIO_CAP_NETWORK_ALLOWLIST)) {
    sbio_create_options *o = kit_opts(c);
    sbio_create_options_allow_host(o, ctx->opt.canary_host);
    kit_create(c, o, &rc, err);
    check_refusal(c, "create with an allow-list", SBIO_CAP_NETWORK_ALLOWLIST, rc, err, checked);
  }
}

static void refused_calls(kit_case *c, int *checked) {
  kit_ctx *ctx = c->ctx;
  sbio_error *err = kit_err(c);
  sbio_code rc;
  if (!(ctx->caps & SBIO_CAP_CONNECT)) {
    sbio_sandbox *sb = NULL;
    rc = sbio_sandbox_connect(ctx->host, ctx->backend, kit_probe_name(c, "any"), &sb, err);
    if (sb) kit_track(c, sb);
    check_refusal(c, "connect", SBIO_CAP_CONNECT, rc, err, checked);
  }
  if (!(ctx->caps & SBIO_CAP_MANAGED)) {
    sbio_managed_list *l = NULL;
    rc = sbio_managed_list_get(ctx->host, ctx->backend, NULL, &l, err);
    sbio_managed_list_free(l);
    check_refusal(c, "listing managed sandboxes", SBIO_CAP_MANAGED, rc, err, checked);
  }
  sbio_caps per_sandbox = SBIO_CAP_RUN_COMMAND | SBIO_CAP_FILESYSTEM | SBIO_CAP_STDIN;
  if (!(ctx->caps & SBIO_CAP_NETWORK_POLICY) || (ctx->caps & per_sandbox) == per_sandbox) return;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  if (!(ctx->caps & SBIO_CAP_RUN_COMMAND)) {
    kit_run *r = kit_exec(c, sb, PROBE_ECHO("x"), NULL, 0);
    check_refusal(c, "exec", SBIO_CAP_RUN_COMMAND, r->rc, r->err, checked);
  } else if (!(ctx->caps & SBIO_CAP_STDIN)) {
    sbio_exec_options *xo = kit_xopts(c);
    sbio_exec_options_set_stdin(xo, "x", 1);
    kit_run *r = kit_exec(c, sb, PROBE_CAT_STDIN, xo, 0);
    check_refusal(c, "exec with stdin", SBIO_CAP_STDIN, r->rc, r->err, checked);
  }
  if (!(ctx->caps & SBIO_CAP_FILESYSTEM)) {
    rc = sbio_file_mkdir(sb, "d", 1, err);
    check_refusal(c, "mkdir", SBIO_CAP_FILESYSTEM, rc, err, checked);
  }
}

void kit_errors_capability_errors_named(kit_case *c) {
  int checked = 0;
  refused_creates(c, &checked);
  refused_calls(c, &checked);
  if (!checked)
    kit_skip(c, "the backend declares every capability this kit can ask for, so nothing is refused");
  else
    kit_note(c, "%d refusal(s) named their capability and gave a hint", checked);
}
