/* SPDX-License-Identifier: MIT */
/* Host and Origin checks; see http_guard.h. */
#include "http_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int loopback_name(const char *name, size_t len) {
  static const char *const names[] = {"localhost", "127.0.0.1", "::1", "[::1]"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strlen(names[i]) == len && strncasecmp(names[i], name, len) == 0) return 1;
  return 0;
}

int mcp_guard_is_loopback(const char *host) {
  if (!host) return 0;
  if (loopback_name(host, strlen(host))) return 1;
  /* 127.0.0.0/8 */
  return strncmp(host, "127.", 4) == 0 && strspn(host, "0123456789.") == strlen(host);
}

/* Splits "name[:port]" / "[v6]:port" into the name (brackets kept) and
 * the port (-1 when absent). 0 ok, -1 malformed. */
static int split_authority(const char *a, size_t len, const char **name, size_t *name_len, long *port) {
  *port = -1;
  if (!len) return -1;
  const char *end = a + len, *colon = NULL;
  if (a[0] == '[') {
    const char *close = memchr(a, ']', len);
    if (!close) return -1;
    *name = a;
    *name_len = (size_t)(close - a) + 1;
    if (close + 1 == end) return 0;
    if (close[1] != ':') return -1;
    colon = close + 1;
  } else {
    colon = memchr(a, ':', len);
    if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1))) return -1; /* bare IPv6: not a Host */
    *name = a;
    *name_len = colon ? (size_t)(colon - a) : len;
    if (!colon) return *name_len ? 0 : -1;
  }
  if (colon + 1 == end || end - colon - 1 > 5) return -1;
  long p = 0;
  for (const char *c = colon + 1; c < end; c++) {
    if (*c < '0' || *c > '9') return -1;
    p = p * 10 + (*c - '0');
  }
  if (p > 65535) return -1;
  *port = p;
  return *name_len ? 0 : -1;
}

static int set_why(char *why, size_t size, const char *text) {
  if (why && size) snprintf(why, size, "%s", text);
  return -1;
}

int mcp_guard_check(const mcp_http_guard *g, const char *host_header, const char *origin_header, char *why,
                    size_t why_size) {
  const char *name;
  size_t name_len;
  long port;
  if (!host_header || split_authority(host_header, strlen(host_header), &name, &name_len, &port) != 0)
    return set_why(why, why_size, "Forbidden: missing or malformed Host header");
  if (g->loopback && !loopback_name(name, name_len))
    return set_why(why, why_size,
                   "Forbidden: Host must name this loopback server (localhost, 127.0.0.1 or [::1]): DNS rebinding "
                   "protection");
  if (!origin_header) return 0;
  for (size_t i = 0; i < g->n_allow_origins; i++)
    if (strcasecmp(g->allow_origins[i], origin_header) == 0) return 0;
  /* The server's own origin: http://authority with no path. */
  const char *sep = strstr(origin_header, "://");
  if (sep && (size_t)(sep - origin_header) == 4 && strncasecmp(origin_header, "http", 4) == 0) {
    const char *auth = sep + 3;
    size_t alen = strlen(auth);
    const char *oname;
    size_t oname_len;
    long oport;
    if (!memchr(auth, '/', alen) && split_authority(auth, alen, &oname, &oname_len, &oport) == 0) {
      if (g->loopback) {
        if (loopback_name(oname, oname_len) && (oport == -1 ? 80 : oport) == g->port) return 0;
      } else if (strcasecmp(auth, host_header) == 0) {
        return 0;
      }
    }
  }
  return set_why(why, why_size,
                 "Forbidden: Origin is not allowed (DNS rebinding protection); a browser-based client needs sbio mcp "
                 "--allow-origin ORIGIN");
}
