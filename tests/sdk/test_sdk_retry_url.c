/* SPDX-License-Identifier: MIT */
/* The SDK's pure helpers: Retry-After values (delay-seconds and the three
 * HTTP date forms), the jittered backoff, the URL policy for endpoints
 * that receive a credential, and clean-up calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_host.h"

#include <sandboxio/sdk.h>
#include <stdio.h>
#include <string.h>

static void retry_after_values(void **state) {
  (void)state;
  time_t now = 784111777; /* Sun, 06 Nov 1994 08:49:37 GMT */
  assert_int_equal(sbio_sdk_retry_after_ms("0", now), 0);
  assert_int_equal(sbio_sdk_retry_after_ms("1", now), 1000);
  assert_int_equal(sbio_sdk_retry_after_ms(" 120 ", now), 120000);
  assert_int_equal(sbio_sdk_retry_after_ms("99999999999999999999999", now), SBIO_SDK_RETRY_AFTER_CAP_MS);
  assert_int_equal(sbio_sdk_retry_after_ms("86401", now), SBIO_SDK_RETRY_AFTER_CAP_MS);
  /* The three date forms RFC 9110 allows, 10 s after now. */
  assert_int_equal(sbio_sdk_retry_after_ms("Sun, 06 Nov 1994 08:49:47 GMT", now), 10000);
  assert_int_equal(sbio_sdk_retry_after_ms("Sunday, 06-Nov-94 08:49:47 GMT", now), 10000);
  assert_int_equal(sbio_sdk_retry_after_ms("Sun Nov  6 08:49:47 1994", now), 10000);
  assert_int_equal(sbio_sdk_retry_after_ms("Sun, 06 Nov 1994 08:00:00 GMT", now), 0); /* past: now */
  assert_int_equal(sbio_sdk_retry_after_ms("Mon, 06 Nov 1995 08:49:37 GMT", now), SBIO_SDK_RETRY_AFTER_CAP_MS);
  assert_int_equal(sbio_sdk_retry_after_ms(NULL, now), -1);
  assert_int_equal(sbio_sdk_retry_after_ms("", now), -1);
  assert_int_equal(sbio_sdk_retry_after_ms("soon", now), -1);
  assert_int_equal(sbio_sdk_retry_after_ms("1.5", now), -1);
  assert_int_equal(sbio_sdk_retry_after_ms("-1", now), -1);
  assert_int_equal(sbio_sdk_retry_after_ms("5 s", now), -1);
}

static void backoff_is_exponential_capped_and_spread(void **state) {
  (void)state;
  long first_min = 1000, first_max = 0;
  for (int i = 0; i < 200; i++) {
    long b = sbio_sdk_backoff_ms(100, 1000, 1);
    assert_true(b >= 80 && b <= 120);
    first_min = b < first_min ? b : first_min;
    first_max = b > first_max ? b : first_max;
    long third = sbio_sdk_backoff_ms(100, 1000, 3);
    assert_true(third >= 320 && third <= 480);
    long late = sbio_sdk_backoff_ms(100, 1000, 40); /* no overflow, capped */
    assert_true(late >= 800 && late <= 1000);
  }
  assert_true(first_max > first_min); /* spread, not one value */
  assert_int_equal(sbio_sdk_backoff_ms(0, 1000, 1), 0);
  assert_true(sbio_sdk_backoff_ms(500, 100, 2) <= 500); /* max below initial: initial is the cap */
}

static void check_ok(const char *url, unsigned flags) {
  char why[300];
  if (sbio_sdk_url_check(url, flags, why, sizeof why) != 0) fail_msg("%s refused: %s", url, why);
}

static const char *check_refused(const char *url, unsigned flags, char *why, size_t size) {
  if (sbio_sdk_url_check(url, flags, why, size) == 0) fail_msg("%s accepted", url);
  assert_true(why[0] != '\0');
  return why;
}

static void url_policy(void **state) {
  (void)state;
  const unsigned L = SBIO_SDK_URL_LOOPBACK_HTTP;
  char why[300];
  check_ok("https://api.e2b.app", L);
  check_ok("https://app.daytona.io/api/", L);
  check_ok("http://127.0.0.1:8080/api", L);
  check_ok("http://127.8.9.10/api", L);
  check_ok("http://localhost:3000", L);
  check_ok("http://[::1]:9/", L);
  check_ok("http://docker.example:2375", 0); /* without the flag, plain http anywhere */
  assert_non_null(
      strstr(check_refused("http://app.daytona.io/api", L, why, sizeof why), "plain http to app.daytona.io"));
  assert_non_null(strstr(check_refused("http://10.0.0.1", L, why, sizeof why), "10.0.0.1"));
  check_refused("http://128.0.0.1/api", L, why, sizeof why);
  check_refused("http://127.0.0.1.evil.example", L, why, sizeof why);
  check_refused("http://localhost.evil.example/api", L, why, sizeof why);
  assert_null(strstr(check_refused("https://user:pw@host.example/", 0, why, sizeof why), "pw"));
  assert_null(strstr(check_refused("https://a:secret@b/x", L, why, sizeof why), "secret"));
  check_refused("https://host.example/api?token=1", 0, why, sizeof why);
  assert_null(strstr(why, "token"));
  check_refused("https://host.example/#frag", 0, why, sizeof why);
  check_refused("ftp://127.0.0.1/", 0, why, sizeof why);
  check_refused("https://", 0, why, sizeof why);
  check_refused("https:///path", 0, why, sizeof why);
  check_refused("host.example/api", 0, why, sizeof why);
  check_refused("https://host.example/a b", 0, why, sizeof why);
  check_refused("https://h\xc3\xa9.example/", 0, why, sizeof why);
  check_refused("", 0, why, sizeof why);
  assert_int_equal(sbio_sdk_url_check(NULL, 0, NULL, 0), -1);
  assert_true(sbio_sdk_url_host_is_loopback("127.0.0.1"));
  assert_true(sbio_sdk_url_host_is_loopback("LOCALHOST"));
  assert_true(sbio_sdk_url_host_is_loopback("[::1]"));
  assert_false(sbio_sdk_url_host_is_loopback("127.1"));
  assert_false(sbio_sdk_url_host_is_loopback("::2"));
  assert_false(sbio_sdk_url_host_is_loopback(""));
}

static int parent_cancelled(const sbio_bk_call *call) {
  (void)call;
  return 1;
}

static void cleanup_calls(void **state) {
  (void)state;
  test_host h;
  test_host_init(&h);
  sbio_bk_call parent;
  test_call_init(&parent, &h, -1); /* its deadline has passed */
  parent.cancelled = parent_cancelled;
  sbio_bk_call c;
  sbio_sdk_call_cleanup(&c, &parent, 3);
  assert_int_equal(c.size, sizeof c);
  assert_ptr_equal(c.host, parent.host);
  assert_false(c.cancelled(&c)); /* the caller giving up is when clean-up matters */
  int64_t left = sbio_bk_remaining_ns(&c);
  assert_true(left > 2 * 1000000000LL && left <= 3 * 1000000000LL);
  sbio_sdk_call_cleanup(&c, NULL, 1e30);
  assert_null(c.host);
  assert_true(c.deadline_ns > 0);
}

/* A clean-up that follows a deadline ends SBIO_SDK_CLEANUP_MARGIN_S after
 * it, whatever budget it asks for; one that follows no deadline (a far
 * one) keeps its own budget; one long past the margin still gets its floor. */
static void bounded_cleanup_calls(void **state) {
  (void)state;
  test_host h;
  test_host_init(&h);
  sbio_bk_call parent;
  sbio_bk_call c;
  test_call_init(&parent, &h, -0.5); /* its deadline passed half a second ago */
  parent.cancelled = parent_cancelled;
  sbio_sdk_call_cleanup_bounded(&c, &parent, 10);
  assert_false(c.cancelled(&c));
  int64_t left = sbio_bk_remaining_ns(&c);
  assert_true(left > 1 * 1000000000LL && left <= 1500000000LL); /* 2 s margin - 0.5 s, not 10 s */
  test_call_init(&parent, &h, 300);
  sbio_sdk_call_cleanup_bounded(&c, &parent, 3);
  left = sbio_bk_remaining_ns(&c);
  assert_true(left > 2 * 1000000000LL && left <= 3 * 1000000000LL);
  test_call_init(&parent, &h, -60);
  sbio_sdk_call_cleanup_bounded(&c, &parent, 10);
  left = sbio_bk_remaining_ns(&c);
  assert_true(left > 0 && left <= 250000000LL);
  sbio_sdk_call_cleanup_bounded(&c, NULL, 1);
  assert_true(c.deadline_ns > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(bounded_cleanup_calls),
      cmocka_unit_test(retry_after_values),
      cmocka_unit_test(backoff_is_exponential_capped_and_spread),
      cmocka_unit_test(url_policy),
      cmocka_unit_test(cleanup_calls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
