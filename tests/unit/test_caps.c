/* SPDX-License-Identifier: MIT */
/* Capability names: one per flag, round-trips, unknown names refused. */
/* cmocka needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include <sandboxio/types.h>
#include <string.h>

static void test_every_flag_named_and_round_trips(void **state) {
  (void)state;
  for (int bit = 0; bit < SBIO_CAP_COUNT; bit++) {
    sbio_caps flag = (sbio_caps)1 << bit;
    const char *name = sbio_capability_name(flag);
    assert_non_null(name);
    /* lower-case snake case only */
    for (const char *p = name; *p; p++) assert_true((*p >= 'a' && *p <= 'z') || *p == '_');
    sbio_caps parsed = 0;
    assert_int_equal(sbio_capability_parse(name, &parsed), 0);
    assert_true(parsed == flag);
    /* names are unique */
    for (int other = 0; other < bit; other++) {
      assert_string_not_equal(name, sbio_capability_name((sbio_caps)1 << other));
    }
  }
}

static void test_known_spellings(void **state) {
  (void)state;
  static const struct {
    sbio_caps flag;
    const char *name;
  } expected[] = {
      {SBIO_CAP_RUN_COMMAND, "run_command"},
      {SBIO_CAP_RUN_CODE, "run_code"},
      {SBIO_CAP_STATEFUL_CODE, "stateful_code"},
      {SBIO_CAP_STREAMING, "streaming"},
      {SBIO_CAP_FILESYSTEM, "filesystem"},
      {SBIO_CAP_UPLOAD_DOWNLOAD, "upload_download"},
      {SBIO_CAP_PTY, "pty"},
      {SBIO_CAP_PAUSE_RESUME, "pause_resume"},
      {SBIO_CAP_SNAPSHOT_FORK, "snapshot_fork"},
      {SBIO_CAP_GPU, "gpu"},
      {SBIO_CAP_LSP, "lsp"},
      {SBIO_CAP_GIT, "git"},
      {SBIO_CAP_NETWORK_POLICY, "network_policy"},
      {SBIO_CAP_TUNNELS, "tunnels"},
      {SBIO_CAP_COST_REPORTING, "cost_reporting"},
      {SBIO_CAP_STDIN, "stdin"},
      {SBIO_CAP_NETWORK_ALLOWLIST, "network_allowlist"},
      {SBIO_CAP_SEPARATE_STDERR, "separate_stderr"},
      {SBIO_CAP_MANAGED, "managed"},
      {SBIO_CAP_CONNECT, "connect"},
  };
  assert_int_equal(sizeof expected / sizeof expected[0], SBIO_CAP_COUNT);
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    assert_string_equal(sbio_capability_name(expected[i].flag), expected[i].name);
  }
}

static void test_not_a_single_flag(void **state) {
  (void)state;
  assert_null(sbio_capability_name(0));
  assert_null(sbio_capability_name(SBIO_CAP_RUN_COMMAND | SBIO_CAP_PTY)); /* two flags */
  assert_null(sbio_capability_name((sbio_caps)1 << SBIO_CAP_COUNT));
  assert_null(sbio_capability_name((sbio_caps)1 << 63));
}

static void test_unknown_names_refused(void **state) {
  (void)state;
  static const char *const bad[] = {"",     "telepathy", "RUN_COMMAND", "Run_Command", "run-command",
                                    " pty", "pty ",      "ptyx",        "gp"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    sbio_caps out = 42;
    assert_int_equal(sbio_capability_parse(bad[i], &out), -1);
    assert_true(out == 42);
  }
  assert_int_equal(sbio_capability_parse(NULL, NULL), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_flag_named_and_round_trips),
      cmocka_unit_test(test_known_spellings),
      cmocka_unit_test(test_not_a_single_flag),
      cmocka_unit_test(test_unknown_names_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
