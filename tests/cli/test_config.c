/* SPDX-License-Identifier: MIT */
/* sbio config check: "FILE: ok" and exit 0, or "FILE:LINE:COLUMN: message"
 * on stderr and exit 78. */
#include "harness.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_good_file_is_ok(void **state) {
  (void)state;
  char *cfg = h_write("good.yaml", "default_backend: fake://\nrequire_isolation: container\n"
                                   "backends:\n  fake:\n    enabled: true\n");
  char expected[4200];
  snprintf(expected, sizeof expected, "%s: ok\n", cfg);
  h_result r;
  H_RUN(&r, NULL, "config", "check", cfg);
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, expected);
  assert_string_equal(r.err, "");
  h_result_free(&r);
  /* Through the global option too. */
  H_RUN(&r, NULL, "--config", cfg, "config", "check");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, expected);
  h_result_free(&r);

  H_RUN(&r, NULL, "config", "check", "--json", cfg);
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "ok")));
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(doc, "files");
  assert_int_equal(cJSON_GetArraySize(files), 1);
  assert_string_equal(cJSON_GetArrayItem(files, 0)->valuestring, cfg);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "default_backend")->valuestring, "fake://");
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "isolation_floor")->valuestring, "CONTAINER");
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_typo_reports_file_line_column_and_exits_78(void **state) {
  (void)state;
  char *cfg = h_write("typo.yaml", "backends:\n  fake:\n    enabeld: true\n");
  h_result r;
  H_RUN(&r, NULL, "config", "check", cfg);
  H_ASSERT_STATUS(&r, 78);
  assert_string_equal(r.out, "");
  /* The first line is exactly FILE:LINE:COL: message, the typo's position. */
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s:3:5: ", cfg);
  if (strncmp(r.err, prefix, strlen(prefix)) != 0) fail_msg("stderr does not start with '%s':\n%s", prefix, r.err);
  assert_non_null(strstr(r.err, "enabeld"));
  h_result_free(&r);

  H_RUN(&r, NULL, "config", "check", cfg, "--json");
  H_ASSERT_STATUS(&r, 78);
  cJSON *doc = h_json(&r);
  const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "error");
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(e, "code")->valuestring, "SBX_E1000");
  assert_true(strncmp(cJSON_GetObjectItemCaseSensitive(e, "message")->valuestring, prefix, strlen(prefix)) == 0);
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_other_config_errors_exit_78(void **state) {
  (void)state;
  char *missing = h_path("does-not-exist.yaml");
  char *bad_yaml = h_write("bad-yaml.yaml", "backends: [\n");
  char *bad_type = h_write("bad-type.yaml", "require_isolation: 7\n");
  const char *files[] = {missing, bad_yaml, bad_type};
  for (size_t i = 0; i < 3; i++) {
    h_result r;
    H_RUN(&r, NULL, "config", "check", files[i]);
    H_ASSERT_STATUS(&r, 78);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, files[i]));
    h_result_free(&r);
  }
  free(missing);
  free(bad_yaml);
  free(bad_type);
}

/* A FIFO where a configuration file belongs (the FILE argument,
 * SBIO_CONFIG, the user file) is refused at once with a message naming it;
 * before, the open blocked forever waiting for a writer. The harness's own
 * deadline turns such a hang into a failure. */
static void test_fifo_config_is_refused(void **state) {
  (void)state;
  char *fifo = h_path("fifo.yaml");
  assert_int_equal(mkfifo(fifo, 0600), 0);
  char env_cfg[4200];
  snprintf(env_cfg, sizeof env_cfg, "SBIO_CONFIG=%s", fifo);
  const char *env[] = {env_cfg, NULL};
  const h_opts with_env = {.env = env};
  h_result r;
  /* a character device is read: /dev/null is the empty configuration */
  H_RUN(&r, NULL, "config", "check", "/dev/null");
  H_ASSERT_STATUS(&r, 0);
  h_result_free(&r);
  H_RUN(&r, NULL, "config", "check", fifo);
  H_ASSERT_STATUS(&r, 78);
  assert_non_null(strstr(r.err, fifo));
  assert_non_null(strstr(r.err, "not a regular file"));
  h_result_free(&r);
  H_RUN(&r, &with_env, "backends");
  H_ASSERT_STATUS(&r, 78);
  assert_non_null(strstr(r.err, fifo));
  assert_non_null(strstr(r.err, "not a regular file"));
  h_result_free(&r);
  /* the user file, $XDG_CONFIG_HOME/sandboxio/config.yaml */
  char *xdg = h_path("xdg"), *dir = h_path("xdg/sandboxio"), *user = h_path("xdg/sandboxio/config.yaml");
  mkdir(xdg, 0700);
  mkdir(dir, 0700);
  assert_int_equal(mkfifo(user, 0600), 0);
  H_RUN(&r, NULL, "config", "check");
  H_ASSERT_STATUS(&r, 78);
  assert_non_null(strstr(r.err, user));
  assert_non_null(strstr(r.err, "not a regular file"));
  h_result_free(&r);
  H_RUN(&r, NULL, "backends");
  H_ASSERT_STATUS(&r, 78);
  assert_non_null(strstr(r.err, "not a regular file"));
  h_result_free(&r);
  unlink(user);
  unlink(fifo);
  free(xdg);
  free(dir);
  free(user);
  free(fifo);
}

/* A default_backend URI carrying a credential (userinfo, a credential
 * parameter) is refused when the file is read, naming the line, and is in
 * no output: config check, doctor --json, run. */
static void test_default_backend_with_a_credential_is_refused_unshown(void **state) {
  (void)state;
  static const char *const files[] = {"default_backend: \"docker://u:S3CR3T-CANARY@img\"\n",
                                      "default_backend: \"e2b://base?api_key=S3CR3T-CANARY\"\n",
                                      "default_backend: \"e2b://base?S3CR3T-CANARY\"\n"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    char *cfg = h_write("cred-default.yaml", files[i]);
    h_result r;
    H_RUN(&r, NULL, "config", "check", cfg);
    H_ASSERT_STATUS(&r, 78);
    assert_true(h_contains(r.out, r.out_len, ":1:") || h_contains(r.err, r.err_len, ":1:"));
    if (h_contains(r.out, r.out_len, "S3CR3T") || h_contains(r.err, r.err_len, "S3CR3T"))
      fail_msg("config check shows it:\n%s%s", r.out, r.err);
    h_result_free(&r);
    H_RUN(&r, NULL, "--config", cfg, "doctor", "--json");
    if (h_contains(r.out, r.out_len, "S3CR3T") || h_contains(r.err, r.err_len, "S3CR3T"))
      fail_msg("doctor --json shows it:\n%s%s", r.out, r.err);
    h_result_free(&r);
    H_RUN(&r, NULL, "--config", cfg, "run", "--", "true");
    H_ASSERT_STATUS(&r, 78);
    if (h_contains(r.out, r.out_len, "S3CR3T") || h_contains(r.err, r.err_len, "S3CR3T"))
      fail_msg("run shows it:\n%s%s", r.out, r.err);
    h_result_free(&r);
    free(cfg);
  }
}

static void test_config_usage_errors(void **state) {
  (void)state;
  h_result r;
  H_RUN(&r, NULL, "config");
  H_ASSERT_STATUS(&r, 64);
  h_result_free(&r);
  H_RUN(&r, NULL, "config", "lint");
  H_ASSERT_STATUS(&r, 64);
  assert_non_null(strstr(r.err, "unknown subcommand 'lint'"));
  h_result_free(&r);
  H_RUN(&r, NULL, "config", "check", "a.yaml", "b.yaml");
  H_ASSERT_STATUS(&r, 64);
  h_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good_file_is_ok),
      cmocka_unit_test(test_typo_reports_file_line_column_and_exits_78),
      cmocka_unit_test(test_other_config_errors_exit_78),
      cmocka_unit_test(test_fifo_config_is_refused),
      cmocka_unit_test(test_default_backend_with_a_credential_is_refused_unshown),
      cmocka_unit_test(test_config_usage_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
