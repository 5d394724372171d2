/* SPDX-License-Identifier: MIT */
/* Allow-list entries: a bare IPv4 address becomes a /32 block, a CIDR block
 * must be IPv4 with a prefix of 0..32, a name is DNS labels with an
 * optional leading "*." wildcard. */
#include "allow.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HINT "Daytona's allow-lists take IPv4 addresses or CIDR blocks (at most 5) and domain names"

/* Appends `item` to the comma-separated list *list. */
static int append(char **list, const char *item) {
  size_t old = *list ? strlen(*list) : 0, n = strlen(item);
  char *p = realloc(*list, old + n + 2);
  if (!p) return -1;
  if (old) p[old++] = ',';
  memcpy(p + old, item, n + 1);
  *list = p;
  return 0;
}

/* "a.b.c.d" or "a.b.c.d/n" -> the canonical block in out; 1 if IPv4. */
static int ipv4_block(const char *entry, char *out, size_t size) {
  char addr[32];
  const char *slash = strchr(entry, '/');
  size_t alen = slash ? (size_t)(slash - entry) : strlen(entry);
  if (alen == 0 || alen >= sizeof addr) return 0;
  memcpy(addr, entry, alen);
  addr[alen] = '\0';
  struct in_addr a;
  if (inet_pton(AF_INET, addr, &a) != 1) return 0;
  long prefix = 32;
  if (slash) {
    char *end = NULL;
    if (!isdigit((unsigned char)slash[1])) return -1;
    prefix = strtol(slash + 1, &end, 10);
    if (*end || prefix < 0 || prefix > 32) return -1;
  }
  snprintf(out, size, "%s/%ld", addr, prefix);
  return 1;
}

static int domain_ok(const char *d) {
  if (strncmp(d, "*.", 2) == 0) d += 2;
  size_t n = strlen(d), label = 0, labels = 0;
  if (n == 0 || n > 253) return 0;
  for (const char *p = d;; p++) {
    if (*p == '.' || *p == '\0') {
      if (label == 0 || label > 63 || p[-1] == '-') return 0;
      labels++;
      label = 0;
      if (!*p) break;
      continue;
    }
    if (!(isalnum((unsigned char)*p) || (*p == '-' && label > 0))) return 0;
    label++;
  }
  return labels >= 2;
}

int sbio__dt_allow_split(const char *const *allow, size_t n, dt_allow *out, sbio_bk_error *err) {
  memset(out, 0, sizeof *out);
  size_t cidrs = 0;
  for (size_t i = 0; i < n; i++) {
    const char *e = allow[i] ? allow[i] : "";
    char block[48];
    int v4 = ipv4_block(e, block, sizeof block);
    int rc = 0;
    if (v4 < 0) {
      rc = sbio_sdk_error(err, SBIO_E_CONFIG, HINT, "allow-list entry '%.100s' has an invalid prefix length", e);
    } else if (v4 > 0) {
      if (++cidrs > DT_MAX_CIDRS)
        rc = sbio_sdk_error(err, SBIO_E_CONFIG, HINT,
                            "Daytona takes at most %d CIDR blocks in an allow-list; '%.100s' is one too many",
                            DT_MAX_CIDRS, e);
      else if (append(&out->cidrs, block) != 0)
        rc = -1;
    } else if (strchr(e, ':')) {
      rc = sbio_sdk_error(err, SBIO_E_CONFIG, HINT,
                          "allow-list entry '%.100s' is IPv6 or names a port; Daytona's allow-lists cannot "
                          "express either",
                          e);
    } else if (domain_ok(e)) {
      if (append(&out->domains, e) != 0) rc = -1;
    } else {
      rc = sbio_sdk_error(err, SBIO_E_CONFIG, HINT,
                          "allow-list entry '%.100s' is neither an IPv4 address, a CIDR block nor a domain name", e);
    }
    if (rc == -1) rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory building the allow-list");
    if (rc != 0) {
      sbio__dt_allow_free(out);
      return rc;
    }
  }
  return SBIO_OK;
}

void sbio__dt_allow_free(dt_allow *a) {
  free(a->cidrs);
  free(a->domains);
  a->cidrs = a->domains = NULL;
}
