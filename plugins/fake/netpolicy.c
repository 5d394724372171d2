/* SPDX-License-Identifier: MIT */
#include "netpolicy.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *sbio__fake_url_host(const char *url) {
  const char *p = strstr(url, "://");
  p = p ? p + 3 : url;
  /* The authority ends at the first '/', '?' or '#'; userinfo ends at '@'. */
  size_t auth_len = strcspn(p, "/?#");
  const char *at = memchr(p, '@', auth_len);
  if (at) {
    auth_len -= (size_t)(at + 1 - p);
    p = at + 1;
  }
  size_t host_len;
  if (auth_len > 0 && p[0] == '[') { /* IPv6 literal */
    const char *close = memchr(p, ']', auth_len);
    if (!close) return NULL;
    p++;
    host_len = (size_t)(close - p);
  } else {
    const char *colon = memchr(p, ':', auth_len);
    host_len = colon ? (size_t)(colon - p) : auth_len;
  }
  if (host_len == 0) return NULL;
  char *host = malloc(host_len + 1);
  if (!host) return NULL;
  for (size_t i = 0; i < host_len; i++) host[i] = (char)tolower((unsigned char)p[i]);
  host[host_len] = '\0';
  return host;
}

/* "10.0.0.0/8" contains `host` (an IPv4 literal)? */
static int cidr_contains(const char *cidr, const char *host) {
  const char *slash = strchr(cidr, '/');
  if (!slash || slash - cidr >= 64) return 0;
  char net_text[64];
  memcpy(net_text, cidr, (size_t)(slash - cidr));
  net_text[slash - cidr] = '\0';
  char *end;
  long bits = strtol(slash + 1, &end, 10);
  if (end == slash + 1 || *end || bits < 0 || bits > 32) return 0;
  struct in_addr net, addr;
  if (inet_pton(AF_INET, net_text, &net) != 1 || inet_pton(AF_INET, host, &addr) != 1) return 0;
  uint32_t mask = bits == 0 ? 0 : 0xffffffffu << (32 - bits);
  return (ntohl(net.s_addr) & mask) == (ntohl(addr.s_addr) & mask);
}

static int entry_matches(const char *entry, const char *host) {
  if (strcasecmp(entry, host) == 0) return 1;
  if (entry[0] == '*' && entry[1] == '.') {
    size_t hl = strlen(host), sl = strlen(entry + 1); /* suffix keeps its dot */
    return hl > sl && strcasecmp(host + hl - sl, entry + 1) == 0;
  }
  return cidr_contains(entry, host);
}

int sbio__fake_egress_allows(int egress_allow, char *const *allow, size_t n_allow, const char *host) {
  if (egress_allow) return 1;
  for (size_t i = 0; host && i < n_allow; i++) {
    if (allow[i] && entry_matches(allow[i], host)) return 1;
  }
  return 0;
}
