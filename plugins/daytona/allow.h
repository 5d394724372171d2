/* SPDX-License-Identifier: MIT */
/* The egress allow-list in Daytona's own fields: IPv4 CIDR blocks go to
 * networkAllowList (at most 5, docs/en/network-limits), names to
 * domainAllowList. Anything Daytona cannot express is refused, never
 * dropped: an allow-list that silently lost an entry would be wider or
 * narrower than asked. */
#ifndef SBIO_DAYTONA_ALLOW_H
#define SBIO_DAYTONA_ALLOW_H

#include <sandboxio/sdk.h>

#define DT_MAX_CIDRS 5

typedef struct dt_allow {
  char *cidrs;   /* "203.0.113.7/32,10.0.0.0/8", or NULL */
  char *domains; /* "pypi.org,*.pythonhosted.org", or NULL */
} dt_allow;

/* Splits the entries; SBIO_E_CONFIG names the first one Daytona cannot
 * take (IPv6, a port, a malformed name, a sixth CIDR block). */
int sbio__dt_allow_split(const char *const *allow, size_t n, dt_allow *out, sbio_bk_error *err);
void sbio__dt_allow_free(dt_allow *a);

#endif
