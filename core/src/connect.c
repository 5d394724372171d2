/* SPDX-License-Identifier: MIT */
/* Connect: attaching to a sandbox that already exists, through the same
 * admission gate as a create (admission.h). A connect is refused before
 * the backend is asked when no mechanism of the backend could meet the
 * requirement or a needed capability is undeclared, and before a handle is
 * returned when the mechanism the backend reports for that sandbox does
 * not meet it. A sandbox refused that way was somebody's before the
 * connect and stays theirs: its handle is released, never killed. */
#include "admission.h"
#include "clock.h"
#include "error_internal.h"
#include "host_internal.h"
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONNECT_TIMEOUT_S 60.0

struct sbio_connect_options {
  int require_set;
  sbio_tier require;
  sbio_caps required_caps;
  char invalid[160]; /* first refused setting; a connect with it fails */
};

sbio_connect_options *sbio_connect_options_new(void) {
  return calloc(1, sizeof(sbio_connect_options));
}

void sbio_connect_options_free(sbio_connect_options *o) {
  free(o);
}

static sbio_code refuse(sbio_connect_options *o, const char *what) {
  if (!o->invalid[0]) snprintf(o->invalid, sizeof o->invalid, "%s", what);
  return SBIO_E_CONFIG;
}

sbio_code sbio_connect_options_require_isolation(sbio_connect_options *o, sbio_tier tier) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  o->require_set = 1;
  o->require = tier;
  if (tier == SBIO_TIER_UNKNOWN || sbio_tier_rank(tier) < 0)
    return refuse(o, "requiring isolation UNKNOWN (or a value that is not a tier) is meaningless");
  return SBIO_OK;
}

sbio_code sbio_connect_options_require_capabilities(sbio_connect_options *o, sbio_caps caps) {
  if (!o) return SBIO_E_INVALID_ARGUMENT;
  if (!sbio__caps_known(caps)) return refuse(o, "required capabilities hold a bit that is not a capability");
  o->required_caps |= caps;
  return SBIO_OK;
}

/* The backend answered but the gate said no: the handle goes, the sandbox
 * stays as it was. */
static void release_only(const struct sbio_backend_info *b, void *handle) {
  if (SBIO_OPS_HAS(b->ops, release)) b->ops->release(handle);
}

/* Asks the backend for the sandbox and admits what it reports. On success
 * *out is a sandbox the host owns. `ev` is the "connected" event, renamed
 * when the connect fails or is refused. */
static sbio_code attach(sbio_host *host, struct sbio_backend_info *b, const sbio__admission *gate,
                        const char *sandbox_id, sbio__event *ev, struct sbio_sandbox **out, sbio_error *err) {
  sbio__call c;
  sbio__call_init(&c, host, NULL, sbio__deadline_after(CONNECT_TIMEOUT_S));
  sbio_bk_sandbox_info info = {.size = sizeof info};
  sbio_bk_error bk = {.size = sizeof bk};
  void *handle = NULL;
  if (b->ops->connect(b->instance, sandbox_id, &c.call, &handle, &info, &bk) != 0) {
    sbio_code rc = sbio__error_from_backend(err, &bk, b->name);
    sbio__error_set_sandbox_id(err, sandbox_id);
    sbio__event_str(ev, "event", "connect_failed");
    return rc;
  }
  info.id[sizeof info.id - 1] = '\0';
  info.mechanism[sizeof info.mechanism - 1] = '\0';
  if (!info.id[0]) snprintf(info.id, sizeof info.id, "%s", sandbox_id);
  if (!info.mechanism[0])
    snprintf(info.mechanism, sizeof info.mechanism, "%s", sbio__admit_reported_mechanism(b, info.mechanism));
  sbio__event_str(ev, "sandbox_id", info.id);

  /* The gate, stage 2: the mechanism of this very sandbox. */
  const sbio__mechanism *mech = NULL;
  sbio_code rc = sbio__admit_mechanism(host, b, gate, info.mechanism, &mech, err);
  sbio__event_backend(ev, b, mech);
  sbio__event_str(ev, "mechanism", info.mechanism);
  if (rc != SBIO_OK) {
    release_only(b, handle);
    sbio__error_prefix(err, "not attached to sandbox %s:%s, which was left as it was", b->name, info.id);
    sbio__error_set_sandbox_id(err, info.id);
    sbio__event_str(ev, "event", "connect_denied");
    sbio__admission_event_fields(ev, gate);
    return rc;
  }
  if (!mech || mech->effective == SBIO_TIER_UNKNOWN) sbio__policy_warn_unknown_once(host, b, info.mechanism);
  struct sbio_sandbox *sb = sbio__sandbox_new(host, b, handle, &info, mech);
  if (!sb || sbio__host_adopt_sandbox(host, sb) != 0) {
    if (sb) sbio__sandbox_free(sb);
    release_only(b, handle);
    sbio__event_str(ev, "event", "connect_failed");
    return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  sbio__event_sandbox(ev, sb);
  *out = sb;
  return SBIO_OK;
}

sbio_code sbio_sandbox_connect_ex(sbio_host *host, const char *backend, const char *sandbox_id,
                                  const sbio_connect_options *opts, sbio_sandbox **out, sbio_error *err) {
  static const struct sbio_connect_options no_options;
  if (!host || !backend || !sandbox_id || !out)
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "host, backend, sandbox_id and out are required");
  *out = NULL;
  const struct sbio_connect_options *o = opts ? opts : &no_options;
  if (o->invalid[0]) return sbio__error_set(err, SBIO_E_CONFIG, NULL, "invalid connect options: %s", o->invalid);
  struct sbio_backend_info *b = NULL;
  sbio_code rc = sbio__host_resolve_backend(host, backend, &b, err);
  if (rc != SBIO_OK) return rc;

  sbio__event ev;
  sbio__event_begin(&ev, host, "connect_requested");
  sbio__event_backend(&ev, b, NULL);
  sbio__event_str(&ev, "sandbox_id", sandbox_id);
  rc = sbio__audit_emit(host, &ev, 0, err);
  if (rc != SBIO_OK) return rc;

  /* The gate, stage 1: before the backend is even loaded. */
  sbio__admission gate;
  rc = sbio__admit_request(host, b, o->require_set, o->require, SBIO_CAP_CONNECT | o->required_caps, &gate, err);
  if (rc == SBIO_OK) rc = sbio__host_backend_instance(host, b, err);
  /* Declared but absent: the loader refuses that (ops_contract.c); this is
   * the second line. */
  if (rc == SBIO_OK && !SBIO_OPS_HAS(b->ops, connect))
    rc = sbio__capability_error(host, b->name, SBIO_CAP_CONNECT, err);
  if (rc != SBIO_OK) {
    /* Built only on a refusal: an admitted connect builds no denial. */
    sbio__event_begin(&ev, host, "connect_denied");
    sbio__event_backend(&ev, b, gate.cited); /* the mechanism the message cites */
    sbio__event_str(&ev, "sandbox_id", sandbox_id);
    sbio__admission_event_fields(&ev, &gate);
    sbio__error_set_sandbox_id(err, sandbox_id);
    return sbio__audit_finish(host, &ev, rc, err);
  }

  sbio__event_begin(&ev, host, "connected");
  sbio__event_backend(&ev, b, NULL);
  sbio__event_str(&ev, "sandbox_id", sandbox_id);
  struct sbio_sandbox *sb = NULL;
  rc = attach(host, b, &gate, sandbox_id, &ev, &sb, err);
  rc = sbio__audit_finish(host, &ev, rc, err);
  if (rc != SBIO_OK && sb) {
    /* The audit sink must record every handle: without it there is none.
     * The sandbox was not ours to begin with, so it is only let go. */
    sbio__host_forget_sandbox(host, sb);
    release_only(b, sb->handle);
    sbio__sandbox_free(sb);
    sb = NULL;
  }
  *out = sb;
  return rc;
}

sbio_code sbio_sandbox_connect(sbio_host *host, const char *backend, const char *sandbox_id, sbio_sandbox **out,
                               sbio_error *err) {
  return sbio_sandbox_connect_ex(host, backend, sandbox_id, NULL, out, err);
}
