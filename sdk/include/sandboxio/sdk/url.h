/* SPDX-License-Identifier: MIT */
/* SDK: which URLs may be given a credential.
 *
 * A backend sends its API key to the URLs its settings name, and often to
 * URLs the provider hands back (a sandbox's own endpoint). Both are checked
 * the same way before anything is sent: */
#ifndef SANDBOXIO_SDK_URL_H
#define SANDBOXIO_SDK_URL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Plain http is accepted only to a loopback host (127.0.0.0/8, ::1,
 * localhost): an emulator or a port-forward on this machine, where nothing
 * crosses a network. */
#define SBIO_SDK_URL_LOOPBACK_HTTP 0x1u

/* 0 when `url` is an absolute http or https URL with a host, without
 * credentials (user:password@), a query or a fragment, made of printable
 * ASCII; with SBIO_SDK_URL_LOOPBACK_HTTP, plain http only to a loopback
 * host. Otherwise -1 and, in `why`, a reason that names at most the scheme
 * and the host, never the rest of the URL (it may hold a secret), e.g.
 *   "plain http to api.example.com: only https may carry a credential, except to a loopback host
 *    (127.0.0.1, ::1, localhost)"
 * `why` may be NULL. */
int sbio_sdk_url_check(const char *url, unsigned flags, char *why, size_t why_size);

/* 1 for "localhost", an IPv4 address in 127.0.0.0/8 in dotted-quad form,
 * "::1" or "[::1]"; 0 otherwise (a name that merely starts like one,
 * "127.0.0.1.example.com", is not). */
int sbio_sdk_url_host_is_loopback(const char *host);

#ifdef __cplusplus
}
#endif
#endif
