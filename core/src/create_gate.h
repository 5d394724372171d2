/* SPDX-License-Identifier: MIT */
/* What a create decides before it provisions anything (sandbox.c), shared
 * by sbio_sandbox_create, sbio_sandbox_check and sbio_run (run.c): the
 * request resolved (URI, template, timeout, backend), then both stages of
 * the admission gate and the backend's plan. A refusal is audited as
 * create_denied. */
#ifndef SBIO_CREATE_GATE_H
#define SBIO_CREATE_GATE_H

#include "admission.h"
#include "host_internal.h"
#include "uri.h"

typedef struct sbio__pre_create {
  sbio__uri target;
  const char *tmpl;
  double timeout_s;
  int64_t deadline_ns; /* the create's, from the resolution on (plan included) */
  struct sbio_backend_info *b;
  sbio__admission gate;
  sbio_bk_create_req req;
  char planned[64];
  const sbio__mechanism *mech;
} sbio__pre_create;

/* The URI is freed by the caller (sbio__uri_free(&p->target)) whatever
 * happens. */
sbio_code sbio__create_resolve(sbio_host *host, const char *uri, const struct sbio_create_options *o,
                               sbio__pre_create *p, sbio_error *err);
/* Stage 1, the backend's instance and plan, stage 2; `check` marks the
 * create_denied of an sbio_sandbox_check. */
sbio_code sbio__create_admit(sbio_host *host, const struct sbio_create_options *o, sbio__pre_create *p, int check,
                             sbio_error *err);
/* The create_requested event. */
sbio_code sbio__create_requested(sbio_host *host, const sbio__pre_create *p, sbio_error *err);
/* After the gate: the backend's create, the observed mechanism admitted,
 * the sandbox adopted by the host, the created (or create_failed) event. */
sbio_code sbio__create_provision(sbio_host *host, const struct sbio_create_options *o, sbio__pre_create *p,
                                 sbio_sandbox **out, sbio_error *err);
/* The gate's check of what the backend observed (info->mechanism, the
 * planned one when empty): *observed is its metadata entry; a mechanism
 * that does not meet the requirement is SBIO_E_CREATE naming both. */
sbio_code sbio__create_observed(sbio_host *host, const sbio__pre_create *p, sbio_bk_sandbox_info *info,
                                const sbio__mechanism **observed, sbio_error *err);
/* Begins the created event with the planned fields. */
void sbio__created_event(sbio__event *ev, sbio_host *host, const sbio__pre_create *p);
/* How long a kill may take (SBIO_TEARDOWN_GRACE overrides the default). */
double sbio__teardown_grace(sbio_host *host);
/* sbio_sandbox_close with the kill's deadline given (absolute, monotonic):
 * sbio_run's teardown ends within its deadline's margin. */
sbio_code sbio__sandbox_close_by(sbio_sandbox *sb, int64_t deadline_ns, sbio_error *err);

#endif
