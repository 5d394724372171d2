/* SPDX-License-Identifier: MIT */
/* sbio_run: one command in a sandbox made for it alone. The request goes
 * through the same gate as a create (create_gate.h); then a backend with
 * a one-shot operation (backend ABI 1.5, `run`) creates, runs and destroys
 * in one call, which lets it make the command the sandbox's own process;
 * any other backend gets create, exec and close. The audit log reads the
 * same either way: create_requested, created, exec, kill. */
#include "clock.h"
#include "create_gate.h"
#include "create_options.h"
#include "error_internal.h"
#include "exec_job.h"
#include "exec_options.h"
#include "host_internal.h"
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------- one-shot backend */
typedef struct one_shot {
  sbio_host *host;
  const struct sbio_create_options *o;
  sbio__pre_create *p;
  struct sbio_sandbox *sb; /* made at admission: the events' sandbox fields */
  sbio_code rc;            /* what admission decided, when it refused */
  sbio_error *err;
} one_shot;

/* The backend made the sandbox and has not started the command: the
 * gate's check of what it observed, then the created event (which, under
 * audit.on_failure: fail, must be recorded for the sandbox to be used). */
static int admit(void *user, const sbio_bk_sandbox_info *raw) {
  one_shot *s = user;
  sbio__pre_create *p = s->p;
  sbio_bk_sandbox_info info = *raw;
  const sbio__mechanism *observed = NULL;
  sbio__event ev;
  sbio__created_event(&ev, s->host, p);
  sbio_code rc = sbio__create_observed(s->host, p, &info, &observed, s->err);
  struct sbio_sandbox *sb = rc == SBIO_OK ? sbio__sandbox_new(s->host, p->b, NULL, &info, observed) : NULL;
  if (rc == SBIO_OK && (!sb || sbio__kvlist_copy(&sb->labels, &s->o->labels) != 0)) {
    if (sb) sbio__sandbox_free(sb);
    sb = NULL;
    rc = sbio__error_set(s->err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  sbio__event_str(&ev, "sandbox_id", info.id);
  sbio__event_backend(&ev, p->b, observed);
  sbio__event_str(&ev, "mechanism", info.mechanism);
  if (!sb) {
    sbio__event_str(&ev, "event", "create_failed");
    s->rc = sbio__audit_finish(s->host, &ev, rc, s->err);
    return -1;
  }
  sb->timeout_s = p->timeout_s;
  sbio__event_sandbox(&ev, sb);
  s->sb = sb;
  rc = sbio__audit_finish(s->host, &ev, SBIO_OK, s->err);
  if (rc != SBIO_OK) {
    s->rc = rc; /* the audit sink must record every sandbox: without it, none runs */
    return -1;
  }
  return 0;
}

/* The kill event of a one-shot run: the backend's teardown, audited as a
 * kill is. */
static void audit_teardown(sbio_host *host, struct sbio_sandbox *sb, int removed) {
  sbio__event ev;
  sbio__event_begin(&ev, host, "kill");
  sbio__event_sandbox(&ev, sb);
  sbio_error *why = removed ? NULL : sbio_error_new();
  sbio_code rc = SBIO_OK;
  if (!removed) {
    rc = sbio__error_set(why, SBIO_E_BACKEND_UNAVAILABLE, "`sbio reap --kill` removes it",
                         "backend %s could not confirm that sandbox %s:%s is destroyed", sb->backend->name,
                         sb->backend->name, sb->id);
    sbio__log(host, SBIO_LOG_ERROR, "teardown failed: sandbox %s:%s may still exist; `sbio reap --kill` removes it",
              sb->backend->name, sb->id);
  }
  sbio__audit_finish(host, &ev, rc, why);
  sbio_error_free(why);
}

static sbio_code run_one_shot(sbio_host *host, const struct sbio_create_options *o, sbio__pre_create *p,
                              sbio__exec_job *j, const sbio_cancel *cancel, sbio_error *err) {
  struct sbio_backend_info *b = p->b;
  if (!p->mech || p->mech->effective == SBIO_TIER_UNKNOWN) sbio__policy_warn_unknown_once(host, b, p->planned);
  one_shot s = {.host = host, .o = o, .p = p, .rc = SBIO_OK, .err = err};
  const double grace = sbio__teardown_grace(host);
  sbio_bk_run_req req = {.size = sizeof req,
                         .create = &p->req,
                         .exec = sbio__exec_job_req(j),
                         .admit = admit,
                         .admit_user = &s,
                         /* After the deadline, the margin bounds it. */
                         .teardown_s = grace < SBIO_DEADLINE_MARGIN_S ? grace : SBIO_DEADLINE_MARGIN_S};
  sbio__call c;
  sbio__call_init(&c, host, NULL, sbio__deadline_after(sbio__exec_job_timeout(j)));
  c.cancel = cancel;
  c.cancel_kills = 1;
  sbio_bk_sandbox_info info = {.size = sizeof info};
  sbio_bk_error bk = {.size = sizeof bk};
  int exit_code = -1, removed = 0;
  sbio__exec_job_started(j);
  int failed = b->ops->run(b->instance, &req, &c.call, &info, &exit_code, &removed, &bk) != 0;
  info.id[sizeof info.id - 1] = '\0';
  if (!s.sb) {
    /* Refused at admission (the error is ours), or failed before it. */
    sbio_code rc = s.rc;
    if (rc == SBIO_OK) {
      sbio__event ev;
      sbio__created_event(&ev, host, p);
      if (info.id[0]) sbio__event_str(&ev, "sandbox_id", info.id);
      sbio__event_str(&ev, "event", "create_failed");
      rc = failed
               ? sbio__error_from_backend(err, &bk, b->name)
               : sbio__error_set(err, SBIO_E_CREATE, NULL,
                                 "backend %s ended the run before its sandbox was admitted, without an error", b->name);
      rc = sbio__audit_finish(host, &ev, rc, err);
    }
    if (!removed && info.id[0])
      sbio__log(host, SBIO_LOG_ERROR, "teardown failed: sandbox %s:%s may still exist; `sbio reap --kill` removes it",
                b->name, info.id);
    return rc;
  }
  struct sbio_sandbox *sb = s.sb;
  sbio__event ev;
  sbio__event_begin(&ev, host, "exec");
  sbio__event_sandbox(&ev, sb);
  sbio__exec_job_event(j, &ev);
  sbio_code rc = SBIO_OK;
  if (failed) {
    rc = sbio__error_from_backend(err, &bk, b->name);
    sbio__error_set_sandbox_id(err, sb->id);
  }
  int ran = rc == SBIO_OK || rc == SBIO_E_EXEC_TIMEOUT || (rc == SBIO_E_CANCELLED && exit_code >= 0);
  sbio__exec_job_ended(j, exit_code, ran, &ev);
  rc = sbio__audit_finish(host, &ev, rc, err);
  audit_teardown(host, sb, removed);
  sbio__sandbox_free(sb);
  return rc;
}

/* ------------------------------------------------------------ fallback */
/* create, exec, close. The token, if any, means "end the run": it is the
 * sandbox's kill token, so calls in flight end as for a kill, and the
 * close destroys it. */
static sbio_code run_in_new_sandbox(sbio_host *host, const struct sbio_create_options *o, sbio__pre_create *p,
                                    const sbio__exec_job *j, const char *const *argv, const char *script,
                                    const sbio_exec_options *eopts, const sbio_cancel *cancel, sbio_exec_result **out,
                                    sbio_error *err) {
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio__create_provision(host, o, p, &sb, err);
  if (rc != SBIO_OK) return rc;
  sb->kill_token = cancel;
  /* The command's deadline (the exec's starts a moment later): the
   * teardown ends within SBIO_DEADLINE_MARGIN_S of it, whatever the
   * backend's engine does, and never takes longer than the grace. */
  const int64_t deadline = sbio__deadline_after(sbio__exec_job_timeout(j));
  struct sbio_exec_options copy;
  if (eopts) {
    copy = *eopts;
    copy.cancel = NULL; /* the kill token above stands for it */
  }
  if (sbio_cancel_requested(cancel))
    rc = sbio__error_set(err, SBIO_E_CANCELLED, NULL, "the run was cancelled before its command started");
  else if (script)
    rc = sbio_sandbox_exec_shell(sb, script, eopts ? &copy : NULL, out, err);
  else
    rc = sbio_sandbox_exec(sb, argv, eopts ? &copy : NULL, out, err);
  if (sbio_cancel_requested(cancel) && rc != SBIO_E_CANCELLED) {
    if (rc != SBIO_OK) sbio_error_clear(err);
    rc = sbio__error_set(err, SBIO_E_CANCELLED, NULL, "the run was cancelled; sandbox %s:%s is destroyed",
                         sb->backend->name, sb->id);
  }
  int64_t by = sbio__deadline_after(sbio__teardown_grace(host));
  const int64_t margin = (int64_t)(SBIO_DEADLINE_MARGIN_S * 1e9);
  if (deadline < by - margin) by = deadline + margin;
  const int64_t least = sbio__deadline_after(0.5); /* time to send the request, at least */
  if (by < least) by = least;
  /* A teardown that fails is logged with the sandbox id (for `sbio reap
   * --kill`), as sbio_run promises; the command's own outcome stands. */
  sbio__sandbox_close_by(sb, by, NULL);
  return rc;
}

/* -------------------------------------------------------------- common */
static sbio_code run_common(sbio_host *host, const char *uri, const sbio_create_options *copts, const char *const *argv,
                            const char *script, const sbio_exec_options *eopts, sbio_exec_result **out,
                            sbio_error *err) {
  static const struct sbio_create_options no_options;
  if (out) *out = NULL;
  if (!host) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "host is required");
  const struct sbio_create_options *o = copts ? copts : &no_options;
  const sbio_cancel *cancel = eopts ? eopts->cancel : NULL;
  sbio__pre_create p;
  sbio__exec_job *j = NULL;
  sbio_code rc = sbio__create_resolve(host, uri, o, &p, err);
  if (rc == SBIO_OK) rc = sbio__create_requested(host, &p, err);
  if (rc == SBIO_OK) rc = sbio__create_admit(host, o, &p, 0, err);
  /* The command and its options, checked before anything is provisioned. */
  if (rc == SBIO_OK) rc = sbio__exec_job_new(host, p.b, p.b->meta.caps, argv, script, eopts, p.timeout_s, &j, err);
  if (rc == SBIO_OK && !SBIO_OPS_HAS(p.b->ops, run) && !SBIO_OPS_HAS(p.b->ops, exec))
    rc = sbio__capability_error(host, p.b->name, SBIO_CAP_RUN_COMMAND, err);
  if (rc == SBIO_OK && sbio_cancel_requested(cancel))
    rc = sbio__error_set(err, SBIO_E_CANCELLED, NULL, "the run was cancelled before anything was created");
  if (rc == SBIO_OK && SBIO_OPS_HAS(p.b->ops, run)) {
    rc = run_one_shot(host, o, &p, j, cancel, err);
    if (out && (rc == SBIO_OK || rc == SBIO_E_EXEC_TIMEOUT || rc == SBIO_E_CANCELLED))
      *out = sbio__exec_job_take_result(j);
  } else if (rc == SBIO_OK) {
    rc = run_in_new_sandbox(host, o, &p, j, argv, script, eopts, cancel, out, err);
  }
  sbio__exec_job_free(j);
  sbio__uri_free(&p.target);
  if (rc != SBIO_OK) sbio__host_redact_error(host, err);
  return rc;
}

sbio_code sbio_run(sbio_host *host, const char *uri, const sbio_create_options *copts, const char *const *argv,
                   const sbio_exec_options *eopts, sbio_exec_result **out, sbio_error *err) {
  if (!argv || !argv[0]) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "argv is empty");
  return run_common(host, uri, copts, argv, NULL, eopts, out, err);
}

sbio_code sbio_run_shell(sbio_host *host, const char *uri, const sbio_create_options *copts, const char *script,
                         const sbio_exec_options *eopts, sbio_exec_result **out, sbio_error *err) {
  if (!script) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "script is NULL");
  return run_common(host, uri, copts, NULL, script, eopts, out, err);
}
