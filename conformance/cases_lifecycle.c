/* SPDX-License-Identifier: MIT */
/* Lifecycle: identity, kill, use after kill, teardown, connect,
 * descriptions and labels. */
#include "canary.h"
#include "cases.h"
#include "probes.h"

#include <stdio.h>
#include <string.h>

void kit_lifecycle_identity(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *a = kit_create_ok(c, NULL, "first sandbox");
  sbio_sandbox *b = a ? kit_create_ok(c, NULL, "second sandbox") : NULL;
  if (!b) return;
  const char *id = sbio_sandbox_id(a);
  if (!id[0]) kit_fail(c, "the sandbox id is empty");
  for (const unsigned char *p = (const unsigned char *)id; *p; p++)
    if (*p < 0x21 || *p > 0x7e) {
      kit_fail(c, "the sandbox id %s contains whitespace or a control character", kit_quote(c, id, strlen(id)));
      break;
    }
  if (strcmp(id, sbio_sandbox_id(b)) == 0) kit_fail(c, "two live sandboxes share the id %s", id);
  if (strcmp(sbio_sandbox_backend(a), ctx->backend) != 0)
    kit_fail(c, "the sandbox says backend \"%s\", expected \"%s\"", sbio_sandbox_backend(a), ctx->backend);
  if (sbio_sandbox_capabilities(a) != ctx->caps)
    kit_fail(c, "the sandbox reports capabilities 0x%llx, the backend declares 0x%llx",
             (unsigned long long)sbio_sandbox_capabilities(a), (unsigned long long)ctx->caps);
  if (!sbio_tier_name(sbio_sandbox_tier(a))) kit_fail(c, "the sandbox reports no valid tier");
  if (!sbio_sandbox_alive(a)) kit_fail(c, "a new sandbox reports it is not alive");
  kit_note(c, "ids %s and %s, tier %s, mechanism %s", id, sbio_sandbox_id(b), sbio_tier_name(sbio_sandbox_tier(a)),
           sbio_sandbox_mechanism(a));
}

void kit_lifecycle_create_run_kill_twice(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  char id[160];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  kit_run *r = kit_exec(c, sb, PROBE_ECHO("hi"), NULL, 0);
  if (!kit_expect_output(c, r, "echo hi", "hi\n")) return;
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_sandbox_kill(sb, err);
  if (rc != SBIO_OK) kit_fail(c, "kill failed: %s", kit_err_text(c, rc, err));
  rc = sbio_sandbox_kill(sb, err);
  if (rc != SBIO_OK) kit_fail(c, "a second kill failed (kill must be idempotent): %s", kit_err_text(c, rc, err));
  if (sbio_sandbox_alive(sb)) kit_fail(c, "the sandbox still reports alive after kill");
  char why[512];
  int listed = kit_managed_lists(c, id, why, sizeof why);
  if (listed == 1)
    kit_fail(c, "sandbox %s is still listed by the provider after kill: an orphan", id);
  else if (listed < 0)
    kit_note(c, "the provider side was not checked: %s", why);
}

void kit_lifecycle_use_after_kill_is_gone(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  char id[160];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_sandbox_kill(sb, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "kill failed: %s", kit_err_text(c, rc, err));
    return;
  }
  if (ctx->caps & SBIO_CAP_RUN_COMMAND) {
    kit_run *r = kit_exec(c, sb, PROBE_ECHO("after kill"), NULL, 0);
    if (r->rc != SBIO_E_GONE)
      kit_fail(c, "exec after kill: expected SBX_E1204, got %s", kit_err_text(c, r->rc, r->err));
  }
  if (ctx->caps & SBIO_CAP_FILESYSTEM) {
    unsigned char *data = NULL;
    size_t len = 0;
    rc = sbio_file_read(sb, "after-kill.txt", 0, &data, &len, err);
    sbio_free(data);
    if (rc != SBIO_E_GONE) kit_fail(c, "file read after kill: expected SBX_E1204, got %s", kit_err_text(c, rc, err));
  }
  if (ctx->caps & SBIO_CAP_CONNECT) {
    /* A new handle bypasses the library's own "killed" flag: only the
     * provider can say the sandbox is gone now. */
    sbio_sandbox *again = NULL;
    rc = sbio_sandbox_connect(ctx->host, ctx->backend, id, &again, err);
    if (again) kit_track(c, again);
    if (rc != SBIO_E_CONNECT)
      kit_fail(c, "connect to the killed sandbox %s: expected SBX_E1202, got %s", id, kit_err_text(c, rc, err));
  }
}

void kit_lifecycle_close_tears_down(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (!(ctx->caps & (SBIO_CAP_MANAGED | SBIO_CAP_CONNECT))) {
    kit_skip(c, "the backend declares neither managed nor connect, so the provider side cannot be observed");
    return;
  }
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  char id[160];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  sbio_error *err = kit_err(c);
  sbio_code rc = kit_close(c, sb, err);
  if (rc != SBIO_OK) kit_fail(c, "close failed: %s", kit_err_text(c, rc, err));
  char why[512];
  if (kit_managed_lists(c, id, why, sizeof why) == 1)
    kit_fail(c, "sandbox %s is still listed by the provider after close: an orphan", id);
  if (ctx->caps & SBIO_CAP_CONNECT) {
    sbio_sandbox *again = NULL;
    rc = sbio_sandbox_connect(ctx->host, ctx->backend, id, &again, err);
    if (again) kit_track(c, again);
    if (rc == SBIO_OK) kit_fail(c, "connect to the closed sandbox %s succeeded: it still exists", id);
  }
}

void kit_lifecycle_kill_during_exec(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_exec_options *xo = kit_xopts(c);
  sbio_exec_options_set_timeout(xo, ctx->opt.op_limit);
  kit_async *a = kit_exec_start(c, sb, PROBE_HANG, NULL, xo);
  kit_sleep(ctx->opt.settle);
  if (kit_exec_wait(a, 0)) {
    kit_run *early = kit_exec_finish(c, a);
    kit_fail(c, "%s ended before the kill: %s, exit %d", kit_argv_text(c, PROBE_HANG),
             kit_err_text(c, early->rc, early->err), early->exit_code);
    return;
  }
  sbio_error *err = kit_err(c);
  double killed_at = kit_now();
  sbio_code rc = sbio_sandbox_kill(sb, err);
  if (rc != SBIO_OK) kit_fail(c, "kill from another thread failed: %s", kit_err_text(c, rc, err));
  int ended = kit_exec_wait(a, ctx->opt.grace);
  double after = kit_now() - killed_at;
  kit_run *r = kit_exec_finish(c, a);
  if (!ended) {
    kit_fail(c, "the exec was still running %.1f s after the kill (it ended %.1f s later: %s)", ctx->opt.grace,
             kit_now() - killed_at, kit_err_text(c, r->rc, r->err));
    return;
  }
  /* The ABI's rule (docs/backend-abi.md, Threading): the in-flight exec
   * ends with exit code 137 and no error. SBX_E1204 is what an exec gets
   * when the kill came first, which a busy machine can make happen. */
  if (r->rc == SBIO_OK && r->exit_code == 0)
    kit_fail(c, "the killed exec reported success (exit 0); a killed process must not look successful");
  else if (r->rc == SBIO_OK && r->exit_code != 137)
    kit_fail(c, "the killed exec reported exit %d; a process killed with its sandbox reports 137", r->exit_code);
  else if (r->rc != SBIO_OK && r->rc != SBIO_E_GONE)
    kit_fail(c, "the killed exec ended with %s; expected exit code 137 (or SBX_E1204)", kit_err_text(c, r->rc, r->err));
  kit_note(c, "exec ended %.2f s after the kill with %s", after,
           r->rc == SBIO_OK ? kit_fmt(c, "exit %d", r->exit_code) : kit_code(r->rc));
}

void kit_lifecycle_connect_unknown_id(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  size_t before = 0, after = 0;
  char why[512];
  int counted = kit_managed_count(c, NULL, &before, why, sizeof why) == 0;
  const char *id = kit_probe_name(c, "no-such-sandbox");
  sbio_sandbox *sb = NULL;
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_sandbox_connect(ctx->host, ctx->backend, id, &sb, err);
  if (sb) {
    kit_track(c, sb);
    kit_fail(c, "connect to the unknown id %s returned a sandbox", id);
  }
  if (rc != SBIO_E_CONNECT) kit_fail(c, "expected SBX_E1202, got %s", kit_err_text(c, rc, err));
  if (counted && kit_managed_count(c, NULL, &after, why, sizeof why) == 0 && after != before)
    kit_fail(c, "the provider lists %zu sandboxes of this run after the connect, %zu before: connect created one",
             after, before);
  if (!counted) kit_note(c, "creation was not checked: %s", why);
}

void kit_lifecycle_connect_reattaches(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_sandbox *again = NULL;
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_sandbox_connect(ctx->host, ctx->backend, sbio_sandbox_id(sb), &again, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "connect to the live sandbox %s failed: %s", sbio_sandbox_id(sb), kit_err_text(c, rc, err));
    return;
  }
  kit_track(c, again);
  if (strcmp(sbio_sandbox_id(again), sbio_sandbox_id(sb)) != 0)
    kit_fail(c, "connect returned sandbox %s, asked for %s", sbio_sandbox_id(again), sbio_sandbox_id(sb));
  if (sbio_sandbox_tier(again) != sbio_sandbox_tier(sb))
    kit_fail(c, "the re-attached handle reports tier %s, the original %s", sbio_tier_name(sbio_sandbox_tier(again)),
             sbio_tier_name(sbio_sandbox_tier(sb)));
  kit_run *r = kit_exec(c, again, PROBE_ECHO("reattached"), NULL, 0);
  if (!kit_expect_output(c, r, "echo through the re-attached handle", "reattached\n")) return;
  if (ctx->caps & SBIO_CAP_FILESYSTEM) {
    const char *name = kit_probe_name(c, "shared.txt");
    rc = sbio_file_write(sb, name, "same place", 10, err);
    unsigned char *data = NULL;
    size_t len = 0;
    if (rc == SBIO_OK) rc = sbio_file_read(again, name, 0, &data, &len, err);
    if (rc != SBIO_OK)
      kit_fail(c, "a file written through one handle cannot be read through the other: %s", kit_err_text(c, rc, err));
    else if (len != 10 || memcmp(data, "same place", 10) != 0)
      kit_fail(c, "the re-attached handle reads different file contents");
    sbio_free(data);
  }
  /* Closing one handle destroys the sandbox; the provider must then say so
   * through the other handle, whose library-side state knows nothing. */
  rc = kit_close(c, again, err);
  if (rc != SBIO_OK) kit_fail(c, "closing the re-attached handle failed: %s", kit_err_text(c, rc, err));
  r = kit_exec(c, sb, PROBE_ECHO("still there?"), NULL, 0);
  if (r->rc != SBIO_E_GONE)
    kit_fail(c, "after the sandbox was killed through another handle, exec expected SBX_E1204, got %s",
             r->rc == SBIO_OK ? kit_fmt(c, "success (exit %d)", r->exit_code) : kit_err_text(c, r->rc, r->err));
}

void kit_lifecycle_description_safe(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  kit_canary secret;
  kit_canary_make(&secret, "desc");
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_set_secret(o, KIT_SECRET_VAR, secret.value);
  sbio_sandbox *sb = kit_create_ok(c, o, "create with a secret");
  if (!sb) return;
  const char *d = kit_describe(c, sb);
  const char *tier = sbio_tier_name(sbio_sandbox_tier(sb));
  if (!strstr(d, ctx->backend)) kit_fail(c, "the description %s does not name the backend", d);
  if (!strstr(d, sbio_sandbox_id(sb))) kit_fail(c, "the description %s does not name the sandbox id", d);
  if (!tier || !strstr(d, tier)) kit_fail(c, "the description %s does not name the tier", d);
  if (kit_canary_in(&secret, d, strlen(d))) kit_fail(c, "the description contains the secret");
  sbio_sandbox_kill(sb, NULL);
  const char *killed = kit_describe(c, sb);
  if (kit_canary_in(&secret, killed, strlen(killed))) kit_fail(c, "the description after kill contains the secret");
  kit_note(c, "%s", d);
}

void kit_lifecycle_labels_propagate(kit_case *c) {
  sbio_create_options *o = kit_opts(c);
  const char *tenant = kit_fmt(c, "acme-%s", c->ctx->run_id);
  sbio_create_options_set_label(o, "tenant_id", tenant);
  sbio_create_options_set_label(o, "session_id", "s-1");
  sbio_sandbox *sb = kit_create_ok(c, o, "create with labels");
  if (!sb) return;
  sbio_managed_list *l = NULL;
  sbio_error *err = kit_err(c);
  const char *filter[] = {kit_fmt(c, "tenant_id=%s", tenant), NULL};
  sbio_code rc = sbio_managed_list_get(c->ctx->host, c->ctx->backend, filter, &l, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "listing by label failed: %s", kit_err_text(c, rc, err));
    return;
  }
  size_t n = sbio_managed_list_count(l);
  int found = 0;
  for (size_t i = 0; i < n; i++) {
    if (strcmp(sbio_managed_list_id(l, i), sbio_sandbox_id(sb)) != 0) continue;
    found = 1;
    int tenant_ok = 0, session_ok = 0;
    for (size_t j = 0; j < sbio_managed_list_label_count(l, i); j++) {
      const char *k = sbio_managed_list_label_key(l, i, j), *v = sbio_managed_list_label_value(l, i, j);
      if (strcmp(k, "tenant_id") == 0) tenant_ok = strcmp(v, tenant) == 0;
      if (strcmp(k, "session_id") == 0) session_ok = strcmp(v, "s-1") == 0;
    }
    if (!tenant_ok || !session_ok) kit_fail(c, "the listing does not carry tenant_id and session_id as given");
  }
  if (n != 1 || !found)
    kit_fail(c, "listing by tenant_id=%s found %zu sandbox(es)%s; expected exactly the one just created", tenant, n,
             found ? "" : ", not including it");
  sbio_managed_list_free(l);
}
