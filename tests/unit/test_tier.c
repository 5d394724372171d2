/* SPDX-License-Identifier: MIT */
/* Tier names, ranks, parsing and the satisfies() matrix. */
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

/* Every tier reachable through sbio_tier_at has a name and a rank, ranks
 * strictly increase, and they stay spaced so a tier can be inserted. */
static void test_every_tier_has_name_and_spaced_rank(void **state) {
  (void)state;
  int previous = -1;
  for (size_t i = 0; i < SBIO_TIER_COUNT; i++) {
    sbio_tier t = sbio_tier_at(i);
    const char *name = sbio_tier_name(t);
    int rank = sbio_tier_rank(t);
    assert_non_null(name);
    assert_true(strlen(name) > 0);
    assert_true(rank >= 0);
    if (i == 0) {
      assert_int_equal(t, SBIO_TIER_UNKNOWN);
      assert_int_equal(rank, 0);
    } else {
      assert_true(rank > previous);
      assert_true(rank - previous >= 2); /* room for a tier in between */
      assert_int_equal(rank % 10, 0);
    }
    /* The name parses back to the same tier. */
    sbio_tier parsed;
    assert_int_equal(sbio_tier_parse(name, &parsed), 0);
    assert_int_equal(parsed, t);
    previous = rank;
  }
  assert_int_equal(sbio_tier_at(SBIO_TIER_COUNT - 1), SBIO_TIER_MICROVM);
}

static void test_names_and_ranks(void **state) {
  (void)state;
  assert_string_equal(sbio_tier_name(SBIO_TIER_UNKNOWN), "UNKNOWN");
  assert_string_equal(sbio_tier_name(SBIO_TIER_CONTAINER), "CONTAINER");
  assert_string_equal(sbio_tier_name(SBIO_TIER_GVISOR), "GVISOR");
  assert_string_equal(sbio_tier_name(SBIO_TIER_MICROVM), "MICROVM");
  assert_int_equal(sbio_tier_rank(SBIO_TIER_UNKNOWN), 0);
  assert_int_equal(sbio_tier_rank(SBIO_TIER_CONTAINER), 10);
  assert_int_equal(sbio_tier_rank(SBIO_TIER_GVISOR), 20);
  assert_int_equal(sbio_tier_rank(SBIO_TIER_MICROVM), 30);
}

static void test_not_a_tier(void **state) {
  (void)state;
  sbio_tier bogus[] = {(sbio_tier)5, (sbio_tier)15, (sbio_tier)40, (sbio_tier)-1, (sbio_tier)1000};
  for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
    assert_null(sbio_tier_name(bogus[i]));
    assert_int_equal(sbio_tier_rank(bogus[i]), -1);
    assert_false(sbio_tier_satisfies(bogus[i], SBIO_TIER_CONTAINER));
    assert_false(sbio_tier_satisfies(SBIO_TIER_MICROVM, bogus[i]));
  }
  /* Out of range answers the weakest tier, never a stronger one. */
  assert_int_equal(sbio_tier_at(SBIO_TIER_COUNT), SBIO_TIER_UNKNOWN);
  assert_int_equal(sbio_tier_at((size_t)-1), SBIO_TIER_UNKNOWN);
}

static void test_satisfies_matrix(void **state) {
  (void)state;
  for (size_t h = 0; h < SBIO_TIER_COUNT; h++) {
    for (size_t r = 0; r < SBIO_TIER_COUNT; r++) {
      sbio_tier have = sbio_tier_at(h), required = sbio_tier_at(r);
      int expected = have != SBIO_TIER_UNKNOWN && required != SBIO_TIER_UNKNOWN && h >= r;
      assert_int_equal(!!sbio_tier_satisfies(have, required), expected);
    }
  }
  /* Spelled out, the cases that matter most. */
  assert_false(sbio_tier_satisfies(SBIO_TIER_UNKNOWN, SBIO_TIER_CONTAINER));
  assert_false(sbio_tier_satisfies(SBIO_TIER_UNKNOWN, SBIO_TIER_UNKNOWN));
  assert_false(sbio_tier_satisfies(SBIO_TIER_MICROVM, SBIO_TIER_UNKNOWN));
  assert_false(sbio_tier_satisfies(SBIO_TIER_CONTAINER, SBIO_TIER_GVISOR));
  assert_false(sbio_tier_satisfies(SBIO_TIER_GVISOR, SBIO_TIER_MICROVM));
  assert_true(sbio_tier_satisfies(SBIO_TIER_CONTAINER, SBIO_TIER_CONTAINER));
  assert_true(sbio_tier_satisfies(SBIO_TIER_MICROVM, SBIO_TIER_CONTAINER));
  assert_true(sbio_tier_satisfies(SBIO_TIER_GVISOR, SBIO_TIER_GVISOR));
}

static void test_parse_case_insensitive(void **state) {
  (void)state;
  static const struct {
    const char *text;
    sbio_tier tier;
  } ok[] = {
      {"microvm", SBIO_TIER_MICROVM},     {"MICROVM", SBIO_TIER_MICROVM}, {"MicroVM", SBIO_TIER_MICROVM},
      {"gvisor", SBIO_TIER_GVISOR},       {"gVisor", SBIO_TIER_GVISOR},   {"container", SBIO_TIER_CONTAINER},
      {"Container", SBIO_TIER_CONTAINER}, {"unknown", SBIO_TIER_UNKNOWN}, {"UNKNOWN", SBIO_TIER_UNKNOWN},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    sbio_tier t = (sbio_tier)-1;
    assert_int_equal(sbio_tier_parse(ok[i].text, &t), 0);
    assert_int_equal(t, ok[i].tier);
  }
}

static void test_parse_junk(void **state) {
  (void)state;
  static const char *const junk[] = {
      "",         "vm", "micro vm", " microvm",   "microvm ", "microvm\n", "micro",
      "microvmx", "10", "30",       "CONTAINERS", "gvisor\t", "unknow",    "\xc4\xb1gvisor"};
  for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
    sbio_tier t = SBIO_TIER_MICROVM;
    assert_int_equal(sbio_tier_parse(junk[i], &t), -1);
    assert_int_equal(t, SBIO_TIER_MICROVM); /* untouched on failure */
  }
  assert_int_equal(sbio_tier_parse(NULL, NULL), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_tier_has_name_and_spaced_rank),
      cmocka_unit_test(test_names_and_ranks),
      cmocka_unit_test(test_not_a_tier),
      cmocka_unit_test(test_satisfies_matrix),
      cmocka_unit_test(test_parse_case_insensitive),
      cmocka_unit_test(test_parse_junk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
