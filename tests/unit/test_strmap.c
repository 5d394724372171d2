/* SPDX-License-Identifier: MIT */
/* The string map the registry scan looks names and paths up in: every key
 * put is found with its value, keys never put are not, a put of an
 * existing key replaces its value, and growing keeps everything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "strmap.h"

#include <stdio.h>

#define N 5000

static char keys[N][16];

static void test_put_get_grow_replace(void **state) {
  (void)state;
  sbio__strmap m = {0};
  assert_null(sbio__strmap_get(&m, "anything")); /* empty map */
  for (int i = 0; i < N; i++) {
    snprintf(keys[i], sizeof keys[i], "bk%04d", i);
    assert_int_equal(sbio__strmap_put(&m, keys[i], &keys[i]), 0);
  }
  assert_int_equal(m.n, N);
  for (int i = 0; i < N; i++) assert_ptr_equal(sbio__strmap_get(&m, keys[i]), &keys[i]);
  assert_null(sbio__strmap_get(&m, "bk5000"));
  assert_null(sbio__strmap_get(&m, ""));
  assert_null(sbio__strmap_get(&m, "bk000")); /* a prefix is another key */
  /* Equal text, another pointer: the same key. */
  char copy[16];
  snprintf(copy, sizeof copy, "%s", keys[42]);
  assert_int_equal(sbio__strmap_put(&m, copy, &keys[7]), 0);
  assert_int_equal(m.n, N);
  assert_ptr_equal(sbio__strmap_get(&m, keys[42]), &keys[7]);
  sbio__strmap_free(&m);
  assert_null(sbio__strmap_get(&m, keys[1]));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_put_get_grow_replace)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
