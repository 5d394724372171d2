/* SPDX-License-Identifier: MIT */
/* URLs: checking the endpoints the settings name, and escaping what goes
 * into paths and queries. */
#ifndef SBIO_E2B_URL_H
#define SBIO_E2B_URL_H

#include <stddef.h>

/* Checks a base URL: http or https, a host, no credentials, query or
 * fragment; plain http only to a loopback host (127.0.0.0/8, ::1,
 * localhost). On success *out is a malloc'd copy without trailing slashes.
 * On failure returns -1 and writes the reason (without the URL's text
 * beyond its host) into why. */
int sbio__e2b_url_check(const char *url, char **out, char *why, size_t why_size);
/* 1 when host (no port, no brackets) is a loopback name or address. */
int sbio__e2b_host_is_loopback(const char *host);
/* 1 when text is a DNS name: labels of [a-z0-9-], dots between. */
int sbio__e2b_is_hostname(const char *text);
/* Percent-encodes everything but RFC 3986 unreserved characters (and '/'
 * when keep_slash). malloc'd; NULL on OOM. */
char *sbio__e2b_escape(const char *text, int keep_slash);

#endif
