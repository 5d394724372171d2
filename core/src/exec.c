/* SPDX-License-Identifier: MIT */
/* Running processes in a sandbox: argv or shell string, with a deadline
 * that is never unbounded, buffered output under a cap, streaming
 * callbacks that see every byte, and an optional cancellation token that
 * ends this one exec and keeps the sandbox (sbio_cancel). */
#include "clock.h"
#include "error_internal.h"
#include "exec_job.h"
#include "exec_options.h"
#include "host_internal.h"
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *data;
  size_t len, cap;
} buffer;

struct sbio_exec_result {
  int exit_code;
  buffer out, err;
  int truncated;
  int64_t duration_ms;
};

typedef struct {
  struct sbio_exec_result *result;
  size_t limit;
  long long bytes;
  sbio_output_fn fn;
  void *user;
} collector;

static void buffer_append(buffer *b, const char *data, size_t len, size_t limit, int *truncated) {
  size_t room = limit > b->len ? limit - b->len : 0;
  if (len > room) {
    *truncated = 1;
    len = room;
  }
  if (!len) return;
  if (b->len + len + 1 > b->cap) {
    size_t ncap = b->cap ? b->cap : 256;
    while (ncap < b->len + len + 1) ncap *= 2;
    char *p = realloc(b->data, ncap);
    if (!p) {
      *truncated = 1;
      return;
    }
    b->data = p;
    b->cap = ncap;
  }
  memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
}

static void collect(void *user, int stream, const char *data, size_t len) {
  collector *c = user;
  if (!data || !len) return;
  c->bytes += (long long)len;
  buffer *b = stream == SBIO_STDERR ? &c->result->err : &c->result->out;
  buffer_append(b, data, len, c->limit, &c->result->truncated);
  if (c->fn) c->fn(stream == SBIO_STDERR ? SBIO_STDERR : SBIO_STDOUT, data, len, c->user);
}

/* ------------------------------------------------------------ the job */
/* One exec's request, output and result, for a sandbox's exec (below) and
 * for sbio_run (run.c), which hands the same request to a backend's
 * one-shot operation. */
struct sbio__exec_job {
  struct sbio_exec_result *result;
  collector col;
  sbio_bk_exec_req req;
  const char *const *argv; /* what the event records: argv, or the script */
  size_t argc;
  int shell;
  double timeout_s;
  int64_t started;
};

sbio_code sbio__exec_job_new(sbio_host *host, const struct sbio_backend_info *b, sbio_caps caps,
                             const char *const *argv, const char *script, const sbio_exec_options *opts,
                             double default_timeout_s, sbio__exec_job **out, sbio_error *err) {
  static const sbio_exec_options no_options = {.output_cap = SBIO_DEFAULT_OUTPUT_CAP};
  *out = NULL;
  const sbio_exec_options *o = opts ? opts : &no_options;
  size_t argc = 0;
  if (argv)
    while (argv[argc]) argc++;
  if (!script && argc == 0) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "argv is empty");
  if (o->invalid[0]) return sbio__error_set(err, SBIO_E_CONFIG, NULL, "invalid exec options: %s", o->invalid);
  if (!(caps & SBIO_CAP_RUN_COMMAND)) return sbio__capability_error(host, b->name, SBIO_CAP_RUN_COMMAND, err);
  if (o->has_stdin && !(caps & SBIO_CAP_STDIN)) return sbio__capability_error(host, b->name, SBIO_CAP_STDIN, err);
  /* An exec's environment is as likely as a create's to carry a credential
   * (GITHUB_TOKEN for one command): a value under a key that looks like one
   * is redacted from every message, event and log line from here on, as
   * the create's are (sandbox.c). */
  for (size_t i = 0; i < o->env.n; i++)
    if (sbio__looks_like_credential_key(o->env.keys[i])) sbio__redactor_add(&host->redactor, o->env.values[i]);
  sbio__exec_job *j = calloc(1, sizeof *j);
  struct sbio_exec_result *result = j ? calloc(1, sizeof *result) : NULL;
  if (!result) {
    free(j);
    return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  j->result = result;
  j->col = (collector){.result = result, .limit = o->output_cap, .fn = o->output_fn, .user = o->output_user};
  j->req = (sbio_bk_exec_req){.size = sizeof j->req,
                              .argv = script ? NULL : argv,
                              .argc = script ? 0 : argc,
                              .shell = script,
                              .env = o->env.view,
                              .n_env = o->env.n,
                              .cwd = o->cwd,
                              .has_stdin = o->has_stdin,
                              .stdin_data = o->stdin_data,
                              .stdin_len = o->stdin_len,
                              .output = collect,
                              .output_user = &j->col};
  j->shell = script != NULL;
  j->argv = script ? NULL : argv;
  j->argc = argc;
  j->timeout_s = o->timeout_set ? o->timeout_s : default_timeout_s;
  *out = j;
  return SBIO_OK;
}

const sbio_bk_exec_req *sbio__exec_job_req(const sbio__exec_job *j) {
  return &j->req;
}

double sbio__exec_job_timeout(const sbio__exec_job *j) {
  return j->timeout_s;
}

void sbio__exec_job_event(const sbio__exec_job *j, sbio__event *ev) {
  if (j->shell)
    sbio__event_argv(ev, (const char *const[]){j->req.shell}, 1);
  else
    sbio__event_argv(ev, j->argv, j->argc);
  sbio__event_int(ev, "shell", j->shell);
  sbio__event_int(ev, "bytes_in", (long long)j->req.stdin_len);
}

void sbio__exec_job_started(sbio__exec_job *j) {
  j->started = sbio__monotonic_ns();
}

void sbio__exec_job_ended(sbio__exec_job *j, int exit_code, int ran, sbio__event *ev) {
  j->result->exit_code = exit_code;
  j->result->duration_ms = (sbio__monotonic_ns() - j->started) / 1000000;
  if (ran) sbio__event_int(ev, "exit_code", exit_code);
  sbio__event_int(ev, "bytes_out", j->col.bytes);
}

sbio_exec_result *sbio__exec_job_take_result(sbio__exec_job *j) {
  sbio_exec_result *r = j->result;
  j->result = NULL;
  return r;
}

void sbio__exec_job_free(sbio__exec_job *j) {
  if (!j) return;
  sbio_exec_result_free(j->result);
  free(j);
}

/* ------------------------------------------------------------ the exec */
static sbio_code exec_common(sbio_sandbox *sb, const char *const *argv, const char *script,
                             const sbio_exec_options *opts, sbio_exec_result **out, sbio_error *err) {
  if (out) *out = NULL;
  if (!sb) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sandbox is NULL");
  sbio_host *host = sb->host;
  const struct sbio_backend_info *b = sb->backend;
  const sbio_cancel *cancel = opts ? opts->cancel : NULL;
  if (atomic_load(&sb->killed)) {
    sbio__error_set(err, SBIO_E_GONE, "create a new sandbox", "sandbox %s:%s was killed", b->name, sb->id);
    sbio__error_set_sandbox_id(err, sb->id);
    return SBIO_E_GONE;
  }
  if (!SBIO_OPS_HAS(b->ops, exec)) return sbio__capability_error(host, b->name, SBIO_CAP_RUN_COMMAND, err);
  sbio__exec_job *j = NULL;
  sbio_code rc = sbio__exec_job_new(host, b, sb->caps, argv, script, opts, sb->timeout_s, &j, err);
  if (rc != SBIO_OK) return rc;
  /* A token the backend cannot honour would leave the process running
   * while the caller believes it stopped: refuse it instead. */
  if (cancel && !sbio_sandbox_exec_cancellable(sb)) {
    sbio__exec_job_free(j);
    sbio__error_set(err, SBIO_E_CAPABILITY,
                    "run the exec without a cancellation token (sbio_sandbox_exec_cancellable() says when one works), "
                    "or use sbio_sandbox_kill to stop it with the sandbox",
                    "backend %s cannot cancel one exec without ending the sandbox", b->name);
    sbio__error_set_backend(err, b->name);
    return SBIO_E_CAPABILITY;
  }

  sbio__event ev;
  sbio__event_begin(&ev, host, "exec");
  sbio__event_sandbox(&ev, sb);
  sbio__exec_job_event(j, &ev);

  sbio__call c;
  sbio__call_init(&c, host, sb, sbio__deadline_after(j->timeout_s));
  c.cancel = cancel;
  sbio_bk_error bk = {.size = sizeof bk};
  int exit_code = -1;
  sbio__exec_job_started(j);
  if (sbio_cancel_requested(cancel)) {
    /* Cancelled before it began: nothing runs, but the attempt is audited. */
    rc = sbio__error_set(err, SBIO_E_CANCELLED, NULL, "exec in sandbox %s:%s was cancelled before it started", b->name,
                         sb->id);
    sbio__error_set_sandbox_id(err, sb->id);
  } else if (b->ops->exec(sb->handle, &j->req, &c.call, &exit_code, &bk) != 0) {
    rc = sbio__error_from_backend(err, &bk, b->name);
    sbio__error_set_sandbox_id(err, sb->id);
  }
  int ran = rc == SBIO_OK || rc == SBIO_E_EXEC_TIMEOUT || (rc == SBIO_E_CANCELLED && exit_code >= 0);
  sbio__exec_job_ended(j, exit_code, ran, &ev);
  rc = sbio__audit_finish(host, &ev, rc, err);
  /* On a deadline or a cancellation the caller still gets what was
   * printed before it. */
  if (out && (rc == SBIO_OK || rc == SBIO_E_EXEC_TIMEOUT || rc == SBIO_E_CANCELLED))
    *out = sbio__exec_job_take_result(j);
  sbio__exec_job_free(j);
  return rc;
}

sbio_code sbio_sandbox_exec(sbio_sandbox *sb, const char *const *argv, const sbio_exec_options *opts,
                            sbio_exec_result **out, sbio_error *err) {
  if (!argv || !argv[0]) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "argv is empty");
  return exec_common(sb, argv, NULL, opts, out, err);
}

sbio_code sbio_sandbox_exec_shell(sbio_sandbox *sb, const char *script, const sbio_exec_options *opts,
                                  sbio_exec_result **out, sbio_error *err) {
  if (!script) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "script is NULL");
  return exec_common(sb, NULL, script, opts, out, err);
}

int sbio_exec_result_exit_code(const sbio_exec_result *r) {
  return r ? r->exit_code : -1;
}
const char *sbio_exec_result_stdout(const sbio_exec_result *r, size_t *len) {
  if (len) *len = r ? r->out.len : 0;
  return r && r->out.data ? r->out.data : "";
}
const char *sbio_exec_result_stderr(const sbio_exec_result *r, size_t *len) {
  if (len) *len = r ? r->err.len : 0;
  return r && r->err.data ? r->err.data : "";
}
int sbio_exec_result_truncated(const sbio_exec_result *r) {
  return r ? r->truncated : 0;
}
int64_t sbio_exec_result_duration_ms(const sbio_exec_result *r) {
  return r ? r->duration_ms : 0;
}
void sbio_exec_result_free(sbio_exec_result *r) {
  if (!r) return;
  free(r->out.data);
  free(r->err.data);
  free(r);
}
