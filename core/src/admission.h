/* SPDX-License-Identifier: MIT */
/* The admission gate: the one place that decides whether a request may get
 * a usable sandbox handle. Every path that yields one passes it (create,
 * connect, and anything added later such as resume or adopt), so a fleet
 * floor or a capability the backend lacks cannot be bypassed by taking
 * another door.
 *
 * It decides in two stages, with the same errors and hints on every path:
 *   1. before the backend's code runs, from its metadata alone: the backend
 *      is usable; the required tier (the fleet floor raised by the caller's
 *      requirement) is one that some declared mechanism can meet; every
 *      capability the request needs is declared (SBX_E1000, SBX_E1101);
 *   2. once the backend names the mechanism of this very sandbox: the one
 *      it plans before a create (nothing exists yet), the one it observed
 *      after the create, or the one it reports for the existing sandbox a
 *      connect attaches to (no handle is returned yet).
 * The callers own the audit events; sbio__admission_event_fields gives
 * every denial the same shape. */
#ifndef SBIO_ADMISSION_H
#define SBIO_ADMISSION_H

#include "audit.h"
#include "host_internal.h"

/* What one request asks for, fixed by stage 1. */
typedef struct sbio__admission {
  sbio_tier required; /* the tier to meet; UNKNOWN when nothing is required */
  sbio_caps needed;   /* every capability the request needs */
  /* The mechanism a tier refusal of stage 1 cites (its name, source and
   * date are in the message), so the denial event can carry them. */
  const struct sbio__mechanism *cited;
} sbio__admission;

/* Stage 1: metadata only (no backend code runs, nothing is loaded).
 * `caller_set`/`caller` is the caller's isolation requirement, `needed`
 * every capability the request needs. Fills `a` even on failure (so the
 * denial event can say what was required). */
sbio_code sbio__admit_request(sbio_host *host, const struct sbio_backend_info *b, int caller_set, sbio_tier caller,
                              sbio_caps needed, sbio__admission *a, sbio_error *err);

/* Stage 2: `mechanism` is what the backend named for this sandbox. *mech
 * receives its metadata entry (NULL for an undeclared name, which counts as
 * UNKNOWN and meets no requirement). */
sbio_code sbio__admit_mechanism(sbio_host *host, const struct sbio_backend_info *b, const sbio__admission *a,
                                const char *mechanism, const sbio__mechanism **mech, sbio_error *err);

/* The mechanism a connect reports, or, when the backend reports none and
 * declares exactly one, that one (it cannot have used another). */
const char *sbio__admit_reported_mechanism(const struct sbio_backend_info *b, const char *reported);

/* The capabilities a create with these options needs: network_policy
 * always (egress is denied by default and someone must enforce that), the
 * allow-list and gpu when asked for, and what the caller declared it will
 * use (sbio_create_options_require_capabilities). */
sbio_caps sbio__admit_create_needs(const struct sbio_create_options *o);

/* True when every bit of `caps` is a capability this core knows (a
 * requirement it could not even name must not pass silently). */
int sbio__caps_known(sbio_caps caps);

/* required_tier and required_capabilities of a *_denied event. */
void sbio__admission_event_fields(sbio__event *ev, const sbio__admission *a);

#endif
