/* SPDX-License-Identifier: MIT */
/* Sandbox lifecycle: create (through the admission gate: the requirement
 * and capabilities checked before anything is provisioned, and again
 * against what was observed), kill and close. Connect is connect.c. */
#include "admission.h"
#include "clock.h"
#include "create_gate.h"
#include "create_options.h"
#include "error_internal.h"
#include "host_internal.h"
#include "policy.h"
#include "uri.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TEARDOWN_GRACE_S 10.0

/* How long a kill may take; SBIO_TEARDOWN_GRACE overrides it. */
double sbio__teardown_grace(sbio_host *host) {
  const char *env = getenv("SBIO_TEARDOWN_GRACE");
  if (!env || !env[0]) return DEFAULT_TEARDOWN_GRACE_S;
  char *end = NULL;
  double v = strtod(env, &end);
  if (*end || !isfinite(v) || v <= 0) {
    sbio__log(host, SBIO_LOG_WARN, "ignoring SBIO_TEARDOWN_GRACE=\"%.32s\": not a positive number of seconds", env);
    return DEFAULT_TEARDOWN_GRACE_S;
  }
  return v;
}

/* ------------------------------------------------------------ helpers */
static void remember_secrets(sbio_host *host, const struct sbio_create_options *o) {
  for (size_t i = 0; i < o->secrets.n; i++) sbio__redactor_add(&host->redactor, o->secrets.values[i]);
  for (size_t i = 0; i < o->env.n; i++)
    if (sbio__looks_like_credential_key(o->env.keys[i])) sbio__redactor_add(&host->redactor, o->env.values[i]);
}

/* The first credential variable the backend's note declares, for the hint
 * of a credential refused in a target (a third-party backend gets its own
 * variable named, not a generic hint). */
static const char *declared_credential_var(void *user, const char *backend) {
  struct sbio_backend_info *b = sbio__registry_find(&((sbio_host *)user)->reg, backend);
  return b && b->cred_vars.n ? b->cred_vars.items[0] : NULL;
}

static sbio_code resolve_target(sbio_host *host, const char *uri, sbio__uri *parsed, sbio_error *err) {
  char buf[512];
  const char *target = uri;
  if (!target) {
    const char *def = host->cfg.default_backend;
    if (!def) def = "fake";
    /* default_backend may be a bare name ("docker") or a full URI. */
    if (!strstr(def, "://")) {
      snprintf(buf, sizeof buf, "%s://", def);
      def = buf;
    }
    target = def;
  }
  sbio__uri_ctx ctx = {declared_credential_var, host};
  return sbio__uri_parse_ex(target, parsed, &ctx, err);
}

static void fill_request(sbio_bk_create_req *req, sbio_host *host, const struct sbio_create_options *o,
                         const char *template_name, double timeout_s) {
  memset(req, 0, sizeof *req);
  req->size = sizeof *req;
  req->template_name = template_name;
  req->env = o->env.view;
  req->n_env = o->env.n;
  req->secrets = o->secrets.view;
  req->n_secrets = o->secrets.n;
  req->labels = o->labels.view;
  req->n_labels = o->labels.n;
  req->session_id = host->session_id;
  req->cpu = o->cpu;
  req->memory_mb = o->memory_mb;
  req->disk_mb = o->disk_mb;
  req->gpu = o->gpu;
  req->egress = (int)o->egress;
  req->allow = (const char *const *)o->allow.items;
  req->n_allow = o->allow.n;
  req->timeout_s = timeout_s;
}

/* Which mechanism a create would use, provisioning nothing. A backend with
 * a single mechanism may omit plan. */
static sbio_code plan_mechanism(struct sbio_backend_info *b, const sbio_bk_create_req *req, char *mech, size_t size,
                                sbio_error *err) {
  if (SBIO_OPS_HAS(b->ops, plan)) {
    sbio_bk_error bk = {.size = sizeof bk};
    if (b->ops->plan(b->instance, req, mech, size, &bk) != 0) return sbio__error_from_backend(err, &bk, b->name);
    mech[size - 1] = '\0';
    return SBIO_OK;
  }
  if (b->meta.n_mechs == 1) {
    snprintf(mech, size, "%s", b->meta.mechs[0].name);
    return SBIO_OK;
  }
  return sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE, NULL,
                         "backend %s declares %zu mechanisms but has no plan operation to choose one", b->name,
                         b->meta.n_mechs);
}

struct sbio_sandbox *sbio__sandbox_new(sbio_host *host, struct sbio_backend_info *b, void *handle,
                                       const sbio_bk_sandbox_info *info, const sbio__mechanism *mech) {
  struct sbio_sandbox *sb = calloc(1, sizeof *sb);
  if (!sb) return NULL;
  sb->host = host;
  sb->backend = b;
  sb->handle = handle;
  snprintf(sb->id, sizeof sb->id, "%.*s", (int)sizeof info->id - 1, info->id);
  snprintf(sb->mechanism, sizeof sb->mechanism, "%.*s", (int)sizeof info->mechanism - 1, info->mechanism);
  sb->mech = mech;
  sb->tier = mech ? mech->effective : SBIO_TIER_UNKNOWN;
  sb->caps = b->meta.caps;
  sb->timeout_s = SBIO_DEFAULT_TIMEOUT_S;
  atomic_init(&sb->killed, 0);
  pthread_mutex_init(&sb->kill_lock, NULL);
  return sb;
}

void sbio__sandbox_free(struct sbio_sandbox *sb) {
  sbio__kvlist_free(&sb->labels);
  pthread_mutex_destroy(&sb->kill_lock);
  free(sb);
}

/* Destroys a sandbox the core will not hand out (observed mechanism does
 * not satisfy the requirement, or the core ran out of memory). */
static void discard(sbio_host *host, struct sbio_backend_info *b, void *handle, const char *id) {
  sbio__call c;
  sbio__call_init(&c, host, NULL, sbio__deadline_after(sbio__teardown_grace(host)));
  sbio_bk_error bk = {.size = sizeof bk};
  if (!SBIO_OPS_HAS(b->ops, kill))
    sbio_bk_error_set(&bk, SBIO_E_BACKEND_UNAVAILABLE, NULL, "the backend has no kill operation");
  if (!SBIO_OPS_HAS(b->ops, kill) || b->ops->kill(handle, &c.call, &bk) != 0)
    sbio__log(host, SBIO_LOG_ERROR,
              "could not destroy sandbox %s:%s after a failed create: %.400s; "
              "`sbio reap --kill` removes it",
              b->name, id, bk.message);
  if (SBIO_OPS_HAS(b->ops, release)) b->ops->release(handle);
}

/* ------------------------------------------------------------ the gate */
/* The request itself: options, URI, template, timeout, backend. The URI
 * is freed by the caller (sbio__uri_free(&p->target)) whatever happens. */
sbio_code sbio__create_resolve(sbio_host *host, const char *uri, const struct sbio_create_options *o,
                               sbio__pre_create *p, sbio_error *err) {
  memset(p, 0, sizeof *p);
  if (o->invalid[0]) return sbio__error_set(err, SBIO_E_CONFIG, NULL, "invalid create options: %s", o->invalid);
  sbio_code rc = resolve_target(host, uri, &p->target, err);
  if (rc != SBIO_OK) return rc;
  if (sbio__template_has_userinfo(o->template_name))
    return sbio__uri_refuse_userinfo(p->target.backend, &(sbio__uri_ctx){declared_credential_var, host},
                                     "the template option", err);
  p->tmpl = p->target.template_name ? p->target.template_name : o->template_name;
  if (p->target.template_name && o->template_name && strcmp(p->target.template_name, o->template_name) != 0)
    return sbio__error_set(err, SBIO_E_CONFIG, "give the template once, in the URI or in the options",
                           "template \"%s\" in the URI differs from template \"%s\" in the options",
                           p->target.template_name, o->template_name);
  /* The URI's timeout wins over the option, as in the reference. */
  p->timeout_s = p->target.has_timeout ? p->target.timeout_s : (o->timeout_set ? o->timeout_s : SBIO_DEFAULT_TIMEOUT_S);
  /* The create's deadline runs from here: the backend's plan (which may
   * ask its engine or provider) counts against it, so a create never takes
   * longer than its timeout, plan included. */
  p->deadline_ns = sbio__deadline_after(p->timeout_s);
  rc = sbio__host_resolve_backend(host, p->target.backend, &p->b, err);
  if (rc == SBIO_OK) remember_secrets(host, o);
  return rc;
}

/* The create_denied event of a refusal, built only once the gate refuses:
 * a create that is admitted builds none. `check` marks the refusal of an
 * sbio_sandbox_check; `planned` is set when stage 2 refused the mechanism
 * the backend planned. */
static sbio_code deny(sbio_host *host, const sbio__pre_create *p, int check, int planned, sbio_code rc,
                      sbio_error *err) {
  sbio__event ev;
  sbio__event_begin(&ev, host, "create_denied");
  /* The mechanism the refusal's message cites: the planned one (stage 2),
   * or the declared one stage 1 found strongest. */
  sbio__event_backend(&ev, p->b, planned ? p->mech : p->gate.cited);
  if (planned) sbio__event_str(&ev, "mechanism", p->planned);
  sbio__event_str(&ev, "template", p->tmpl);
  if (check) sbio__event_int(&ev, "check", 1);
  sbio__admission_event_fields(&ev, &p->gate);
  return sbio__audit_finish(host, &ev, rc, err);
}

/* Both stages of the admission gate: stage 1 from metadata alone, before
 * the backend's code runs; then the backend's plan, provisioning nothing,
 * against the required tier (stage 2). A refusal is audited as
 * create_denied (`check`: by sbio_sandbox_check). */
sbio_code sbio__create_admit(sbio_host *host, const struct sbio_create_options *o, sbio__pre_create *p, int check,
                             sbio_error *err) {
  struct sbio_backend_info *b = p->b;
  sbio_code rc = sbio__admit_request(host, b, o->require_set, o->require, sbio__admit_create_needs(o), &p->gate, err);
  if (rc != SBIO_OK) return deny(host, p, check, 0, rc, err);

  /* From here on the backend's code runs, but nothing is provisioned
   * until its plan satisfies the requirement. */
  rc = sbio__host_backend_instance(host, b, err);
  fill_request(&p->req, host, o, p->tmpl, p->timeout_s);
  if (rc == SBIO_OK) rc = plan_mechanism(b, &p->req, p->planned, sizeof p->planned, err);
  if (rc != SBIO_OK) return deny(host, p, check, 0, rc, err);
  /* The gate, stage 2: the mechanism this create would use. */
  rc = sbio__admit_mechanism(host, b, &p->gate, p->planned, &p->mech, err);
  if (rc != SBIO_OK) return deny(host, p, check, 1, rc, err);
  return SBIO_OK;
}

sbio_code sbio_sandbox_check(sbio_host *host, const char *uri, const sbio_create_options *opts, sbio_tier *planned_tier,
                             sbio_error *err) {
  static const struct sbio_create_options no_options;
  if (planned_tier) *planned_tier = SBIO_TIER_UNKNOWN;
  if (!host) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "host is required");
  const struct sbio_create_options *o = opts ? opts : &no_options;
  sbio__pre_create p;
  sbio_code rc = sbio__create_resolve(host, uri, o, &p, err);
  if (rc == SBIO_OK) {
    /* Only a refusal is audited (as the create_denied a create with these
     * options would get, marked "check"): nothing else happened. */
    rc = sbio__create_admit(host, o, &p, 1, err);
    if (rc == SBIO_OK) {
      if (!p.mech || p.mech->effective == SBIO_TIER_UNKNOWN) sbio__policy_warn_unknown_once(host, p.b, p.planned);
      if (planned_tier) *planned_tier = p.mech ? p.mech->effective : SBIO_TIER_UNKNOWN;
    }
  }
  sbio__uri_free(&p.target);
  if (rc != SBIO_OK) sbio__host_redact_error(host, err);
  return rc;
}

/* -------------------------------------------------------------- create */
sbio_code sbio__create_requested(sbio_host *host, const sbio__pre_create *p, sbio_error *err) {
  sbio__event ev;
  sbio__event_begin(&ev, host, "create_requested");
  sbio__event_backend(&ev, p->b, NULL);
  sbio__event_str(&ev, "template", p->tmpl);
  return sbio__audit_emit(host, &ev, 0, err);
}

sbio_code sbio__create_observed(sbio_host *host, const sbio__pre_create *p, sbio_bk_sandbox_info *info,
                                const sbio__mechanism **observed, sbio_error *err) {
  struct sbio_backend_info *b = p->b;
  info->id[sizeof info->id - 1] = '\0';
  info->mechanism[sizeof info->mechanism - 1] = '\0';
  if (!info->mechanism[0]) snprintf(info->mechanism, sizeof info->mechanism, "%s", p->planned);
  *observed = NULL;
  sbio_code rc = sbio__admit_mechanism(host, b, &p->gate, info->mechanism, observed, err);
  if (rc == SBIO_OK && strcmp(info->mechanism, p->planned) != 0 && !*observed)
    sbio__policy_warn_unknown_once(host, b, info->mechanism);
  if (rc != SBIO_OK) {
    rc = sbio__error_set(err, SBIO_E_CREATE, NULL,
                         "sandbox %s was created with mechanism \"%s\" instead of the planned \"%s\", which does not "
                         "meet the required isolation %s; it has been destroyed",
                         info->id, info->mechanism, p->planned, sbio_tier_name(p->gate.required));
    sbio__error_set_backend(err, b->name);
  }
  return rc;
}

void sbio__created_event(sbio__event *ev, sbio_host *host, const sbio__pre_create *p) {
  sbio__event_begin(ev, host, "created");
  sbio__event_backend(ev, p->b, p->mech);
  sbio__event_str(ev, "mechanism", p->planned);
  sbio__event_str(ev, "template", p->tmpl);
}

sbio_code sbio__create_provision(sbio_host *host, const struct sbio_create_options *o, sbio__pre_create *p,
                                 sbio_sandbox **out, sbio_error *err) {
  struct sbio_backend_info *b = p->b;
  if (!p->mech || p->mech->effective == SBIO_TIER_UNKNOWN) sbio__policy_warn_unknown_once(host, b, p->planned);
  if (!SBIO_OPS_HAS(b->ops, create))
    return sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE, NULL, "backend %s cannot create sandboxes", b->name);

  sbio__event ev;
  sbio__created_event(&ev, host, p);
  sbio__call c;
  sbio__call_init(&c, host, NULL, p->deadline_ns);
  sbio_bk_sandbox_info info = {.size = sizeof info};
  sbio_bk_error bk = {.size = sizeof bk};
  void *handle = NULL;
  if (b->ops->create(b->instance, &p->req, &c.call, &handle, &info, &bk) != 0) {
    sbio_code rc = sbio__error_from_backend(err, &bk, b->name);
    sbio__event_str(&ev, "event", "create_failed");
    return sbio__audit_finish(host, &ev, rc, err);
  }

  /* Observed: the backend reports what it actually used. */
  const sbio__mechanism *observed = NULL;
  sbio_code rc = sbio__create_observed(host, p, &info, &observed, err);
  struct sbio_sandbox *sb = rc == SBIO_OK ? sbio__sandbox_new(host, b, handle, &info, observed) : NULL;
  if (rc == SBIO_OK &&
      (!sb || sbio__kvlist_copy(&sb->labels, &o->labels) != 0 || sbio__host_adopt_sandbox(host, sb) != 0)) {
    if (sb) sbio__sandbox_free(sb);
    sb = NULL;
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  sbio__event_str(&ev, "sandbox_id", info.id);
  sbio__event_backend(&ev, b, observed);
  sbio__event_str(&ev, "mechanism", info.mechanism);
  if (!sb) {
    discard(host, b, handle, info.id);
    sbio__event_str(&ev, "event", "create_failed");
    return sbio__audit_finish(host, &ev, rc, err);
  }
  sb->timeout_s = p->timeout_s;
  sbio__event_sandbox(&ev, sb);
  rc = sbio__audit_finish(host, &ev, SBIO_OK, err);
  if (rc != SBIO_OK) {
    /* The audit sink must record every sandbox: without it, none exists. */
    sbio_sandbox_close(sb, NULL);
    return rc;
  }
  *out = sb;
  return SBIO_OK;
}

sbio_code sbio_sandbox_create(sbio_host *host, const char *uri, const sbio_create_options *opts, sbio_sandbox **out,
                              sbio_error *err) {
  static const struct sbio_create_options no_options;
  if (!host || !out) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "host and out are required");
  *out = NULL;
  const struct sbio_create_options *o = opts ? opts : &no_options;
  sbio__pre_create p;
  sbio_code rc = sbio__create_resolve(host, uri, o, &p, err);
  if (rc == SBIO_OK) rc = sbio__create_requested(host, &p, err);
  if (rc == SBIO_OK) rc = sbio__create_admit(host, o, &p, 0, err);
  if (rc == SBIO_OK) rc = sbio__create_provision(host, o, &p, out, err);
  sbio__uri_free(&p.target);
  if (rc != SBIO_OK) sbio__host_redact_error(host, err);
  return rc;
}

/* ---------------------------------------------------------- kill/close */
static void labels_text(const struct sbio_sandbox *sb, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sb->labels.n; i++) {
    int n = snprintf(buf + used, size - used, "%s%s=%s", used ? " " : "", sb->labels.keys[i], sb->labels.values[i]);
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
}

/* deadline_ns 0: the teardown grace from now. */
static sbio_code kill_by(sbio_sandbox *sb, int64_t deadline_ns, sbio_error *err) {
  if (!sb) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sandbox is NULL");
  sbio_host *host = sb->host;
  pthread_mutex_lock(&sb->kill_lock);
  if (sb->destroyed) {
    pthread_mutex_unlock(&sb->kill_lock);
    return SBIO_OK;
  }
  /* Cancels an exec in flight on another thread (its call's cancelled()
   * turns true) before the backend is asked to destroy the sandbox. */
  atomic_store(&sb->killed, 1);
  sbio__event ev;
  sbio__event_begin(&ev, host, "kill");
  sbio__event_sandbox(&ev, sb);
  sbio_code rc = SBIO_OK;
  char labels[512];
  labels_text(sb, labels, sizeof labels);
  if (!SBIO_OPS_HAS(sb->backend->ops, kill)) {
    /* The loader refuses such a backend (ops_contract.c); should one get
     * here anyway, nothing was destroyed and success would be a lie. */
    rc = sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE, "`sbio reap --kill` or the provider's console removes it",
                         "backend %s has no kill operation: sandbox %s:%s%s%s was not destroyed", sb->backend->name,
                         sb->backend->name, sb->id, labels[0] ? " " : "", labels);
    sbio__error_set_backend(err, sb->backend->name);
    sbio__error_set_sandbox_id(err, sb->id);
  } else {
    sbio__call c;
    sbio__call_init(&c, host, NULL, deadline_ns ? deadline_ns : sbio__deadline_after(sbio__teardown_grace(host)));
    sbio_bk_error bk = {.size = sizeof bk};
    if (sb->backend->ops->kill(sb->handle, &c.call, &bk) != 0) {
      rc = sbio__error_from_backend(err, &bk, sb->backend->name);
      sbio__error_prefix(err, "kill of sandbox %s:%s%s%s failed", sb->backend->name, sb->id, labels[0] ? " " : "",
                         labels);
      sbio__error_set_sandbox_id(err, sb->id);
    }
  }
  if (rc == SBIO_OK) sb->destroyed = 1;
  rc = sbio__audit_finish(host, &ev, rc, err);
  pthread_mutex_unlock(&sb->kill_lock);
  return rc;
}

sbio_code sbio_sandbox_kill(sbio_sandbox *sb, sbio_error *err) {
  return kill_by(sb, 0, err);
}

sbio_code sbio__sandbox_close_by(sbio_sandbox *sb, int64_t deadline_ns, sbio_error *err) {
  if (!sb) return SBIO_OK;
  sbio_host *host = sb->host;
  sbio_code rc = kill_by(sb, deadline_ns, err);
  if (rc != SBIO_OK && rc != SBIO_E_AUDIT_SINK) {
    char labels[512];
    labels_text(sb, labels, sizeof labels);
    if (deadline_ns)
      sbio__log(host, SBIO_LOG_ERROR,
                "teardown not confirmed within %.3g s of the deadline: sandbox %s:%s (labels: %s) may still exist; "
                "its lifetime backstop ends it, `sbio reap --kill` removes it",
                SBIO_DEADLINE_MARGIN_S, sb->backend->name, sb->id, labels[0] ? labels : "none");
    else
      sbio__log(host, SBIO_LOG_ERROR,
                "teardown failed: sandbox %s:%s (labels: %s) may still exist; `sbio reap --kill` removes it",
                sb->backend->name, sb->id, labels[0] ? labels : "none");
  }
  if (SBIO_OPS_HAS(sb->backend->ops, release)) sb->backend->ops->release(sb->handle);
  sbio__host_forget_sandbox(host, sb);
  sbio__sandbox_free(sb);
  return rc;
}

sbio_code sbio_sandbox_close(sbio_sandbox *sb, sbio_error *err) {
  return sbio__sandbox_close_by(sb, 0, err);
}

/* ----------------------------------------------------------- accessors */
const char *sbio_sandbox_id(const sbio_sandbox *sb) {
  return sb ? sb->id : "";
}
const char *sbio_sandbox_backend(const sbio_sandbox *sb) {
  return sb ? sb->backend->name : "";
}
const char *sbio_sandbox_mechanism(const sbio_sandbox *sb) {
  return sb ? sb->mechanism : "";
}
sbio_tier sbio_sandbox_tier(const sbio_sandbox *sb) {
  return sb ? sb->tier : SBIO_TIER_UNKNOWN;
}
sbio_caps sbio_sandbox_capabilities(const sbio_sandbox *sb) {
  return sb ? sb->caps : 0;
}
int sbio_sandbox_exec_cancellable(const sbio_sandbox *sb) {
  return sb && (SBIO_OPS_FEATURES(sb->backend->ops) & SBIO_BK_FEATURE_EXEC_CANCEL) ? 1 : 0;
}

int sbio_sandbox_alive(const sbio_sandbox *sb) {
  return sb && !atomic_load(&sb->killed);
}

size_t sbio_sandbox_describe(const sbio_sandbox *sb, char *buf, size_t size) {
  if (!sb) return (size_t)snprintf(buf, size, "Sandbox(?)");
  char raw[512];
  snprintf(raw, sizeof raw, "Sandbox(%s:%s %s/%s %s)", sb->backend->name, sb->id, sbio_tier_name(sb->tier),
           sb->mechanism, atomic_load(&sb->killed) ? "killed" : "running");
  char *clean = sbio__redact(&sb->host->redactor, raw);
  int n = snprintf(buf, size, "%s", clean ? clean : SBIO_REDACTED);
  free(clean);
  return n < 0 ? 0 : (size_t)n;
}
