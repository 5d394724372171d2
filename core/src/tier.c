/* SPDX-License-Identifier: MIT */
/* Isolation tiers: names, ranks and the one comparison that matters. The
 * rank is the enum value (types.h), so ordering never needs a lookup table
 * that could disagree with it. */
#include <sandboxio/types.h>

/* Ordered by rank; sbio_tier_at indexes it. */
static const struct {
  sbio_tier tier;
  const char *name;
} tier_table[SBIO_TIER_COUNT] = {
    {SBIO_TIER_UNKNOWN, "UNKNOWN"},
    {SBIO_TIER_CONTAINER, "CONTAINER"},
    {SBIO_TIER_GVISOR, "GVISOR"},
    {SBIO_TIER_MICROVM, "MICROVM"},
};

/* ASCII-only case folding: strcasecmp follows the locale, and a Turkish
 * locale must not change which tier "gvisor" names. */
static int ascii_lower(int c) {
  return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int ascii_equal_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++) {
    if (ascii_lower((unsigned char)*a) != ascii_lower((unsigned char)*b)) return 0;
  }
  return *a == *b;
}

static int tier_index(sbio_tier tier) {
  for (size_t i = 0; i < SBIO_TIER_COUNT; i++) {
    if (tier_table[i].tier == tier) return (int)i;
  }
  return -1;
}

sbio_tier sbio_tier_at(size_t index) {
  /* Out of range answers UNKNOWN: the weakest claim, never a stronger one. */
  return index < SBIO_TIER_COUNT ? tier_table[index].tier : SBIO_TIER_UNKNOWN;
}

const char *sbio_tier_name(sbio_tier tier) {
  int i = tier_index(tier);
  return i < 0 ? NULL : tier_table[i].name;
}

int sbio_tier_rank(sbio_tier tier) {
  return tier_index(tier) < 0 ? -1 : (int)tier;
}

int sbio_tier_parse(const char *text, sbio_tier *out) {
  if (text == NULL || *text == '\0') return -1;
  for (size_t i = 0; i < SBIO_TIER_COUNT; i++) {
    if (ascii_equal_nocase(text, tier_table[i].name)) {
      if (out) *out = tier_table[i].tier;
      return 0;
    }
  }
  return -1;
}

int sbio_tier_satisfies(sbio_tier have, sbio_tier required) {
  int have_rank = sbio_tier_rank(have);
  int required_rank = sbio_tier_rank(required);
  if (have_rank < 0 || required_rank < 0) return 0;
  if (have == SBIO_TIER_UNKNOWN || required == SBIO_TIER_UNKNOWN) return 0;
  return have_rank >= required_rank;
}
