/* SPDX-License-Identifier: MIT */
/* URLs: which ones may carry the API key, and building them. */
#ifndef SBIO_DAYTONA_URL_H
#define SBIO_DAYTONA_URL_H

#include <stddef.h>

/* 0 when `url` may receive the Bearer key: it parses, has a host, carries
 * no credentials, query or fragment, and is https, or plain http to a
 * loopback host (127.0.0.0/8, ::1, localhost) such as a local emulator.
 * Otherwise -1 and a reason that quotes only the scheme and host. */
int sbio__dt_url_check(const char *url, char *reason, size_t reason_size);

/* 1 for "localhost", an IPv4 address in 127.0.0.0/8, "::1" or "[::1]". */
int sbio__dt_is_loopback_host(const char *host);

/* Percent-encodes everything but RFC 3986 unreserved characters (and '/'
 * when keep_slash), for a query value or a path segment. malloc'd, NULL on
 * out-of-memory. */
char *sbio__dt_url_escape(const char *text, int keep_slash);

/* base + "/" + path with exactly one '/' between them; malloc'd. */
char *sbio__dt_url_join(const char *base, const char *path);

#endif
