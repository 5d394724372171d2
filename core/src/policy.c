/* SPDX-License-Identifier: MIT */
#include "policy.h"

#include "error_internal.h"

#include <stdio.h>
#include <string.h>

sbio_code sbio__policy_required_tier(sbio_host *host, int caller_set, sbio_tier caller, sbio_tier *required,
                                     sbio_error *err) {
  *required = SBIO_TIER_UNKNOWN;
  if (caller_set && (caller == SBIO_TIER_UNKNOWN || sbio_tier_rank(caller) < 0))
    return sbio__error_set(err, SBIO_E_CONFIG, "require container, gvisor or microvm",
                           "requiring isolation UNKNOWN is meaningless: UNKNOWN satisfies no requirement");
  if (host->cfg.require_isolation_set) *required = host->cfg.require_isolation;
  if (caller_set && sbio_tier_rank(caller) > sbio_tier_rank(*required)) *required = caller;
  return SBIO_OK;
}

/* "CONTAINER (mechanism \"none\", verified 2026-11-29 from https://...)" or
 * "UNKNOWN (mechanism \"x\": source url is not https)". */
static void describe_offer(const sbio__mechanism *m, char *buf, size_t size) {
  if (!m) {
    snprintf(buf, size, "UNKNOWN (no declared mechanism)");
  } else if (m->effective == SBIO_TIER_UNKNOWN) {
    snprintf(buf, size, "UNKNOWN (mechanism \"%s\": %s)", m->name, m->reason[0] ? m->reason : "not verified");
  } else {
    snprintf(buf, size, "%s (mechanism \"%s\", verified %s from %s)", sbio_tier_name(m->effective), m->name,
             m->verified_on, m->url);
  }
}

static sbio_code deny(sbio_host *host, const struct sbio_backend_info *b, const char *offer, sbio_tier required,
                      sbio_error *err) {
  int from_floor = host->cfg.require_isolation_set && host->cfg.require_isolation == required;
  char hint[256];
  snprintf(hint, sizeof hint, "choose a backend whose tier is at least %s (`sbio backends` lists tiers)%s",
           sbio_tier_name(required), from_floor ? "; the floor comes from require_isolation in the configuration" : "");
  sbio__error_set(err, SBIO_E_CONFIG, hint, "backend %s cannot meet the required isolation %s: it offers %s", b->name,
                  sbio_tier_name(required), offer);
  sbio__error_set_backend(err, b->name);
  return SBIO_E_CONFIG;
}

sbio_code sbio__policy_precheck(sbio_host *host, const struct sbio_backend_info *b, sbio_tier required,
                                const sbio__mechanism **cited, sbio_error *err) {
  *cited = NULL;
  if (required == SBIO_TIER_UNKNOWN) return SBIO_OK;
  const sbio__mechanism *best = NULL;
  for (size_t i = 0; i < b->meta.n_mechs; i++) {
    const sbio__mechanism *m = &b->meta.mechs[i];
    if (sbio_tier_satisfies(m->effective, required)) return SBIO_OK;
    if (!best || sbio_tier_rank(m->effective) > sbio_tier_rank(best->effective)) best = m;
  }
  char offer[700];
  describe_offer(best, offer, sizeof offer);
  *cited = best;
  return deny(host, b, offer, required, err);
}

sbio_code sbio__policy_check_mechanism(sbio_host *host, const struct sbio_backend_info *b, const char *mechanism,
                                       sbio_tier required, const sbio__mechanism **mech, sbio_error *err) {
  *mech = sbio__backend_mechanism(b, mechanism);
  if (required == SBIO_TIER_UNKNOWN) return SBIO_OK;
  sbio_tier have = *mech ? (*mech)->effective : SBIO_TIER_UNKNOWN;
  if (sbio_tier_satisfies(have, required)) return SBIO_OK;
  char offer[700];
  if (*mech)
    describe_offer(*mech, offer, sizeof offer);
  else
    snprintf(offer, sizeof offer, "UNKNOWN (mechanism \"%.64s\" is not one it declares)", mechanism);
  return deny(host, b, offer, required, err);
}

sbio_code sbio__capability_error(sbio_host *host, const char *backend, sbio_caps cap, sbio_error *err) {
  char others[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < host->reg.n; i++) {
    const struct sbio_backend_info *o = host->reg.items[i];
    if (!o->have_meta || !(o->meta.caps & cap) || o->status == SBIO_BACKEND_REFUSED ||
        o->status == SBIO_BACKEND_SHADOWED)
      continue;
    int n = snprintf(others + used, sizeof others - used, "%s%s", used ? ", " : "", o->name);
    if (n < 0 || (size_t)n >= sizeof others - used) break;
    used += (size_t)n;
  }
  char hint[700];
  if (used)
    snprintf(hint, sizeof hint, "backends that support %s: %s", sbio_capability_name(cap), others);
  else
    snprintf(hint, sizeof hint, "no installed backend supports %s", sbio_capability_name(cap));
  sbio__error_set(err, SBIO_E_CAPABILITY, hint, "backend %s does not support %s", backend, sbio_capability_name(cap));
  sbio__error_set_backend(err, backend);
  return SBIO_E_CAPABILITY;
}

sbio_code sbio__policy_capabilities(sbio_host *host, const struct sbio_backend_info *b, sbio_caps needed,
                                    sbio_error *err) {
  for (size_t bit = 0; bit < SBIO_CAP_COUNT; bit++) {
    sbio_caps cap = (sbio_caps)1 << bit;
    if ((needed & cap) && !(b->meta.caps & cap)) return sbio__capability_error(host, b->name, cap, err);
  }
  return SBIO_OK;
}

/* "Once per backend per process": a process-wide set of names. */
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char warned[64][32];
static size_t n_warned;

void sbio__policy_warn_unknown_once(sbio_host *host, const struct sbio_backend_info *b, const char *mechanism) {
  int first = 1;
  pthread_mutex_lock(&warned_lock);
  for (size_t i = 0; i < n_warned && first; i++)
    if (strcmp(warned[i], b->name) == 0) first = 0;
  if (first && n_warned < sizeof warned / sizeof warned[0])
    snprintf(warned[n_warned++], sizeof warned[0], "%s", b->name);
  pthread_mutex_unlock(&warned_lock);
  if (!first) return;
  char offer[700];
  describe_offer(sbio__backend_mechanism(b, mechanism), offer, sizeof offer);
  sbio__log(host, SBIO_LOG_WARN,
            "backend %s has no verified isolation tier: it offers %s; treat its sandboxes as unisolated "
            "(`sbio inspect %s` explains why)",
            b->name, offer, b->name);
}
