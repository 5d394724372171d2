/* SPDX-License-Identifier: MIT */
/* URL policy. The API key travels in a header on every request, to the API
 * and to the toolbox proxy whose URL the server hands back, so both are
 * checked the same way: https only, except plain http to this machine (a
 * local emulator or a port-forward), where nothing crosses a network. */
#include "url.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int sbio__dt_is_loopback_host(const char *host) {
  if (!host || !*host) return 0;
  if (strcasecmp(host, "localhost") == 0 || strcmp(host, "::1") == 0 || strcmp(host, "[::1]") == 0) return 1;
  struct in_addr a;
  if (inet_pton(AF_INET, host, &a) == 1) return (ntohl(a.s_addr) >> 24) == 127;
  return 0;
}

static int fail(char *reason, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *reason, size_t size, const char *fmt, ...) {
  if (reason && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* True when the handle has `part` (user, password, query, fragment). */
static int has_part(CURLU *h, CURLUPart part) {
  char *value = NULL;
  CURLUcode rc = curl_url_get(h, part, &value, 0);
  curl_free(value);
  return rc == CURLUE_OK;
}

int sbio__dt_url_check(const char *url, char *reason, size_t reason_size) {
  if (!url || !*url) return fail(reason, reason_size, "the URL is empty");
  const char *sep = strstr(url, "://");
  if (!sep || sep[3] == '\0' || sep[3] == '/')
    return fail(reason, reason_size, "it is not an absolute URL with a host");
  CURLU *h = curl_url();
  if (!h) return fail(reason, reason_size, "out of memory checking the URL");
  char *scheme = NULL, *host = NULL;
  int rc = -1;
  if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !*host) {
    fail(reason, reason_size, "it does not parse as a URL with a host");
  } else if (has_part(h, CURLUPART_USER) || has_part(h, CURLUPART_PASSWORD)) {
    fail(reason, reason_size, "it carries credentials; give the key through the environment instead");
  } else if (has_part(h, CURLUPART_QUERY) || has_part(h, CURLUPART_FRAGMENT)) {
    fail(reason, reason_size, "a base URL cannot have a query or fragment");
  } else if (strcmp(scheme, "https") == 0) {
    rc = 0;
  } else if (strcmp(scheme, "http") == 0) {
    if (sbio__dt_is_loopback_host(host))
      rc = 0;
    else
      fail(reason, reason_size,
           "it uses plain http to %.200s; only https is allowed, except http to a loopback host (127.0.0.1, ::1, "
           "localhost)",
           host);
  } else {
    fail(reason, reason_size, "scheme \"%.16s\" is not https", scheme);
  }
  curl_free(scheme);
  curl_free(host);
  curl_url_cleanup(h);
  return rc;
}

char *sbio__dt_url_escape(const char *text, int keep_slash) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(text);
  char *out = malloc(n * 3 + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    unsigned char c = *p;
    int plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_' || c == '~' || (keep_slash && c == '/');
    if (plain) {
      out[o++] = (char)c;
    } else {
      out[o++] = '%';
      out[o++] = hex[c >> 4];
      out[o++] = hex[c & 15];
    }
  }
  out[o] = '\0';
  return out;
}

char *sbio__dt_url_join(const char *base, const char *path) {
  size_t bl = strlen(base);
  while (bl > 0 && base[bl - 1] == '/') bl--;
  while (*path == '/') path++;
  size_t pl = strlen(path);
  char *out = malloc(bl + pl + 2);
  if (!out) return NULL;
  memcpy(out, base, bl);
  out[bl] = '/';
  memcpy(out + bl + 1, path, pl + 1);
  return out;
}
