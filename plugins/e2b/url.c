/* SPDX-License-Identifier: MIT */
#include "url.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbio__e2b_host_is_loopback(const char *host) {
  if (strcmp(host, "localhost") == 0 || strcmp(host, "::1") == 0) return 1;
  /* 127.0.0.0/8 in dotted-quad form only: no shortcuts like "127.1". */
  unsigned a, b, c, d;
  char tail;
  if (sscanf(host, "%3u.%3u.%3u.%3u%c", &a, &b, &c, &d, &tail) == 4 && a == 127 && b < 256 && c < 256 && d < 256)
    return 1;
  return 0;
}

int sbio__e2b_is_hostname(const char *text) {
  size_t n = strlen(text), label = 0;
  if (n == 0 || n > 253) return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)text[i];
    if (ch == '.') {
      if (label == 0) return 0;
      label = 0;
    } else if (islower(ch) || isdigit(ch) || ch == '-') {
      if (++label > 63) return 0;
    } else {
      return 0;
    }
  }
  return label > 0;
}

static int fail(char *why, size_t size, const char *msg) {
  snprintf(why, size, "%s", msg);
  return -1;
}

int sbio__e2b_url_check(const char *url, char **out, char *why, size_t why_size) {
  *out = NULL;
  size_t skip;
  int https;
  if (strncmp(url, "https://", 8) == 0) {
    skip = 8;
    https = 1;
  } else if (strncmp(url, "http://", 7) == 0) {
    skip = 7;
    https = 0;
  } else {
    return fail(why, why_size, "must start with https:// (or http:// to a loopback address)");
  }
  const char *auth = url + skip;
  size_t alen = strcspn(auth, "/?#");
  if (memchr(auth, '@', alen)) return fail(why, why_size, "must not contain credentials (user:password@)");
  if (strpbrk(url, "?#")) return fail(why, why_size, "must not have a query or a fragment");
  for (const char *p = url; *p; p++)
    if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
      return fail(why, why_size, "must not contain spaces, control or non-ASCII characters");
  char host[256];
  if (alen == 0 || alen >= sizeof host) return fail(why, why_size, "has no host");
  memcpy(host, auth, alen);
  host[alen] = '\0';
  /* Drop the port; an IPv6 literal is in brackets. */
  char *h = host;
  if (h[0] == '[') {
    char *close = strchr(h, ']');
    if (!close || (close[1] && close[1] != ':')) return fail(why, why_size, "has a malformed IPv6 host");
    *close = '\0';
    h++;
  } else {
    char *colon = strchr(h, ':');
    if (colon) *colon = '\0';
  }
  if (!h[0]) return fail(why, why_size, "has no host");
  if (!https && !sbio__e2b_host_is_loopback(h)) {
    snprintf(why, why_size,
             "uses plain http to host '%.100s'; only https is allowed, except to a loopback address "
             "(127.0.0.1, ::1, localhost)",
             h);
    return -1;
  }
  size_t n = strlen(url);
  while (n > skip + alen && url[n - 1] == '/') n--;
  *out = strndup(url, n);
  if (!*out) return fail(why, why_size, "out of memory");
  return 0;
}

char *sbio__e2b_escape(const char *text, int keep_slash) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(text);
  char *out = malloc(n * 3 + 1);
  if (!out) return NULL;
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char ch = (unsigned char)text[i];
    if (isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~' || (keep_slash && ch == '/')) {
      out[j++] = (char)ch;
    } else {
      out[j++] = '%';
      out[j++] = hex[ch >> 4];
      out[j++] = hex[ch & 15];
    }
  }
  out[j] = '\0';
  return out;
}
