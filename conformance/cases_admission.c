/* SPDX-License-Identifier: MIT */
/* Admission: everything a caller asks for that the backend cannot do fails
 * before anything exists, and what the backend declares it can do is
 * never refused once a sandbox exists. The first half is the library's
 * admission gate at work (it decides from the metadata alone, so only a
 * broken library fails it); the second is the backend's half of the
 * bargain: a capability in its note is a promise the gate relies on. */
#include "cases.h"
#include "probes.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a caller can declare it will use (sbio_create_options_
 * require_capabilities) and this kit can observe. */
static const sbio_caps requestable[] = {
    SBIO_CAP_RUN_COMMAND,       SBIO_CAP_STDIN,   SBIO_CAP_SEPARATE_STDERR, SBIO_CAP_STREAMING, SBIO_CAP_FILESYSTEM,
    SBIO_CAP_NETWORK_ALLOWLIST, SBIO_CAP_CONNECT, SBIO_CAP_MANAGED,
};
#define N_REQUESTABLE (sizeof requestable / sizeof requestable[0])

/* The "event" of audit line i, or "" (a copy into `out`). */
static const char *event_at(kit_ctx *ctx, size_t i, char *out, size_t size) {
  out[0] = '\0';
  char *line = kit_capture_audit_at(&ctx->capture, i);
  cJSON *ev = line ? cJSON_Parse(line) : NULL;
  const cJSON *name = ev ? cJSON_GetObjectItemCaseSensitive(ev, "event") : NULL;
  if (cJSON_IsString(name)) snprintf(out, size, "%s", name->valuestring);
  cJSON_Delete(ev);
  free(line);
  return out;
}

/* What the audit log says happened since line `from`: 1 when a create was
 * refused (create_denied) and none reached the backend (no created, no
 * create_failed), else 0 with `why`. */
static int denied_before_create(kit_ctx *ctx, size_t from, char *why, size_t size) {
  int denied = 0;
  char name[64];
  for (size_t i = from; i < kit_capture_audit_count(&ctx->capture); i++) {
    event_at(ctx, i, name, sizeof name);
    if (!strcmp(name, "create_denied")) denied = 1;
    if (!strcmp(name, "created") || !strcmp(name, "create_failed")) {
      snprintf(why, size, "the audit log has a %s event: the backend was asked to create", name);
      return 0;
    }
  }
  if (!denied) snprintf(why, size, "the audit log has no create_denied event");
  return denied;
}

void kit_admission_undeclared_refused_before_create(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  size_t refused = 0;
  for (size_t i = 0; i < N_REQUESTABLE && !kit_failed(c); i++) {
    sbio_caps cap = requestable[i];
    if (ctx->caps & cap) continue;
    const char *name = sbio_capability_name(cap);
    size_t listed_before = 0;
    int can_list = (ctx->caps & SBIO_CAP_MANAGED) && kit_managed_count(c, NULL, &listed_before, NULL, 0) == 0;
    size_t from = kit_capture_audit_count(&ctx->capture);
    sbio_create_options *o = kit_opts(c);
    if (sbio_create_options_require_capabilities(o, cap) != SBIO_OK) {
      kit_fail(c, "sbio_create_options_require_capabilities(%s) was refused", name);
      return;
    }
    sbio_error *err = kit_err(c);
    sbio_code rc;
    sbio_sandbox *sb = kit_create(c, o, &rc, err);
    char why[256];
    if (sb)
      kit_fail(c, "a create that needs %s, which the backend does not declare, succeeded", name);
    else if (rc != SBIO_E_CAPABILITY)
      kit_fail(c, "a create that needs %s: expected SBX_E1101, got %s", name, kit_err_text(c, rc, err));
    else if (!strstr(sbio_error_message(err), name))
      kit_fail(c, "the refusal does not name %s: %s", name, kit_err_text(c, rc, err));
    else if (!denied_before_create(ctx, from, why, sizeof why))
      kit_fail(c, "a create that needs %s was refused, but %s", name, why);
    size_t listed_after = 0;
    if (!kit_failed(c) && can_list && kit_managed_count(c, NULL, &listed_after, NULL, 0) == 0 &&
        listed_after != listed_before)
      kit_fail(c,
               "after a create that needs %s was refused, the backend lists %zu sandboxes of this run instead of %zu",
               name, listed_after, listed_before);
    refused++;
  }
  if (kit_failed(c)) return;
  if (!refused) {
    kit_skip(c, "the backend declares every capability a caller can ask for here");
    return;
  }
  kit_note(c, "%zu undeclared capabilities refused with SBX_E1101 before any create (audit: create_denied only)",
           refused);
}

/* Fails the case when an operation on an existing sandbox said "not
 * supported" about a capability the backend declares. */
static void not_refused_late(kit_case *c, sbio_code rc, const sbio_error *err, const char *cap, const char *what) {
  if (rc == SBIO_E_CAPABILITY)
    kit_fail(c, "%s declares %s, yet %s in a sandbox that exists was refused: %s", c->ctx->backend, cap, what,
             kit_err_text(c, rc, err));
}

void kit_admission_declared_not_refused_later(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  sbio_caps declared = 0;
  for (size_t i = 0; i < N_REQUESTABLE; i++) declared |= ctx->caps & requestable[i];
  sbio_create_options *o = kit_opts(c);
  if (sbio_create_options_require_capabilities(o, declared) != SBIO_OK) {
    kit_fail(c, "sbio_create_options_require_capabilities was refused for the declared capabilities");
    return;
  }
  sbio_sandbox *sb = kit_create_ok(c, o, "create declaring every capability the backend declares");
  if (!sb) return;
  if (declared & SBIO_CAP_RUN_COMMAND) {
    kit_run *r = kit_exec(c, sb, PROBE_ECHO("admitted"), NULL, 0);
    not_refused_late(c, r->rc, r->err, "run_command", "an exec");
  }
  if (declared & SBIO_CAP_STDIN) {
    sbio_exec_options *xo = kit_xopts(c);
    sbio_exec_options_set_stdin(xo, "x\n", 2);
    kit_run *r = kit_exec(c, sb, PROBE_CAT_STDIN, xo, 0);
    not_refused_late(c, r->rc, r->err, "stdin", "an exec with stdin");
  }
  if (declared & SBIO_CAP_FILESYSTEM) {
    sbio_error *err = kit_err(c);
    sbio_code rc = sbio_file_write(sb, kit_probe_name(c, "admitted"), "x", 1, err);
    not_refused_late(c, rc, err, "filesystem", "a file write");
  }
  if (declared & SBIO_CAP_CONNECT) {
    sbio_error *err = kit_err(c);
    sbio_sandbox *again = NULL;
    sbio_code rc = sbio_sandbox_connect(ctx->host, ctx->backend, sbio_sandbox_id(sb), &again, err);
    not_refused_late(c, rc, err, "connect", "a connect");
    /* The second handle is released with the case; closing it first
     * would destroy the sandbox the first still names. */
    if (again) kit_track(c, again);
  }
  if (declared & SBIO_CAP_MANAGED) {
    size_t n = 0;
    char why[512] = "";
    if (kit_managed_count(c, NULL, &n, why, sizeof why) != 0 && strstr(why, "SBX_E1101"))
      kit_fail(c, "%s declares managed, yet listing its sandboxes was refused: %s", ctx->backend, why);
  }
  if (!kit_failed(c)) kit_note(c, "admitted with every declared capability, and none was refused afterwards");
}
