/* SPDX-License-Identifier: MIT */
/* W3C traceparent parsing (core/src/traceparent.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "traceparent.h"

#include <string.h>

static void test_valid(void **state) {
  (void)state;
  sbio__trace_context c;
  const char *why = NULL;
  assert_int_equal(sbio__traceparent_parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &c, &why), 0);
  char hex[33];
  sbio__hex_encode(c.trace_id, sizeof c.trace_id, hex);
  assert_string_equal(hex, "4bf92f3577b34da6a3ce929d0e0e4736");
  sbio__hex_encode(c.span_id, sizeof c.span_id, hex);
  assert_string_equal(hex, "00f067aa0ba902b7");
  assert_int_equal(c.flags, 1);

  /* Not sampled; surrounding blanks; a later version with more fields. */
  assert_int_equal(sbio__traceparent_parse(" 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00\t", &c, &why), 0);
  assert_int_equal(c.flags, 0);
  assert_int_equal(sbio__traceparent_parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-extra", &c, &why),
                   0);
  assert_int_equal(c.flags, 9);
  assert_int_equal(sbio__traceparent_parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", &c, &why), 0);
}

static void expect_invalid(const char *text, const char *reason_part) {
  sbio__trace_context c;
  memset(&c, 0x5a, sizeof c);
  sbio__trace_context before = c;
  const char *why = NULL;
  if (sbio__traceparent_parse(text, &c, &why) == 0) fail_msg("accepted: %s", text ? text : "(null)");
  assert_non_null(why);
  if (!strstr(why, reason_part)) fail_msg("%s: reason \"%s\" lacks \"%s\"", text ? text : "(null)", why, reason_part);
  assert_memory_equal(&c, &before, sizeof c); /* untouched on error */
}

static void test_invalid(void **state) {
  (void)state;
  expect_invalid(NULL, "empty");
  expect_invalid("", "shorter");
  expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "shorter");
  expect_invalid("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "version");
  expect_invalid("0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "version");
  expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", "exactly 55");
  expect_invalid("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", "must start with '-'");
  expect_invalid("00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "separated");
  expect_invalid("00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "lower-case");
  expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e473z-00f067aa0ba902b7-01", "lower-case");
  expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x", "lower-case");
  expect_invalid("00-00000000000000000000000000000000-00f067aa0ba902b7-01", "trace id is all zeros");
  expect_invalid("00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "span id is all zeros");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_valid), cmocka_unit_test(test_invalid)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
