/* SPDX-License-Identifier: MIT */
/* The e2b backend through the real sbio binary, for what a user sees of a
 * rate limit: a create E2B refuses once with 429 + Retry-After: 1 costs one
 * second and the command runs (it used to exit 69); one the deadline cannot
 * absorb exits 69 with SBX_E1502 at once. */
#include "harness.h"

#include "e2b_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "E2B_API_KEY=<the emulator's key>" for the child's environment. */
static const char *const *key_env(void) {
  static char entry[160];
  static const char *env[2];
  snprintf(entry, sizeof entry, "E2B_API_KEY=%s", E2B_TEST_KEY);
  env[0] = entry;
  env[1] = NULL;
  return env;
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f || fx_open(f, NULL, NULL, NULL) != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  int violations = emu_violations(&f->emu);
  fx_close(f);
  free(f);
  return violations == 0 ? 0 : -1;
}

static void test_a_one_second_rate_limit_costs_one_second(void **state) {
  fx *f = *state;
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"status\","
                     "\"status\":429,\"retry_after\":\"1\",\"times\":1,\"message\":\"rate limit exceeded\"}");
  h_opts o = {.env = key_env()};
  h_result r;
  H_RUN(&r, &o, "--config", f->config, "run", "--backend", "e2b://", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "hi\n");
  h_result_free(&r);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 2);
  assert_int_equal(emu_count(&f->emu, "DELETE", "/sandboxes/"), 1);
}

static void test_a_rate_limit_past_the_deadline_exits_69_at_once(void **state) {
  fx *f = *state;
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"status\","
                     "\"status\":429,\"retry_after\":\"3600\",\"times\":100,\"message\":\"rate limit exceeded\"}");
  h_opts o = {.env = key_env()};
  h_result r;
  H_RUN(&r, &o, "--config", f->config, "run", "--backend", "e2b://", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 69);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1502]"));
  assert_true(h_contains(r.err, r.err_len, "Retry-After 3600"));
  assert_false(h_contains(r.err, r.err_len, E2B_TEST_KEY));
  h_result_free(&r);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 1);
}

/* Requests to E2B's surfaces, the emulator's own admin calls left out. */
static int requests_seen(const emu *e) {
  char *text = emu_admin(e, "GET", "requests", NULL);
  cJSON *j = text ? cJSON_Parse(text) : NULL;
  const cJSON *r;
  int n = j ? 0 : -1;
  cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(j, "requests")) {
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "path");
    if (!cJSON_IsString(p) || strncmp(p->valuestring, "/__emu__/", 9) != 0) {
      fprintf(stderr, "request seen: %s\n", cJSON_IsString(p) ? p->valuestring : "?");
      n++;
    }
  }
  cJSON_Delete(j);
  free(text);
  return n;
}

/* A lifetime above the core's maximum (24 h) is refused with exit 78
 * before E2B hears of anything. Before, the backend clamped it to
 * INT32_MAX seconds (about 68 years), quietly disabling the backstop. */
static void test_a_timeout_above_the_maximum_never_reaches_e2b(void **state) {
  fx *f = *state;
  emu_clear_log(&f->emu);
  h_opts o = {.env = key_env()};
  h_result r;
  H_RUN(&r, &o, "--config", f->config, "run", "--backend", "e2b://?timeout=99999999999999999999", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, "above the maximum of 86400 seconds"));
  h_result_free(&r);
  H_RUN(&r, &o, "--config", f->config, "run", "--backend", "e2b://", "--timeout", "86401", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "above the maximum of 86400 seconds"));
  h_result_free(&r);
  assert_int_equal(requests_seen(&f->emu), 0);
}

/* A key pasted where its variable's name belongs (E2B's keys, e2b_..., are
 * valid variable names): unset as a variable, the text is never repeated,
 * not by the error, its hint or the -vv log lines; the error names the
 * setting instead, and E2B hears of nothing. */
static void test_a_key_pasted_into_api_key_env_is_never_shown(void **state) {
  (void)state;
  static const char *const pasted = "e2b_5ecretpastedintoapikeyenv0a1b2c3d4e5f6";
  fx f;
  char settings[200];
  snprintf(settings, sizeof settings, "      api_key_env: %s\n", pasted);
  assert_int_equal(fx_open(&f, NULL, settings, NULL), 0);
  emu_clear_log(&f.emu);
  h_opts o = {.env = key_env()}; /* E2B_API_KEY is set: the setting wins */
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", f.config, "run", "--backend", "e2b://", "--", "true");
  H_ASSERT_STATUS(&r, 69);
  if (h_contains(r.err, r.err_len, pasted)) fail_msg("the pasted key is in stderr:\n%s", r.err);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1501]"));
  assert_true(h_contains(r.err, r.err_len, "the environment variable that settings.api_key_env names is not set"));
  h_result_free(&r);
  H_RUN(&r, &o, "--config", f.config, "doctor", "--json");
  if (h_contains(r.out, r.out_len, pasted)) fail_msg("the pasted key is in doctor's output:\n%s", r.out);
  h_result_free(&r);
  assert_int_equal(requests_seen(&f.emu), 0);
  assert_int_equal(emu_violations(&f.emu), 0);
  fx_close(&f);
}

/* A key that cannot be sent as a header (a line break copied with it, a
 * CR, another control character, a byte that is not ASCII) is a
 * credential error (SBX_E1501, exit 69) that names the variable and says
 * why, before E2B hears of anything. It used to reach libcurl, which
 * refused the header: "SBX_E1201 connection ... failed". The value is
 * nowhere in stderr (with -vv) or the audit log. */
static void check_unusable_key(fx *f, const char *var, const char *tail, const char *why) {
  emu_clear_log(&f->emu);
  char entry[300];
  snprintf(entry, sizeof entry, "%s=%s%s", var, E2B_TEST_KEY, tail);
  const char *env[] = {entry, NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", f->config, "run", "--backend", "e2b://", "--", "true");
  H_ASSERT_STATUS(&r, 69);
  if (h_contains(r.err, r.err_len, E2B_TEST_KEY)) fail_msg("the key is in stderr:\n%s", r.err);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1501]"));
  char expect[200];
  snprintf(expect, sizeof expect, "the value of %s cannot be sent in a request header as a credential: %s", var, why);
  if (!h_contains(r.err, r.err_len, expect)) fail_msg("expected '%s' in:\n%s", expect, r.err);
  h_result_free(&r);
  char *audit = h_read(f->audit_path);
  if (strstr(audit, E2B_TEST_KEY)) fail_msg("the key is in the audit log:\n%s", audit);
  free(audit);
  assert_int_equal(requests_seen(&f->emu), 0);
}

static void test_a_key_that_is_not_a_header_value_is_refused_before_any_request(void **state) {
  fx *f = *state;
  const char *control = "it contains a control character";
  check_unusable_key(f, "E2B_API_KEY", "\ndef", control);
  check_unusable_key(f, "E2B_API_KEY", "\r", control);
  check_unusable_key(f, "E2B_API_KEY", "\x01", control);
  check_unusable_key(f, "E2B_API_KEY", "\xc3\xa9", "it contains a byte that is not ASCII");
}

/* The same for the variable settings.api_key_env names: it is named, as
 * it is set. */
static void test_a_named_variable_that_is_not_a_header_value_is_refused(void **state) {
  (void)state;
  fx f;
  assert_int_equal(fx_open(&f, NULL, "      api_key_env: SBIO_TEST_E2B_OTHER_KEY\n", NULL), 0);
  check_unusable_key(&f, "SBIO_TEST_E2B_OTHER_KEY", "\n", "it contains a control character");
  assert_int_equal(emu_violations(&f.emu), 0);
  fx_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_a_one_second_rate_limit_costs_one_second, setup, teardown),
      cmocka_unit_test_setup_teardown(test_a_rate_limit_past_the_deadline_exits_69_at_once, setup, teardown),
      cmocka_unit_test_setup_teardown(test_a_timeout_above_the_maximum_never_reaches_e2b, setup, teardown),
      cmocka_unit_test(test_a_key_pasted_into_api_key_env_is_never_shown),
      cmocka_unit_test_setup_teardown(test_a_key_that_is_not_a_header_value_is_refused_before_any_request, setup,
                                      teardown),
      cmocka_unit_test(test_a_named_variable_that_is_not_a_header_value_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
