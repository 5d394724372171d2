/* SPDX-License-Identifier: MIT */
/* sbio runs on the same clock as the test that starts it, including a fake
 * one: the suite is also run under libfaketime with the clock set past the
 * sources' re-verification window (scripts/test.sh --clock DATE), and the
 * harness, which gives sbio a clean environment, must pass that clock on or
 * the CLI tests would pass on the real date without noticing.
 *
 * The assertion holds on any date: whether the fake backend's source is
 * stale by this process's clock is what sbio must report, and whenever it
 * is, the warning reaches stderr (where the harness sets it aside). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_WINDOW_DAYS 92 /* the configuration's default max_age_days */

static const cJSON *fake_mechanism(const cJSON *doc) {
  const cJSON *b;
  cJSON_ArrayForEach(b, cJSON_GetObjectItem(doc, "backends")) {
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(b, "name")), "fake") == 0)
      return cJSON_GetArrayItem(cJSON_GetObjectItem(b, "mechanisms"), 0);
  }
  fail_msg("no fake backend in the listing");
  return NULL;
}

static void test_sbio_sees_this_process_clock(void **state) {
  (void)state;
  h_result r;
  H_RUN(&r, NULL, "--config", "/dev/null", "backends", "--json");
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  const cJSON *m = fake_mechanism(doc);
  const char *verified = cJSON_GetStringValue(cJSON_GetObjectItem(m, "verified_on"));
  assert_non_null(verified);
  struct tm tm = {0};
  assert_non_null(strptime(verified, "%Y-%m-%d", &tm));
  long long age_days = ((long long)time(NULL) - (long long)timegm(&tm)) / 86400;
  /* The day the window closes could straddle the two processes' clocks. */
  if (age_days == DEFAULT_WINDOW_DAYS || age_days == DEFAULT_WINDOW_DAYS + 1) skip();
  int expect_stale = age_days > DEFAULT_WINDOW_DAYS;
  if (cJSON_IsTrue(cJSON_GetObjectItem(m, "stale")) != expect_stale)
    fail_msg("the fake source is %lld days old by this test's clock, but sbio says stale=%s", age_days,
             expect_stale ? "false" : "true");
  if (expect_stale) assert_true(r.stale_lines > 0);
  cJSON_Delete(doc);
  h_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sbio_sees_this_process_clock),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
