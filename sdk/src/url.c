/* SPDX-License-Identifier: MIT */
/* URL policy for endpoints that receive credentials. libcurl's URL parser
 * decides what the host is, so the check and the request agree on it. */
#include <sandboxio/sdk/url.h>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int sbio_sdk_url_host_is_loopback(const char *host) {
  if (!host || !*host) return 0;
  if (!strcasecmp(host, "localhost") || !strcmp(host, "::1") || !strcmp(host, "[::1]")) return 1;
  struct in_addr a;
  if (inet_pton(AF_INET, host, &a) == 1) return (ntohl(a.s_addr) >> 24) == 127;
  return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
refuse(char *why, size_t size, const char *fmt, ...) {
  if (why && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int has_part(CURLU *h, CURLUPart part) {
  char *value = NULL;
  CURLUcode rc = curl_url_get(h, part, &value, 0);
  curl_free(value);
  return rc == CURLUE_OK && value != NULL;
}

/* What the parser says, once the text itself is known to be sane. */
static int check_parsed(const char *url, unsigned flags, char *why, size_t size) {
  CURLU *h = curl_url();
  if (!h) return refuse(why, size, "out of memory checking the URL");
  char *scheme = NULL, *host = NULL;
  int rc = -1;
  if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host || !*host)
    refuse(why, size, "it does not parse as a URL with a host");
  else if (has_part(h, CURLUPART_USER) || has_part(h, CURLUPART_PASSWORD))
    refuse(why, size, "it carries credentials (user:password@); give them through the environment instead");
  else if (has_part(h, CURLUPART_QUERY) || has_part(h, CURLUPART_FRAGMENT))
    refuse(why, size, "a base URL cannot have a query or a fragment");
  else if (!strcmp(scheme, "https"))
    rc = 0;
  else if (strcmp(scheme, "http") != 0)
    refuse(why, size, "scheme \"%.16s\" is not http or https", scheme);
  else if (!(flags & SBIO_SDK_URL_LOOPBACK_HTTP) || sbio_sdk_url_host_is_loopback(host))
    rc = 0;
  else
    refuse(why, size,
           "plain http to %.200s: only https may carry a credential, except to a loopback host (127.0.0.1, ::1, "
           "localhost)",
           host);
  curl_free(scheme);
  curl_free(host);
  curl_url_cleanup(h);
  return rc;
}

int sbio_sdk_url_check(const char *url, unsigned flags, char *why, size_t why_size) {
  if (why && why_size) why[0] = '\0';
  if (!url || !*url) return refuse(why, why_size, "the URL is empty");
  for (const unsigned char *p = (const unsigned char *)url; *p; p++)
    if (*p <= 0x20 || *p >= 0x7f)
      return refuse(why, why_size, "it contains spaces, control characters or non-ASCII characters");
  const char *sep = strstr(url, "://");
  if (!sep || sep == url || sep[3] == '\0' || sep[3] == '/')
    return refuse(why, why_size, "it is not an absolute URL with a host (scheme://host/...)");
  /* Before the parser, which would take "https://a@b" apart quietly. */
  size_t authority = strcspn(sep + 3, "/?#");
  if (memchr(sep + 3, '@', authority))
    return refuse(why, why_size, "it carries credentials (user:password@); give them through the environment instead");
  return check_parsed(url, flags, why, why_size);
}
