/* SPDX-License-Identifier: MIT */
/* Read-only views of registry entries for the client API. */
#include "host_internal.h"

#include <stdio.h>
#include <string.h>

#define OR_EMPTY(s) ((s) ? (s) : "")

const char *sbio_backend_info_name(const sbio_backend_info *b) {
  return b ? b->name : "";
}
const char *sbio_backend_info_path(const sbio_backend_info *b) {
  return b ? b->path : "";
}
const char *sbio_backend_info_version(const sbio_backend_info *b) {
  return b && b->have_meta ? OR_EMPTY(b->meta.version) : "";
}
const char *sbio_backend_info_summary(const sbio_backend_info *b) {
  return b && b->have_meta ? OR_EMPTY(b->meta.summary) : "";
}
size_t sbio_backend_info_credential_count(const sbio_backend_info *b) {
  return b ? b->cred_vars.n : 0;
}
const char *sbio_backend_info_credential_var(const sbio_backend_info *b, size_t i) {
  return b && i < b->cred_vars.n ? b->cred_vars.items[i] : NULL;
}
sbio_backend_status sbio_backend_info_status(const sbio_backend_info *b) {
  return b ? b->status : SBIO_BACKEND_REFUSED;
}
const char *sbio_backend_status_name(sbio_backend_status status) {
  switch (status) {
  case SBIO_BACKEND_AVAILABLE:
    return "available";
  case SBIO_BACKEND_LOADED:
    return "loaded";
  case SBIO_BACKEND_DISABLED:
    return "disabled";
  case SBIO_BACKEND_REFUSED:
    return "refused";
  case SBIO_BACKEND_SHADOWED:
    return "shadowed";
  }
  return "unknown";
}
const char *sbio_backend_info_reason(const sbio_backend_info *b) {
  return b ? b->reason : "";
}
int sbio_backend_info_enabled(const sbio_backend_info *b) {
  return b ? b->enabled : 0;
}
sbio_caps sbio_backend_info_capabilities(const sbio_backend_info *b) {
  return b && b->have_meta ? b->meta.caps : 0;
}
sbio_tier sbio_backend_info_tier(const sbio_backend_info *b) {
  return b && b->status != SBIO_BACKEND_REFUSED ? b->tier : SBIO_TIER_UNKNOWN;
}
sbio_tier sbio_backend_info_claimed_tier(const sbio_backend_info *b) {
  return b ? b->claimed_tier : SBIO_TIER_UNKNOWN;
}
int sbio_backend_info_has_expect_tier(const sbio_backend_info *b) {
  return b && b->cfg && b->cfg->expect_tier_set;
}
sbio_tier sbio_backend_info_expect_tier(const sbio_backend_info *b) {
  return sbio_backend_info_has_expect_tier(b) ? b->cfg->expect_tier : SBIO_TIER_UNKNOWN;
}
const char *sbio_backend_info_sha256(const sbio_backend_info *b) {
  /* Hashed on first request (registry.c, "Hashing"); the entry is the
   * host's, shared, and the hash is stored once under a lock. */
  return sbio__backend_sha256((struct sbio_backend_info *)b);
}

size_t sbio_backend_info_mechanism_count(const sbio_backend_info *b) {
  return b && b->have_meta ? b->meta.n_mechs : 0;
}

static const sbio__mechanism *mech_at(const sbio_backend_info *b, size_t i) {
  return i < sbio_backend_info_mechanism_count(b) ? &b->meta.mechs[i] : NULL;
}

const char *sbio_mechanism_name(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? OR_EMPTY(m->name) : "";
}
sbio_tier sbio_mechanism_claimed_tier(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? m->claimed : SBIO_TIER_UNKNOWN;
}
sbio_tier sbio_mechanism_tier(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m && b->status != SBIO_BACKEND_REFUSED ? m->effective : SBIO_TIER_UNKNOWN;
}
const char *sbio_mechanism_source_url(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? OR_EMPTY(m->url) : "";
}
const char *sbio_mechanism_verified_on(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? OR_EMPTY(m->verified_on) : "";
}
const char *sbio_mechanism_quote(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? OR_EMPTY(m->quote) : "";
}
int sbio_mechanism_stale(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? m->stale : 0;
}
int sbio_mechanism_age_days(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? m->age_days : -1;
}
const char *sbio_mechanism_reason(const sbio_backend_info *b, size_t i) {
  const sbio__mechanism *m = mech_at(b, i);
  return m ? m->reason : "";
}

const sbio__mechanism *sbio__backend_mechanism(const struct sbio_backend_info *b, const char *name) {
  for (size_t i = 0; b->have_meta && i < b->meta.n_mechs; i++)
    if (b->meta.mechs[i].name && strcmp(b->meta.mechs[i].name, name) == 0) return &b->meta.mechs[i];
  return NULL;
}

size_t sbio_backend_info_describe(const sbio_backend_info *b, char *buf, size_t size) {
  if (!b) return (size_t)snprintf(buf, size, "Backend(?)");
  const char *version = sbio_backend_info_version(b);
  int n = snprintf(buf, size, "Backend(%s%s%s %s %s)", b->name, version[0] ? " " : "", version,
                   sbio_backend_status_name(b->status), sbio_tier_name(sbio_backend_info_tier(b)));
  return n < 0 ? 0 : (size_t)n;
}
