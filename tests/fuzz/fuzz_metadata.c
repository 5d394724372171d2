/* SPDX-License-Identifier: MIT */
/* Fuzz target: the metadata document parser and trust evaluation on
 * arbitrary bytes (the JSON of a backend's note). */
#include "metadata.h"
#include "trust.h"

#include <sandboxio/types.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sbio__metadata m;
  char reason[256];
  /* The parser is given exactly `size` bytes, with no terminating NUL, so
   * any read past the end shows up under AddressSanitizer. */
  int rc = sbio__metadata_parse((const char *)data, size, &m, reason, sizeof reason);
  if (rc != 0) {
    if (memchr(reason, '\0', sizeof reason) == NULL || strchr(reason, '\n') != NULL) __builtin_trap();
    if (m.name != NULL || m.mechs != NULL || m.n_mechs != 0) __builtin_trap(); /* nothing left behind */
    if (m.cred_env != NULL || m.n_cred_env != 0 || m.cred_settings != NULL || m.n_cred_settings != 0) __builtin_trap();
    return 0;
  }

  /* Invariants of an accepted document. */
  if (!sbio__backend_name_valid(m.name) || m.version == NULL || m.summary == NULL || m.n_mechs > 16) __builtin_trap();
  /* Credential names (ABI 1.4): at most 16 of each, each a plain name. */
  if (m.n_cred_env > 16 || m.n_cred_settings > 16) __builtin_trap();
  for (size_t i = 0; i < m.n_cred_env + m.n_cred_settings; i++) {
    const char *name = i < m.n_cred_env ? m.cred_env[i] : m.cred_settings[i - m.n_cred_env];
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 64 || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != n)
      __builtin_trap();
  }
  for (size_t i = 0; i < m.n_mechs; i++) {
    const sbio__mechanism *mech = &m.mechs[i];
    if (mech->name == NULL || mech->name[0] == '\0' || sbio_tier_rank(mech->claimed) < 0) __builtin_trap();
  }

  /* Both policies; the result never claims more than was declared. */
  for (int stale_is_unknown = 0; stale_is_unknown <= 1; stale_is_unknown++) {
    sbio__trust_policy policy = {.max_age_days = 92, .stale_is_unknown = stale_is_unknown, .now = 1778846400};
    for (size_t i = 0; i < m.n_mechs; i++) {
      sbio__mechanism *mech = &m.mechs[i];
      sbio__trust_evaluate(mech, &policy);
      if (mech->effective != SBIO_TIER_UNKNOWN && mech->effective != mech->claimed) __builtin_trap();
      if (memchr(mech->reason, '\0', sizeof mech->reason) == NULL) __builtin_trap();
    }
    sbio_tier weakest = sbio__trust_weakest_effective(&m);
    if (sbio_tier_rank(weakest) > sbio_tier_rank(sbio__trust_weakest_claimed(&m))) __builtin_trap();
  }
  sbio__metadata_free(&m);
  return 0;
}
