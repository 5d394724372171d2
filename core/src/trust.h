/* SPDX-License-Identifier: MIT */
/* The trust model (ARCHITECTURE.md section 3): a declared tier counts only
 * when its provider source is complete, well-formed and, by policy, fresh. */
#ifndef SBIO_TRUST_H
#define SBIO_TRUST_H

#include "metadata.h"
#include <stdint.h>

typedef struct sbio__trust_policy {
  int max_age_days;     /* re-verification window; default 92 */
  int stale_is_unknown; /* policy `stale: unknown` */
  int64_t now;          /* unix seconds (UTC) */
} sbio__trust_policy;

#define SBIO__DEFAULT_MAX_AGE_DAYS 92

/* Parses a real calendar date "YYYY-MM-DD" (exactly that shape; leap years
 * honoured). Returns 0 and the day number since 1970-01-01, or -1. */
int sbio__date_parse(const char *text, int64_t *days_since_epoch);

/* Checks a source URL: must parse (printable ASCII, scheme "://"
 * authority), scheme https, a non-empty host (a name, an IPv4 address or
 * a bracketed IPv6 one), a port if any in range, no credentials. Returns
 * 0, or -1 with a reason that never repeats more than the scheme. */
int sbio__source_url_check(const char *url, char *reason, size_t reason_size);

/* Fills m->effective, m->stale, m->age_days and m->reason. effective is
 * m->claimed only when: claimed is not UNKNOWN, url passes
 * sbio__source_url_check, verified_on parses and is not after `now`, and
 * quote is non-empty; and, if stale under stale_is_unknown, not stale.
 * Otherwise UNKNOWN, with reason e.g. "source url is not https (http)",
 * "verified_on \"2026-02-30\" is not a calendar date", "verified_on
 * 2027-01-01 is in the future", "no source quote", "source is 130 days old
 * (window 92 days; policy stale: unknown)". A stale-but-counted source gets
 * stale=1 and a reason too. */
void sbio__trust_evaluate(sbio__mechanism *m, const sbio__trust_policy *policy);

/* The weakest effective (or claimed) tier of a metadata document's
 * mechanisms; UNKNOWN when there are none. */
sbio_tier sbio__trust_weakest_effective(const sbio__metadata *m);
sbio_tier sbio__trust_weakest_claimed(const sbio__metadata *m);

#endif
