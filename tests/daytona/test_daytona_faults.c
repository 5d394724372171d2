/* SPDX-License-Identifier: MIT */
/* Faults, each injected by the emulator for this test's key only:
 * credentials, URL policy, 429 with Retry-After, 5xx, bare 502s, slow
 * answers, lost answers, sandboxes that end in "error" or "build_failed",
 * and a toolbox URL that may not receive the key. Whatever fails, nothing
 * stays provisioned (dtf_close checks). */
#include "dt_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sbio_code try_create(dtf *f, double timeout_s, sbio_error *err) {
  sbio_create_options *o = sbio_create_options_new();
  if (timeout_s > 0) sbio_create_options_set_timeout(o, timeout_s);
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, "daytona://", o, &sb, err);
  sbio_create_options_free(o);
  if (sb) sbio_sandbox_close(sb, NULL);
  return rc;
}

static void test_missing_and_rejected_keys_are_auth_errors(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "authkeys", NULL, NULL, NULL);
  sbio_error *err = sbio_error_new();
  unsetenv("DAYTONA_API_KEY");
  assert_int_equal(try_create(&f, 0, err), SBIO_E_AUTH);
  assert_non_null(strstr(sbio_error_message(err), "DAYTONA_API_KEY is not set"));
  assert_non_null(strstr(sbio_error_hint(err), "export DAYTONA_API_KEY="));
  setenv("DAYTONA_API_KEY", f.key, 1);
  dtf_org(&f, "{\"settings\":{\"revoked\":true}}");
  assert_int_equal(try_create(&f, 0, err), SBIO_E_AUTH);
  assert_int_equal(sbio_error_provider_status(err), 401);
  assert_non_null(strstr(sbio_error_message(err), "rejected the API key from DAYTONA_API_KEY"));
  assert_null(strstr(sbio_error_message(err), f.key)); /* the key itself is never shown */
  assert_null(strstr(sbio_error_hint(err), f.key));
  for (size_t i = 0; i < f.log.n; i++) assert_null(strstr(f.log.items[i], f.key));
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_only_loopback_may_use_plain_http(void **state) {
  (void)state;
  const char *refused[] = {"      api_url: http://daytona.example/api\n", "      api_url: http://10.1.1.1:3000/api\n",
                           "      api_url: https://user:pw@daytona.example/api\n"};
  for (size_t i = 0; i < 3; i++) {
    dtf f;
    dtf_prepare(&f, "plainhttp", NULL, NULL, NULL);
    /* A later api_url line would be a duplicate key: write a fresh config. */
    FILE *fp = fopen(f.config, "w");
    fprintf(fp, "backends:\n  daytona:\n    settings:\n%s", refused[i]);
    fclose(fp);
    sbio_error *err = sbio_error_new();
    assert_int_equal(dtf_host(&f, err), SBIO_OK);
    assert_int_equal(try_create(&f, 0, err), SBIO_E_CONFIG);
    assert_non_null(strstr(sbio_error_message(err), "settings.api_url"));
    assert_null(strstr(sbio_error_message(err), "pw"));
    sbio_error_free(err);
    cJSON *reqs = dtf_requests(&f);
    assert_int_equal(cJSON_GetArraySize(reqs), 0);
    cJSON_Delete(reqs);
    dtf_close(&f);
  }
  /* DAYTONA_API_URL is read when the settings have none, under the same rule. */
  dtf f;
  dtf_prepare(&f, "envurl", NULL, NULL, NULL);
  FILE *fp = fopen(f.config, "w");
  fprintf(fp, "backends:\n  daytona:\n    settings:\n      poll_initial_ms: 20\n");
  fclose(fp);
  char url[300];
  snprintf(url, sizeof url, "%s/api", f.url);
  setenv("DAYTONA_API_URL", url, 1);
  sbio_error *err = sbio_error_new();
  assert_int_equal(dtf_host(&f, err), SBIO_OK);
  assert_int_equal(try_create(&f, 0, err), SBIO_OK);
  sbio_host_close(f.host);
  setenv("DAYTONA_API_URL", "http://daytona.example/api", 1);
  assert_int_equal(dtf_host(&f, err), SBIO_OK);
  assert_int_equal(try_create(&f, 0, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "DAYTONA_API_URL"));
  unsetenv("DAYTONA_API_URL");
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_429_is_retried_after_retry_after(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "ratelimit", NULL, NULL, NULL);
  /* Once on the create (nothing was done: it is retried even though it is a
   * POST), once on a poll with a Retry-After of one second. */
  dtf_org(&f, "{\"faults\":[{\"match\":\"POST /sandbox\",\"status\":429,\"retryAfter\":\"0\"},"
              "{\"match\":\"GET /sandbox/*\",\"status\":429,\"retryAfter\":\"1\"}]}");
  sbio_error *err = sbio_error_new();
  double t0 = sbt_now();
  assert_int_equal(try_create(&f, 30, err), SBIO_OK);
  assert_true(sbt_now() - t0 >= 1.0);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "POST", "/sandbox"), 2);
  cJSON_Delete(reqs);
  assert_true(sbt_lines_count(&f.log, "throttled (429)") >= 2);

  /* Throttled on every attempt: a RateLimitError after max_retries + 1. */
  dtf_org(&f, "{\"faults\":[{\"match\":\"POST /sandbox\",\"status\":429,\"retryAfter\":\"0\",\"times\":-1}]}");
  assert_int_equal(try_create(&f, 30, err), SBIO_E_RATE_LIMIT);
  assert_non_null(strstr(sbio_error_message(err), "after 5 attempts"));
  /* A Retry-After longer than the deadline allows: no waiting at all. */
  dtf_org(&f, "{\"faults\":[{\"match\":\"POST /sandbox\",\"status\":429,\"retryAfter\":\"3600\",\"times\":-1}]}");
  t0 = sbt_now();
  size_t waits = sbt_lines_count(&f.log, "retrying in");
  assert_int_equal(try_create(&f, 30, err), SBIO_E_RATE_LIMIT);
  assert_int_equal(sbt_lines_count(&f.log, "retrying in"), waits); /* decided not to wait */
  assert_true(sbt_now() - t0 < 15);                                /* nor waited out the 30 s deadline */
  assert_non_null(strstr(sbio_error_message(err), "wait 3600 s"));
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_5xx_retried_only_where_idempotent(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "fivexx", NULL, NULL, NULL);
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox/*\",\"status\":503,\"times\":2}]}");
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&f, 30, err), SBIO_OK); /* polls recover */
  /* A 500 on the create is not retried, and nothing is left behind. */
  dtf_org(&f, "{\"faults\":[{\"match\":\"POST /sandbox\",\"status\":500,\"message\":\"runner pool exhausted\"}]}");
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_int_equal(sbio_error_provider_status(err), 500);
  assert_non_null(strstr(sbio_error_message(err), "runner pool exhausted"));
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "POST", "/sandbox"), 2);
  cJSON_Delete(reqs);
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_bare_502_says_what_was_attempted(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "bare502", NULL, NULL, NULL);
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox/*\",\"status\":502,\"body\":\"bare\",\"times\":-1}]}");
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_string_equal(sbio_error_message(err), "Daytona answered 502 Bad Gateway with no details while starting a "
                                               "Daytona sandbox (after 5 attempts)");
  assert_null(strstr(sbio_error_message(err), "<html>"));
  /* The sandbox POST made was deleted (dtf_close checks none is alive). */
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 1);
  cJSON_Delete(reqs);

  dtf_org(&f, "{\"faults\":[{\"match\":\"toolbox POST /process/execute\",\"status\":502,\"body\":\"bare\"}]}");
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo hi", NULL, NULL, err), SBIO_E_EXEC);
  char expected[300];
  snprintf(expected, sizeof expected,
           "Daytona answered 502 Bad Gateway with no details while running a command in sandbox %s",
           sbio_sandbox_id(sb));
  assert_string_equal(sbio_error_message(err), expected);
  sbio_sandbox_close(sb, NULL);
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_slow_answers_and_long_starts_hit_the_create_deadline(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "slow", NULL, NULL, NULL);
  sbio_error *err = sbio_error_new();
  /* The alternatives (the answer, the start) take 60 s: ending long
   * before them is the deadline's doing, however busy the machine. */
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox/*\",\"delay\":60}]}");
  double t0 = sbt_now();
  assert_int_equal(try_create(&f, 1, err), SBIO_E_CREATE_TIMEOUT);
  assert_true(sbt_now() - t0 < 30);
  dtf_org(&f, "{\"faults\":[],\"settings\":{\"startDelay\":60}}");
  t0 = sbt_now();
  assert_int_equal(try_create(&f, 1, err), SBIO_E_CREATE_TIMEOUT);
  assert_true(sbt_now() - t0 < 30);
  assert_non_null(strstr(sbio_error_message(err), "still in state"));
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 2); /* both cleaned up */
  cJSON_Delete(reqs);
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_lost_create_answer_is_found_by_name_and_deleted(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "lostanswer", NULL, NULL, NULL);
  /* The sandbox is made, but the connection drops before the answer. */
  dtf_org(&f, "{\"faults\":[{\"match\":\"POST /sandbox\",\"body\":\"drop\",\"after\":true}]}");
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_non_null(strstr(sbio_error_message(err), "could not reach Daytona"));
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "POST", "/sandbox"), 1); /* a POST is never repeated */
  const cJSON *lookup = dtf_find(reqs, "api", "GET", "/sandbox/sbio-", 0);
  assert_non_null(lookup);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/sbio-"), 1);
  cJSON_Delete(reqs);
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_error_and_build_failed_states_carry_the_reason(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "badstates", NULL, NULL, NULL);
  sbio_error *err = sbio_error_new();
  dtf_org(&f, "{\"faults\":[{\"match\":\"POST /sandbox\",\"finalState\":\"error\",\"errorReason\":\"runner out of "
              "disk\"}]}");
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_non_null(strstr(sbio_error_message(err), "(state error): runner out of disk"));
  dtf_org(&f, "{\"faults\":[{\"match\":\"POST /sandbox\",\"finalState\":\"build_failed\",\"errorReason\":\"pip "
              "install failed\"}]}");
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_non_null(strstr(sbio_error_message(err), "(state build_failed): pip install failed"));
  assert_non_null(strstr(sbio_error_hint(err), "snapshot"));
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 2);
  cJSON_Delete(reqs);
  /* An unknown snapshot is Daytona's 400, passed on. */
  sbio_sandbox *none = NULL;
  assert_int_equal(sbio_sandbox_create(f.host, "daytona://no-such-snapshot", NULL, &none, err), SBIO_E_CREATE);
  assert_non_null(strstr(sbio_error_message(err), "Snapshot no-such-snapshot not found"));
  assert_int_equal(sbio_error_provider_status(err), 400);
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_a_toolbox_url_that_may_not_receive_the_key_is_refused(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "badtoolbox", NULL, NULL, NULL);
  dtf_org(&f, "{\"settings\":{\"toolboxProxyUrlOverride\":\"http://proxy.evil.example/toolbox\"}}");
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_non_null(strstr(sbio_error_message(err), "refusing the toolbox URL"));
  assert_non_null(strstr(sbio_error_message(err), "proxy.evil.example"));
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 1);
  cJSON_Delete(reqs);
  sbio_error_free(err);
  dtf_close(&f);
}

static void test_a_sandbox_deleted_behind_our_back_is_gone(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "gone", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  char path[200];
  snprintf(path, sizeof path, "/sandbox/%s", sbio_sandbox_id(sb));
  assert_int_equal(dtf_api(&f, "DELETE", path, NULL, NULL), 200);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "true", NULL, NULL, err), SBIO_E_GONE);
  assert_int_equal(sbio_file_write(sb, "x", "x", 1, err), SBIO_E_GONE);
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK); /* deleting what is gone is fine */
  sbio_error_free(err);
  dtf_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_missing_and_rejected_keys_are_auth_errors),
      cmocka_unit_test(test_only_loopback_may_use_plain_http),
      cmocka_unit_test(test_429_is_retried_after_retry_after),
      cmocka_unit_test(test_5xx_retried_only_where_idempotent),
      cmocka_unit_test(test_bare_502_says_what_was_attempted),
      cmocka_unit_test(test_slow_answers_and_long_starts_hit_the_create_deadline),
      cmocka_unit_test(test_lost_create_answer_is_found_by_name_and_deleted),
      cmocka_unit_test(test_error_and_build_failed_states_carry_the_reason),
      cmocka_unit_test(test_a_toolbox_url_that_may_not_receive_the_key_is_refused),
      cmocka_unit_test(test_a_sandbox_deleted_behind_our_back_is_gone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
