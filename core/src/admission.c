/* SPDX-License-Identifier: MIT */
/* The admission gate (see admission.h). The rules themselves (how a tier
 * is compared, how a refusal reads) live in policy.c; this file is the
 * order in which every request meets them. */
#include "admission.h"

#include "create_options.h"
#include "policy.h"

#include <cjson/cJSON.h>

sbio_code sbio__admit_request(sbio_host *host, const struct sbio_backend_info *b, int caller_set, sbio_tier caller,
                              sbio_caps needed, sbio__admission *a, sbio_error *err) {
  a->required = SBIO_TIER_UNKNOWN;
  a->needed = needed;
  a->cited = NULL;
  sbio_code rc = sbio__host_check_usable(b, err);
  if (rc == SBIO_OK) rc = sbio__policy_required_tier(host, caller_set, caller, &a->required, err);
  /* The tier before the capabilities: an operator's floor is the stronger
   * statement, and the one a caller must hear first. */
  if (rc == SBIO_OK) rc = sbio__policy_precheck(host, b, a->required, &a->cited, err);
  if (rc == SBIO_OK) rc = sbio__policy_capabilities(host, b, a->needed, err);
  return rc;
}

sbio_code sbio__admit_mechanism(sbio_host *host, const struct sbio_backend_info *b, const sbio__admission *a,
                                const char *mechanism, const sbio__mechanism **mech, sbio_error *err) {
  return sbio__policy_check_mechanism(host, b, mechanism, a->required, mech, err);
}

const char *sbio__admit_reported_mechanism(const struct sbio_backend_info *b, const char *reported) {
  if (reported && reported[0]) return reported;
  return b->meta.n_mechs == 1 ? b->meta.mechs[0].name : "";
}

sbio_caps sbio__admit_create_needs(const struct sbio_create_options *o) {
  sbio_caps needed = SBIO_CAP_NETWORK_POLICY | o->required_caps;
  if (o->allow.n) needed |= SBIO_CAP_NETWORK_ALLOWLIST;
  if (o->gpu) needed |= SBIO_CAP_GPU;
  return needed;
}

int sbio__caps_known(sbio_caps caps) {
  return (caps & ~(((sbio_caps)1 << SBIO_CAP_COUNT) - 1)) == 0;
}

void sbio__admission_event_fields(sbio__event *ev, const sbio__admission *a) {
  sbio__event_str(ev, "required_tier", a->required == SBIO_TIER_UNKNOWN ? NULL : sbio_tier_name(a->required));
  if (!ev->obj) return;
  cJSON_DeleteItemFromObjectCaseSensitive(ev->obj, "required_capabilities");
  cJSON *list = cJSON_AddArrayToObject(ev->obj, "required_capabilities");
  for (size_t bit = 0; list && bit < SBIO_CAP_COUNT; bit++) {
    sbio_caps cap = (sbio_caps)1 << bit;
    const char *name = sbio_capability_name(cap);
    if ((a->needed & cap) && name) cJSON_AddItemToArray(list, cJSON_CreateString(name));
  }
}
