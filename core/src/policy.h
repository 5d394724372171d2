/* SPDX-License-Identifier: MIT */
/* Isolation and capability policy, checked before anything is provisioned. */
#ifndef SBIO_POLICY_H
#define SBIO_POLICY_H

#include "host_internal.h"

/* The tier a create must meet: the stronger of the fleet floor (config
 * require_isolation) and the caller's requirement; a caller may raise the
 * floor, never lower it. *required is UNKNOWN when there is none. Requiring
 * UNKNOWN is a configuration error. */
sbio_code sbio__policy_required_tier(sbio_host *host, int caller_set, sbio_tier caller, sbio_tier *required,
                                     sbio_error *err);
/* Fails when no declared mechanism of the backend could satisfy the
 * requirement -- decided from metadata alone, so the backend's code is not
 * even loaded. On that refusal *cited is the mechanism the message names
 * (the strongest declared; NULL when none is declared). */
sbio_code sbio__policy_precheck(sbio_host *host, const struct sbio_backend_info *b, sbio_tier required,
                                const sbio__mechanism **cited, sbio_error *err);
/* Checks the mechanism the backend planned (or observed). *mech receives
 * its metadata entry (NULL if the backend named an undeclared one, which
 * counts as UNKNOWN). */
sbio_code sbio__policy_check_mechanism(sbio_host *host, const struct sbio_backend_info *b, const char *mechanism,
                                       sbio_tier required, const sbio__mechanism **mech, sbio_error *err);
/* Refuses a request whose features the backend does not declare
 * (NETWORK_POLICY always; allow-lists; GPU). */
sbio_code sbio__policy_capabilities(sbio_host *host, const struct sbio_backend_info *b, sbio_caps needed,
                                    sbio_error *err);
/* SBIO_E_CAPABILITY for one capability, naming the backends that have it. */
sbio_code sbio__capability_error(sbio_host *host, const char *backend, sbio_caps cap, sbio_error *err);
/* Warns once per backend per process that its tier is UNKNOWN. */
void sbio__policy_warn_unknown_once(sbio_host *host, const struct sbio_backend_info *b, const char *mechanism);

#endif
