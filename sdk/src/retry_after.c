/* SPDX-License-Identifier: MIT */
/* Retry-After: delay-seconds or an HTTP date (libcurl's date parser knows
 * the IMF-fixdate, RFC 850 and asctime forms RFC 9110 allows). */
#include <sandboxio/sdk/retry.h>

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

long sbio_sdk_retry_after_ms(const char *value, time_t now) {
  if (!value) return -1;
  while (*value == ' ' || *value == '\t') value++;
  if (!*value) return -1;
  if (*value >= '0' && *value <= '9') {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(value, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    if (*end) return -1; /* "1.5", "5 s": not delay-seconds */
    if (errno == ERANGE || s >= (unsigned long long)(SBIO_SDK_RETRY_AFTER_CAP_MS / 1000))
      return SBIO_SDK_RETRY_AFTER_CAP_MS;
    return (long)s * 1000;
  }
  time_t when = curl_getdate(value, NULL);
  if (when == (time_t)-1) return -1;
  if (when <= now) return 0;
  double ms = difftime(when, now) * 1000.0;
  return ms >= (double)SBIO_SDK_RETRY_AFTER_CAP_MS ? SBIO_SDK_RETRY_AFTER_CAP_MS : (long)ms;
}
