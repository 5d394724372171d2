/* SPDX-License-Identifier: MIT */
/* SDK: how long to wait before trying again.
 *
 * The HTTP client (<sandboxio/sdk/http.h>) applies these itself to every
 * request it retries. They are public for the waits a backend makes on its
 * own (polling a provider's job until it is ready) and so that every
 * backend spaces its retries the same way. */
#ifndef SANDBOXIO_SDK_RETRY_H
#define SANDBOXIO_SDK_RETRY_H

#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest wait a Retry-After is taken to ask for: one day. */
#define SBIO_SDK_RETRY_AFTER_CAP_MS (86400L * 1000)

/* Milliseconds a Retry-After header value asks for (RFC 9110 10.2.3):
 * delay-seconds ("120") or an HTTP date ("Wed, 21 Oct 2015 07:28:00 GMT";
 * the obsolete RFC 850 and asctime forms too) taken relative to `now`
 * (unix seconds); a date already past asks for 0. At most
 * SBIO_SDK_RETRY_AFTER_CAP_MS. -1 when the value is NULL, empty or
 * unreadable (then there is no request to honour: use the backoff). */
long sbio_sdk_retry_after_ms(const char *value, time_t now);

/* The wait before retry number `retry` (1 for the first): initial_ms,
 * doubled for each retry after the first and capped at max_ms, then spread
 * by a random factor from 0.8 to 1.2 (and capped at max_ms again), so that
 * clients refused at the same moment do not all come back at the same
 * moment. Thread-safe. initial_ms <= 0 gives 0. */
long sbio_sdk_backoff_ms(long initial_ms, long max_ms, int retry);

#ifdef __cplusplus
}
#endif
#endif
