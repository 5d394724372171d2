/* SPDX-License-Identifier: MIT */
/* The daytona backend through the real sbio binary: an isolation
 * requirement fails with exit 78 before Daytona hears of it, a run without
 * one warns once and runs, inspect explains the UNKNOWN tier naming its
 * sources, a missing key is exit 69 naming the variable, and reap finds
 * and removes what was left. */
#include "harness.h"

#include "dt_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARNING "backend daytona has no verified isolation tier"

/* "DAYTONA_API_KEY=<this test's key>" for the child's environment. */
static const char *const *key_env(const dtf *f) {
  static char entry[160];
  static const char *env[2];
  snprintf(entry, sizeof entry, "DAYTONA_API_KEY=%s", f->key);
  env[0] = entry;
  env[1] = NULL;
  return env;
}

static size_t count(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
  return n;
}

static void test_a_requirement_exits_78_and_nothing_is_created(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "clirequire", NULL, NULL, NULL);
  h_opts o = {.env = key_env(&f)};
  h_result r;
  H_RUN(&r, &o, "--config", f.config, "run", "--backend", "daytona://", "--require-isolation", "container", "--",
        "echo", "hi");
  H_ASSERT_STATUS(&r, 78);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, "cannot meet the required isolation CONTAINER"));
  assert_true(h_contains(r.err, r.err_len, "contradicts itself"));
  h_result_free(&r);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetArraySize(reqs), 0); /* the emulator saw no create, nor anything else */
  cJSON_Delete(reqs);
  dtf_close(&f);
}

/* Daytona's process/execute takes no stdin: `run -i` is refused by the
 * library's admission gate before Daytona hears of it. (Before the gate,
 * the sandbox was created, polled and deleted, and only the exec said no.) */
static void test_stdin_is_refused_before_anything_is_created(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "clistdin", NULL, NULL, NULL);
  h_opts o = {.env = key_env(&f)};
  h_result r;
  H_RUN(&r, &o, "--config", f.config, "run", "-i", "--backend", "daytona://", "--", "cat");
  H_ASSERT_STATUS(&r, 69);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1101] backend daytona does not support stdin"));
  assert_true(h_contains(r.err, r.err_len, "hint: backends that support stdin:"));
  h_result_free(&r);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetArraySize(reqs), 0); /* no create, no poll, no delete: nothing at all */
  cJSON_Delete(reqs);
  dtf_close(&f);
}

/* A lifetime above the core's maximum (24 h) is refused with exit 78
 * before Daytona hears of anything. Before, the core passed it on and the
 * backend sent autoStopInterval 1.6666666666666668e+18 minutes. */
static void test_a_timeout_above_the_maximum_never_reaches_daytona(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "climaxtimeout", NULL, NULL, NULL);
  h_opts o = {.env = key_env(&f)};
  h_result r;
  H_RUN(&r, &o, "--config", f.config, "run", "--backend", "daytona://?timeout=99999999999999999999", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, "above the maximum of 86400 seconds"));
  h_result_free(&r);
  H_RUN(&r, &o, "--config", f.config, "run", "--backend", "daytona://", "--timeout", "1e20", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "above the maximum of 86400 seconds"));
  h_result_free(&r);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetArraySize(reqs), 0); /* no create, nor anything else */
  cJSON_Delete(reqs);
  dtf_close(&f);
}

static void test_without_a_requirement_it_warns_once_and_runs(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "clirun", NULL, NULL, NULL);
  h_opts o = {.env = key_env(&f)};
  h_result r;
  H_RUN(&r, &o, "--config", f.config, "run", "--backend", "daytona://", "--", "sh", "-c", "echo hi; exit 3");
  H_ASSERT_STATUS(&r, 3);
  assert_string_equal(r.out, "hi\n");
  assert_int_equal(count(r.err, WARNING), 1);
  assert_true(h_contains(r.err, r.err_len, "docs/en/security-exhibit"));
  h_result_free(&r);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "POST", "/sandbox"), 1);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 1);
  cJSON_Delete(reqs);
  dtf_close(&f);
}

static void test_inspect_explains_the_unknown_tier(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "cliinspect", NULL, NULL, NULL);
  h_result r;
  H_RUN(&r, NULL, "--config", f.config, "inspect", "daytona");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "UNKNOWN"));
  assert_true(h_contains(r.out, r.out_len,
                         "reason:         the backend declares it unverified: Daytona's own documentation "
                         "contradicts itself: docs/en/sandboxes says a dedicated kernel, docs/en/linux-sandboxes a "
                         "shared host kernel, docs/en/security-exhibit Sysbox, docs/en/v2/isolation Firecracker "
                         "microVMs\n"));
  h_result_free(&r);
  dtf_close(&f);
}

static void test_a_missing_key_exits_69_naming_the_variable(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "clinokey", NULL, NULL, NULL);
  h_result r;
  H_RUN(&r, NULL, "--config", f.config, "run", "--backend", "daytona://", "--", "true");
  H_ASSERT_STATUS(&r, 69);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1501]"));
  assert_true(h_contains(r.err, r.err_len, "DAYTONA_API_KEY is not set"));
  h_result_free(&r);
  dtf_close(&f);
}

static void test_reap_finds_and_removes_leftovers(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "clireap", NULL, NULL, NULL);
  /* As if a crashed process had left it: the labels a create puts on. */
  char *id = dtf_raw_sandbox(&f, "{\"sandboxio.managed\":\"true\",\"tenant_id\":\"t9\"}");
  h_opts o = {.env = key_env(&f)};
  h_result r;
  H_RUN(&r, &o, "--config", f.config, "reap", "--backend", "daytona");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, id));
  assert_true(h_contains(r.out, r.out_len, "tenant_id=t9"));
  h_result_free(&r);
  assert_int_equal(dtf_alive(&f), 1); /* a dry run by default */
  H_RUN(&r, &o, "--config", f.config, "reap", "--backend", "daytona", "--kill");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "killed"));
  h_result_free(&r);
  free(id);
  dtf_close(&f); /* none alive */
}

/* Daytona answers 401, 400 or 500 with a message that quotes the API key:
 * the key appears nowhere, neither in stderr (the error, its hint, the log
 * lines of -vv) nor in the audit log. The backend declares DAYTONA_API_KEY
 * and the api_key_env setting in its note; the library learns the value
 * from there and redacts it, whatever the backend itself does. */
static void check_echoed_key_is_hidden(const char *name, const char *settings_yaml, const char *var) {
  static const int statuses[] = {401, 400, 500};
  for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
    dtf f;
    char top[512], entry[200], faults[512];
    snprintf(top, sizeof top, "audit:\n  path: /tmp/sbio-dt-echo-%d-%zu-%s.log\n", (int)getpid(), i, name);
    dtf_prepare(&f, name, NULL, settings_yaml, top);
    char *audit_path = strdup(top + strlen("audit:\n  path: "));
    audit_path[strcspn(audit_path, "\n")] = '\0';
    snprintf(faults, sizeof faults,
             "{\"faults\":[{\"match\":\"POST /sandbox\",\"status\":%d,\"times\":-1,"
             "\"message\":\"API key %s is not valid for this organization\"}]}",
             statuses[i], f.key);
    dtf_org(&f, faults);
    snprintf(entry, sizeof entry, "%s=%s", var, f.key);
    const char *env[] = {entry, NULL};
    h_opts o = {.env = env};
    h_result r;
    H_RUN(&r, &o, "-vv", "--config", f.config, "run", "--backend", "daytona://", "--", "echo", "hi");
    if (r.status == 0) fail_msg("status %d: the run succeeded", statuses[i]);
    if (h_contains(r.err, r.err_len, f.key)) fail_msg("status %d: the key is in stderr:\n%s", statuses[i], r.err);
    assert_true(h_contains(r.err, r.err_len, "***")); /* the message was there, redacted */
    char *audit = h_read(audit_path);
    assert_non_null(strstr(audit, "\"event\":\"create_failed\""));
    if (strstr(audit, f.key)) fail_msg("status %d: the key is in the audit log:\n%s", statuses[i], audit);
    free(audit);
    h_result_free(&r);
    unlink(audit_path);
    free(audit_path);
    dtf_close(&f);
  }
}

static void test_a_key_the_provider_echoes_is_never_shown(void **state) {
  (void)state;
  check_echoed_key_is_hidden("cliecho", NULL, "DAYTONA_API_KEY");
}

/* The same key in another variable, named by the api_key_env setting. */
static void test_a_key_named_by_api_key_env_is_never_shown(void **state) {
  (void)state;
  check_echoed_key_is_hidden("cliechoenv", "      api_key_env: SBIO_TEST_DT_OTHER_KEY\n", "SBIO_TEST_DT_OTHER_KEY");
}

/* A key pasted where its variable's name belongs: Daytona's keys (dtn_...)
 * are valid variable names, so nothing but the environment can tell them
 * apart. Unset as a variable, the text is never repeated: not by the
 * error and its hint, the -vv log lines, the audit log, nor by doctor's
 * listing of credential variables (text and --json). The error names the
 * setting instead. */
static void test_a_key_pasted_into_api_key_env_is_never_shown(void **state) {
  (void)state;
  static const char *const pasted = "dtn_5ecretPastedIntoApiKeyEnv0a1b2c3d4e5f6";
  dtf f;
  char settings[200], top[256];
  snprintf(settings, sizeof settings, "      api_key_env: %s\n", pasted);
  snprintf(top, sizeof top, "audit:\n  path: /tmp/sbio-dt-pasted-%d.log\n", (int)getpid());
  dtf_prepare(&f, "clipasted", NULL, settings, top);
  char *audit_path = strdup(top + strlen("audit:\n  path: "));
  audit_path[strcspn(audit_path, "\n")] = '\0';
  h_result r;
  H_RUN(&r, NULL, "-vv", "--config", f.config, "run", "--backend", "daytona://", "--", "true");
  H_ASSERT_STATUS(&r, 69);
  if (h_contains(r.err, r.err_len, pasted)) fail_msg("the pasted key is in stderr:\n%s", r.err);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1501]"));
  assert_true(h_contains(r.err, r.err_len, "the environment variable that settings.api_key_env names is not set"));
  h_result_free(&r);
  char *audit = h_read(audit_path);
  if (strstr(audit, pasted)) fail_msg("the pasted key is in the audit log:\n%s", audit);
  free(audit);
  static const char *const doctor_args[][2] = {{"doctor", NULL}, {"doctor", "--json"}};
  for (size_t i = 0; i < 2; i++) {
    H_RUN(&r, NULL, "--config", f.config, doctor_args[i][0], doctor_args[i][1]);
    if (h_contains(r.out, r.out_len, pasted)) fail_msg("the pasted key is in doctor's output:\n%s", r.out);
    if (h_contains(r.err, r.err_len, pasted)) fail_msg("the pasted key is in doctor's stderr:\n%s", r.err);
    assert_true(h_contains(r.out, r.out_len, "DAYTONA_API_KEY")); /* the listing is there */
    h_result_free(&r);
  }
  unlink(audit_path);
  free(audit_path);
  dtf_close(&f);
}

/* A key that cannot be sent as a header (a line break copied with it, a
 * control character, a byte that is not ASCII) is a credential error
 * (SBX_E1501, exit 69) that names the variable and says why, before
 * anything is created or sent: the emulator hears nothing, not even a
 * request it would refuse. The value is nowhere in stderr (with -vv) or
 * the audit log. `var` is where the key is: DAYTONA_API_KEY, or the
 * variable settings.api_key_env names. */
static void check_unusable_key(const char *name, const char *var, const char *settings, const char *tail,
                               const char *why) {
  dtf f;
  char top[256];
  snprintf(top, sizeof top, "audit:\n  path: /tmp/sbio-dt-%s-%d.log\n", name, (int)getpid());
  dtf_prepare(&f, name, NULL, settings, top);
  char *audit_path = strdup(top + strlen("audit:\n  path: "));
  audit_path[strcspn(audit_path, "\n")] = '\0';
  char entry[300];
  snprintf(entry, sizeof entry, "%s=%s%s", var, f.key, tail);
  const char *env[] = {entry, NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", f.config, "run", "--backend", "daytona://", "--", "true");
  H_ASSERT_STATUS(&r, 69);
  if (h_contains(r.err, r.err_len, f.key)) fail_msg("the key is in stderr:\n%s", r.err);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1501]"));
  char expect[200];
  snprintf(expect, sizeof expect, "the value of %s cannot be sent in a request header as a credential: %s", var, why);
  if (!h_contains(r.err, r.err_len, expect)) fail_msg("expected '%s' in:\n%s", expect, r.err);
  h_result_free(&r);
  char *audit = h_read(audit_path);
  if (strstr(audit, f.key)) fail_msg("the key is in the audit log:\n%s", audit);
  free(audit);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetArraySize(reqs), 0);
  cJSON_Delete(reqs);
  assert_int_equal(dtf_rejected(&f), 0);
  unlink(audit_path);
  free(audit_path);
  dtf_close(&f);
}

static void test_a_key_that_is_not_a_header_value_is_refused_before_any_request(void **state) {
  (void)state;
  const char *control = "it contains a control character";
  check_unusable_key("clinl", "DAYTONA_API_KEY", NULL, "\ndef", control);
  check_unusable_key("clicr", "DAYTONA_API_KEY", NULL, "\r", control);
  check_unusable_key("clisoh", "DAYTONA_API_KEY", NULL, "\x01", control);
  check_unusable_key("clinonascii", "DAYTONA_API_KEY", NULL, "\xc3\xa9", "it contains a byte that is not ASCII");
  check_unusable_key("clinlenv", "SBIO_TEST_DT_OTHER_KEY", "      api_key_env: SBIO_TEST_DT_OTHER_KEY\n", "\n",
                     control);
}

/* Daytona's message is quoted up to 299 bytes: a key the cut falls inside
 * is redacted whole, not cut first (which left its first bytes shown). */
static void test_a_key_where_the_message_is_cut_is_still_redacted(void **state) {
  (void)state;
  dtf f;
  dtf_prepare(&f, "clicut", NULL, NULL, NULL);
  char pad[290], prefix[9], faults[1024];
  memset(pad, 'x', 284);
  pad[284] = '\0';
  memcpy(prefix, f.key, sizeof prefix - 1);
  prefix[sizeof prefix - 1] = '\0';
  snprintf(
      faults, sizeof faults,
      "{\"faults\":[{\"match\":\"POST /sandbox\",\"status\":401,\"times\":-1,\"message\":\"%s %s is not valid\"}]}",
      pad, f.key);
  dtf_org(&f, faults);
  h_opts o = {.env = key_env(&f)};
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", f.config, "run", "--backend", "daytona://", "--", "true");
  assert_int_not_equal(r.status, 0);
  assert_true(h_contains(r.err, r.err_len, "xxxxxxxx ***"));
  if (h_contains(r.err, r.err_len, prefix)) fail_msg("the key's first bytes are in stderr:\n%s", r.err);
  h_result_free(&r);
  dtf_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_requirement_exits_78_and_nothing_is_created),
      cmocka_unit_test(test_stdin_is_refused_before_anything_is_created),
      cmocka_unit_test(test_a_timeout_above_the_maximum_never_reaches_daytona),
      cmocka_unit_test(test_without_a_requirement_it_warns_once_and_runs),
      cmocka_unit_test(test_inspect_explains_the_unknown_tier),
      cmocka_unit_test(test_a_missing_key_exits_69_naming_the_variable),
      cmocka_unit_test(test_reap_finds_and_removes_leftovers),
      cmocka_unit_test(test_a_key_the_provider_echoes_is_never_shown),
      cmocka_unit_test(test_a_key_named_by_api_key_env_is_never_shown),
      cmocka_unit_test(test_a_key_pasted_into_api_key_env_is_never_shown),
      cmocka_unit_test(test_a_key_that_is_not_a_header_value_is_refused_before_any_request),
      cmocka_unit_test(test_a_key_where_the_message_is_cut_is_still_redacted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
