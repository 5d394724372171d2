/* SPDX-License-Identifier: MIT */
/* Redaction: every known secret becomes "***", longest first, and nothing
 * else changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "redact.h"

static void test_replaces_every_occurrence(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  assert_int_equal(sbio__redactor_add(&r, "s3cr3t"), 0);
  char *out = sbio__redact(&r, "a s3cr3t and s3cr3ts3cr3t end");
  assert_string_equal(out, "a *** and ****** end");
  free(out);
  sbio__redactor_free(&r);
}

static void test_longest_secret_wins(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  sbio__redactor_add(&r, "abc");
  sbio__redactor_add(&r, "abcdef");
  sbio__redactor_add(&r, "");    /* ignored */
  sbio__redactor_add(&r, "abc"); /* duplicate */
  assert_int_equal(r.n, 2);
  char *out = sbio__redact(&r, "xabcdefx abc");
  assert_string_equal(out, "x***x ***");
  free(out);
  sbio__redactor_free(&r);
}

static void test_secret_that_looks_like_the_marker(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  sbio__redactor_add(&r, "*");
  char *out = sbio__redact(&r, "a*b");
  assert_string_equal(out, "a***b");
  free(out);
  sbio__redactor_free(&r);
}

static void test_credential_keys(void **state) {
  (void)state;
  assert_true(sbio__looks_like_credential_key("GITHUB_TOKEN"));
  assert_true(sbio__looks_like_credential_key("db_password"));
  assert_true(sbio__looks_like_credential_key("X-Api-Key"));
  assert_true(sbio__looks_like_credential_key("AUTHORIZATION"));
  assert_false(sbio__looks_like_credential_key("PATH"));
  assert_false(sbio__looks_like_credential_key("HOME"));
  assert_false(sbio__looks_like_credential_key(NULL));
}

static void test_error_redaction(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  sbio__redactor_add(&r, "hunter2");
  sbio_error *err = sbio_error_new();
  sbio__error_set(err, SBIO_E_AUTH, "token hunter2 rejected", "provider said hunter2 is wrong");
  sbio__error_redact(err, &r);
  assert_string_equal(sbio_error_message(err), "provider said *** is wrong");
  assert_string_equal(sbio_error_hint(err), "token *** rejected");
  sbio_error_free(err);
  sbio__redactor_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replaces_every_occurrence),
      cmocka_unit_test(test_longest_secret_wins),
      cmocka_unit_test(test_secret_that_looks_like_the_marker),
      cmocka_unit_test(test_credential_keys),
      cmocka_unit_test(test_error_redaction),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
