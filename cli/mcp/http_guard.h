/* SPDX-License-Identifier: MIT */
/* Who may talk to the HTTP transport: the checks against DNS rebinding the
 * MCP specification requires ("Servers MUST validate the Origin header").
 * A web page whose name an attacker points at 127.0.0.1 is a browser
 * request with that name in Host and Origin; a local MCP client sends a
 * loopback Host and usually no Origin at all.
 *
 *   Host    when bound to a loopback address: must name one (localhost,
 *           127.0.0.1, [::1]); a missing Host is refused (HTTP/1.1 needs it).
 *   Origin  absent: allowed (not a browser). Present: allowed when it is
 *           exactly one of --allow-origin, or the server's own origin
 *           (http://<loopback name>:<port> when bound to loopback; the Host
 *           header's authority otherwise). "null" and anything else: 403.
 * Pure functions, so the rules are unit-tested and fuzzed on their own. */
#ifndef SBIO_MCP_HTTP_GUARD_H
#define SBIO_MCP_HTTP_GUARD_H

#include <stddef.h>

typedef struct mcp_http_guard {
  int loopback; /* bound to a loopback address */
  int port;     /* the port actually bound */
  const char *const *allow_origins;
  size_t n_allow_origins;
} mcp_http_guard;

/* 1 when `host` (an address or name as given to --host) is loopback. */
int mcp_guard_is_loopback(const char *host);
/* 0 when the request may proceed; otherwise -1 and a reason in why (which
 * never repeats the header: it is the client's text). */
int mcp_guard_check(const mcp_http_guard *g, const char *host_header, const char *origin_header, char *why,
                    size_t why_size);

#endif
