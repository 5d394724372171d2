/* SPDX-License-Identifier: MIT */
/* The fake's network policy: what `curl` and `wget` in the virtual shell are
 * allowed to reach. Nothing is ever contacted; the policy only decides
 * between a canned success and a canned "egress denied". */
#ifndef SBIO_FAKE_NETPOLICY_H
#define SBIO_FAKE_NETPOLICY_H

#include <stddef.h>

/* Lower-cased host of a URL or bare host ("https://u@Example.com:8443/x" ->
 * "example.com", "[::1]:80" -> "::1"); malloc'd, NULL when there is none or
 * on OOM. */
char *sbio__fake_url_host(const char *url);
/* 1 when `host` may be reached: egress allowed, or an allow-list entry
 * matches it exactly (case-insensitively), as "*.suffix", or as an IPv4
 * CIDR containing the host's IPv4 address. */
int sbio__fake_egress_allows(int egress_allow, char *const *allow, size_t n_allow, const char *host);

#endif
