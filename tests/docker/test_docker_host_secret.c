/* SPDX-License-Identifier: MIT */
/* A docker address with a password in it (a `host` setting or DOCKER_HOST
 * of the form tcp://u:SECRET@host:port) is refused naming where it came
 * from, and the password is in none of: `sbio run`'s stderr, the audit
 * log, `sbio doctor --json`. No engine is needed: nothing is contacted. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PASSWORD "pw-7f3e1c9a55"
#define ADDRESS "tcp://admin:" PASSWORD "@127.0.0.1:2375"

static void check(const char *yaml_settings, const char *env_entry, const char *source) {
  char *audit = h_path("hostsecret-audit.log");
  char yaml[4600];
  snprintf(yaml, sizeof yaml, "backends:\n  docker:\n    settings:\n      pull: never\n%saudit:\n  path: %s\n",
           yaml_settings, audit);
  char *cfg = h_write("hostsecret.yaml", yaml);
  const char *env[] = {env_entry, NULL};
  h_opts o = {.env = env_entry ? env : NULL};
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", cfg, "run", "--backend", "docker://busybox", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, source));
  if (h_contains(r.err, r.err_len, PASSWORD)) fail_msg("the password is in stderr:\n%s", r.err);
  h_result_free(&r);
  char *text = h_read(audit);
  if (strstr(text, PASSWORD)) fail_msg("the password is in the audit log:\n%s", text);
  free(text);
  H_RUN(&r, &o, "--config", cfg, "doctor", "--json");
  assert_true(h_contains(r.out, r.out_len, "\"name\":\"docker\""));
  if (h_contains(r.out, r.out_len, PASSWORD) || h_contains(r.err, r.err_len, PASSWORD))
    fail_msg("the password is in sbio doctor --json:\n%s", r.out);
  h_result_free(&r);
  free(cfg);
  free(audit);
}

static void test_a_password_in_the_host_setting_is_never_shown(void **state) {
  (void)state;
  check("      host: \"" ADDRESS "\"\n", NULL, "the host setting");
}

static void test_a_password_in_docker_host_is_never_shown(void **state) {
  (void)state;
  check("", "DOCKER_HOST=" ADDRESS, "DOCKER_HOST");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_a_password_in_the_host_setting_is_never_shown),
      cmocka_unit_test(test_a_password_in_docker_host_is_never_shown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
