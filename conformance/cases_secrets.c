/* SPDX-License-Identifier: MIT */
/* No secret in any output. Two canaries are planted: one through
 * sbio_create_options_set_secret, one as a credential-looking environment
 * variable. Both must reach the sandbox, and neither may appear in a
 * description, an error (message, hint, ids), a log line or an audit event
 * produced meanwhile: the operations below are chosen to provoke errors
 * from the backend (missing files, unknown ids, a deadline, use after
 * kill). Command output is not checked: printing a secret it was given is
 * the sandboxed program's business.
 *
 * A second case searches for the values of the credential variables the
 * backend declares in its note (ABI 1.4): the library redacts them even
 * where the backend passes on a provider's echo of its key. */
#include "canary.h"
#include "cases.h"
#include "probes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TEXTS 256

typedef struct texts {
  const char *where[MAX_TEXTS];
  const char *text[MAX_TEXTS];
  size_t n;
} texts;

static void add(texts *t, const char *where, const char *text) {
  if (t->n < MAX_TEXTS && text) {
    t->where[t->n] = where;
    t->text[t->n++] = text;
  }
}

static void add_error(kit_case *c, texts *t, const char *what, sbio_code rc, const sbio_error *err) {
  if (rc == SBIO_OK) return;
  add(t, kit_fmt(c, "the error of %s", what),
      kit_fmt(c, "%s\n%s\n%s\n%s", sbio_error_message(err), sbio_error_hint(err), sbio_error_backend(err),
              sbio_error_sandbox_id(err)));
}

/* Where a canary shows, as a short excerpt with the token masked. */
static const char *excerpt(kit_case *c, const char *text, const kit_canary *k) {
  const char *hit = strstr(text, k->token);
  if (!hit) hit = strstr(text, k->value);
  size_t at = hit ? (size_t)(hit - text) : 0, len = strlen(text);
  size_t from = at > 60 ? at - 60 : 0, to = at + 60 < len ? at + 60 : len;
  char *copy = kit_fmt(c, "%.*s", (int)(to - from), text + from);
  for (char *p = strstr(copy, k->token); p; p = strstr(p, k->token)) memset(p, '*', strlen(k->token));
  return kit_quote(c, copy, strlen(copy));
}

static void scan(kit_case *c, const texts *t, const kit_canary *k, const char *which) {
  for (size_t i = 0; i < t->n; i++)
    if (kit_canary_in(k, t->text[i], strlen(t->text[i])))
      kit_fail(c, "the %s appears in %s: %s", which, t->where[i], excerpt(c, t->text[i], k));
}

/* Log lines, audit events and progress steps the library produced since
 * the marks. */
static void add_captured(kit_case *c, texts *t, size_t logs_from, size_t audit_from, size_t progress_from) {
  kit_capture *cap = &c->ctx->capture;
  for (size_t i = progress_from; i < kit_capture_progress_count(cap); i++) {
    char *step = kit_capture_progress_at(cap, i);
    add(t, "a progress step", kit_fmt(c, "%s", step ? step : ""));
    free(step);
  }
  for (size_t i = logs_from; i < kit_capture_log_count(cap); i++) {
    char *line = kit_capture_log_at(cap, i, NULL);
    add(t, "a log line", kit_fmt(c, "%s", line ? line : ""));
    free(line);
  }
  for (size_t i = audit_from; i < kit_capture_audit_count(cap); i++) {
    char *line = kit_capture_audit_at(cap, i);
    add(t, "an audit event", kit_fmt(c, "%s", line ? line : ""));
    free(line);
  }
}

static void check_reaches(kit_case *c, const kit_run *r, const char *var, const kit_canary *k) {
  const char *got = kit_env_value(c, r->out, r->out_len, var);
  if (!got || strcmp(got, k->value) != 0)
    kit_fail(c, "%s did not reach the sandbox's environment intact (%s)", var,
             got ? "its value differs" : "not in the output of env");
}

static void provoke_errors(kit_case *c, sbio_sandbox *sb, texts *t) {
  kit_ctx *ctx = c->ctx;
  sbio_error *err = kit_err(c);
  sbio_code rc;
  if (ctx->caps & SBIO_CAP_FILESYSTEM) {
    unsigned char *data = NULL;
    size_t len = 0;
    rc = sbio_file_read(sb, kit_probe_name(c, "missing"), 0, &data, &len, err);
    sbio_free(data);
    add_error(c, t, "a read of a missing file", rc, err);
    rc = sbio_file_write(sb, kit_fmt(c, "%s/f", kit_probe_name(c, "missing-dir")), "x", 1, err);
    add_error(c, t, "a write into a missing directory", rc, err);
  }
  if (ctx->caps & SBIO_CAP_CONNECT) {
    sbio_sandbox *other = NULL;
    rc = sbio_sandbox_connect(ctx->host, ctx->backend, kit_probe_name(c, "no-such-id"), &other, err);
    if (other) kit_track(c, other);
    add_error(c, t, "a connect to an unknown id", rc, err);
  }
  if (ctx->caps & SBIO_CAP_RUN_COMMAND) {
    kit_run *r = kit_exec(c, sb, KIT_PROBE_ARGV(kit_probe_name(c, "no-such-command")), NULL, 0);
    add_error(c, t, "an exec of a missing command", r->rc, r->err);
    /* Last: a backend that swallows deadlines gets its sandbox killed here. */
    sbio_exec_options *xo = kit_xopts(c);
    sbio_exec_options_set_timeout(xo, ctx->opt.short_timeout);
    r = kit_exec(c, sb, PROBE_HANG, xo, ctx->opt.short_timeout + ctx->opt.grace);
    add_error(c, t, "an exec past its deadline", r->rc, r->err);
  }
}

void kit_secrets_no_secret_in_any_output(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  kit_canary secret, token;
  kit_canary_make(&secret, "sec");
  kit_canary_make(&token, "tok");
  size_t logs_from = kit_capture_log_count(&ctx->capture), audit_from = kit_capture_audit_count(&ctx->capture);
  size_t progress_from = kit_capture_progress_count(&ctx->capture);
  sbio_create_options *o = kit_opts(c);
  sbio_create_options_set_secret(o, KIT_SECRET_VAR, secret.value);
  sbio_create_options_set_env(o, KIT_TOKEN_VAR, token.value);
  sbio_sandbox *sb = kit_create_ok(c, o, "create with a secret");
  if (!sb) return;
  texts t = {0};
  add(&t, "the description", kit_describe(c, sb));
  if (ctx->caps & SBIO_CAP_RUN_COMMAND) {
    kit_run *r = kit_exec(c, sb, PROBE_ENV, NULL, 0);
    if (kit_run_ok(c, r, "env")) {
      check_reaches(c, r, KIT_SECRET_VAR, &secret);
      check_reaches(c, r, KIT_TOKEN_VAR, &token);
    }
  }
  provoke_errors(c, sb, &t);
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_sandbox_kill(sb, err);
  add_error(c, &t, "kill", rc, err);
  if (ctx->caps & SBIO_CAP_RUN_COMMAND) {
    kit_run *r = kit_exec(c, sb, PROBE_ECHO("gone"), NULL, 0);
    add_error(c, &t, "an exec after kill", r->rc, r->err);
  }
  add(&t, "the description after kill", kit_describe(c, sb));
  add_captured(c, &t, logs_from, audit_from, progress_from);
  scan(c, &t, &secret, "secret (set_secret)");
  scan(c, &t, &token, "credential-looking env value (" KIT_TOKEN_VAR ")");
  kit_note(c, "%zu texts checked", t.n);
}

/* ------------------------------------------------ declared credentials */
#define MAX_CREDS 16

/* The declared variables' values are the canaries: the value the variable
 * holds (a real key is never replaced: the backend needs it), or, when it
 * is unset, a planted canary, removed again at the end. */
typedef struct creds {
  const char *var[MAX_CREDS];
  kit_canary k[MAX_CREDS];
  int planted[MAX_CREDS];
  size_t n;
} creds;

static void plant(kit_case *c, creds *cr) {
  const sbio_backend_info *info = c->ctx->info;
  size_t n = sbio_backend_info_credential_count(info);
  for (size_t i = 0; i < n && cr->n < MAX_CREDS; i++) {
    const char *var = sbio_backend_info_credential_var(info, i);
    const char *have = var ? getenv(var) : NULL;
    kit_canary *k = &cr->k[cr->n];
    if (have && have[0]) {
      if (strlen(have) < 8) {
        kit_note(c, "%s holds fewer than 8 bytes: not searched for", var);
        continue;
      }
      snprintf(k->token, sizeof k->token, "%s", have);
      snprintf(k->value, sizeof k->value, "%s", have);
    } else {
      kit_canary_make(k, "cred");
      setenv(var, k->value, 1);
      cr->planted[cr->n] = 1;
    }
    cr->var[cr->n++] = var;
  }
}

static void unplant(const creds *cr) {
  for (size_t i = 0; i < cr->n; i++)
    if (cr->planted[i]) unsetenv(cr->var[i]);
}

/* What a backend's own code says, where a provider's echo of its key would
 * show: the create (log lines, progress, its error), the description,
 * errors of a missing file, an unknown id, a missing command and use
 * after kill, and the probe. */
static void provoke_backend(kit_case *c, texts *t) {
  kit_ctx *ctx = c->ctx;
  sbio_error *err = kit_err(c);
  sbio_code rc;
  char detail[1024] = "";
  rc = sbio_backend_probe(ctx->host, ctx->backend, detail, sizeof detail, err);
  add_error(c, t, "the probe", rc, err);
  add(t, "the probe's detail", kit_fmt(c, "%s", detail));
  if (ctx->caps & SBIO_CAP_CONNECT) {
    sbio_sandbox *other = NULL;
    rc = sbio_sandbox_connect(ctx->host, ctx->backend, kit_probe_name(c, "no-such-id"), &other, err);
    if (other) kit_track(c, other);
    add_error(c, t, "a connect to an unknown id", rc, err);
  }
  sbio_sandbox *sb = kit_create(c, kit_opts(c), &rc, err);
  add_error(c, t, "the create", rc, err);
  if (!sb) return;
  add(t, "the description", kit_describe(c, sb));
  if (ctx->caps & SBIO_CAP_FILESYSTEM) {
    unsigned char *data = NULL;
    size_t len = 0;
    rc = sbio_file_read(sb, kit_probe_name(c, "missing"), 0, &data, &len, err);
    sbio_free(data);
    add_error(c, t, "a read of a missing file", rc, err);
  }
  if (ctx->caps & SBIO_CAP_RUN_COMMAND) {
    kit_run *r = kit_exec(c, sb, KIT_PROBE_ARGV(kit_probe_name(c, "no-such-command")), NULL, 0);
    add_error(c, t, "an exec of a missing command", r->rc, r->err);
  }
  rc = sbio_sandbox_kill(sb, err);
  add_error(c, t, "kill", rc, err);
  if (ctx->caps & SBIO_CAP_RUN_COMMAND) {
    kit_run *r = kit_exec(c, sb, PROBE_ECHO("gone"), NULL, 0);
    add_error(c, t, "an exec after kill", r->rc, r->err);
  }
  add(t, "the description after kill", kit_describe(c, sb));
}

void kit_secrets_declared_credentials_never_shown(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  if (!sbio_backend_info_credential_count(ctx->info)) {
    kit_skip(c, "the backend declares no credential variable in its metadata");
    return;
  }
  creds cr = {0};
  plant(c, &cr);
  if (!cr.n) {
    kit_skip(c, "no declared credential variable could be searched for");
    return;
  }
  kit_capture *cap = &ctx->capture;
  size_t logs_from = kit_capture_log_count(cap), audit_from = kit_capture_audit_count(cap);
  size_t progress_from = kit_capture_progress_count(cap);
  texts t = {0};
  provoke_backend(c, &t);
  add_captured(c, &t, logs_from, audit_from, progress_from);
  unplant(&cr);
  for (size_t i = 0; i < cr.n; i++)
    scan(c, &t, &cr.k[i], kit_fmt(c, "value of %s%s", cr.var[i], cr.planted[i] ? " (planted)" : ""));
  kit_note(c, "%zu texts checked for %zu declared credential variable(s)", t.n, cr.n);
}
