/* SPDX-License-Identifier: MIT */
/* The error catalogue and the error object. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "utf8.h"

static void test_catalogue_names_and_classes(void **state) {
  (void)state;
  static const struct {
    sbio_code code;
    const char *name, *cls;
  } expected[] = {
      {SBIO_E_CONFIG, "SBX_E1000", "ConfigurationError"},
      {SBIO_E_BACKEND_NOT_FOUND, "SBX_E1001", "BackendNotFound"},
      {SBIO_E_BACKEND_UNAVAILABLE, "SBX_E1002", "BackendUnavailable"},
      {SBIO_E_CAPABILITY, "SBX_E1101", "CapabilityNotSupported"},
      {SBIO_E_CREATE, "SBX_E1201", "CreationError"},
      {SBIO_E_CONNECT, "SBX_E1202", "ConnectError"},
      {SBIO_E_CREATE_TIMEOUT, "SBX_E1203", "CreateTimeout"},
      {SBIO_E_GONE, "SBX_E1204", "SandboxGone"},
      {SBIO_E_EXEC, "SBX_E1301", "ExecutionError"},
      {SBIO_E_EXEC_TIMEOUT, "SBX_E1302", "ExecutionTimeout"},
      {SBIO_E_NETWORK_POLICY, "SBX_E1401", "NetworkPolicyViolation"},
      {SBIO_E_RESOURCE_LIMIT, "SBX_E1402", "ResourceLimitExceeded"},
      {SBIO_E_AUTH, "SBX_E1501", "AuthError"},
      {SBIO_E_RATE_LIMIT, "SBX_E1502", "RateLimitError"},
      {SBIO_E_AUDIT_SINK, "SBX_E1601", "AuditSinkError"},
      {SBIO_E_FS, "SBX_E1700", "FileSystemError"},
      {SBIO_E_PATH_NOT_FOUND, "SBX_E1701", "PathNotFound"},
      {SBIO_E_INTERNAL, "SBX_E1900", "InternalError"},
      {SBIO_E_INVALID_ARGUMENT, "SBX_E1901", "InvalidArgument"},
      {SBIO_E_CANCELLED, "SBX_E1902", "Cancelled"},
  };
  for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
    assert_string_equal(sbio_code_name(expected[i].code), expected[i].name);
    assert_string_equal(sbio_code_class(expected[i].code), expected[i].cls);
  }
  assert_null(sbio_code_name((sbio_code)4242));
  assert_null(sbio_code_name(SBIO_OK));
}

static void test_set_and_default_hint(void **state) {
  (void)state;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_error_code(err), SBIO_OK);
  assert_string_equal(sbio_error_message(err), "");
  assert_int_equal(sbio__error_set(err, SBIO_E_CONNECT, NULL, "kill of %s refused", "x-1"), SBIO_E_CONNECT);
  assert_string_equal(sbio_error_message(err), "kill of x-1 refused");
  assert_non_null(strstr(sbio_error_hint(err), "reap"));
  sbio__error_prefix(err, "teardown");
  assert_string_equal(sbio_error_message(err), "teardown: kill of x-1 refused");
  sbio_error_clear(err);
  assert_int_equal(sbio_error_code(err), SBIO_OK);
  sbio_error_free(err);
  /* A NULL error object is allowed everywhere. */
  assert_int_equal(sbio__error_set(NULL, SBIO_E_FS, NULL, "x"), SBIO_E_FS);
  assert_int_equal(sbio_error_code(NULL), SBIO_OK);
}

static void test_backend_errors_are_sanitised(void **state) {
  (void)state;
  sbio_error *err = sbio_error_new();
  sbio_bk_error bk = {.size = sizeof bk};
  /* Unterminated buffers from plugin code must not be read past their end. */
  memset(bk.message, 'A', sizeof bk.message);
  memset(bk.hint, 'B', sizeof bk.hint);
  bk.code = SBIO_E_GONE;
  bk.provider_status = 404;
  assert_int_equal(sbio__error_from_backend(err, &bk, "acme"), SBIO_E_GONE);
  assert_int_equal(strlen(sbio_error_message(err)), sizeof bk.message);
  assert_int_equal(sbio_error_provider_status(err), 404);
  assert_string_equal(sbio_error_backend(err), "acme");

  sbio_bk_error odd = {.size = sizeof odd, .code = 77};
  snprintf(odd.message, sizeof odd.message, "weird");
  assert_int_equal(sbio__error_from_backend(err, &odd, "acme"), SBIO_E_INTERNAL);
  assert_non_null(strstr(sbio_error_message(err), "unknown error code 77"));

  sbio_bk_error zero = {.size = sizeof zero};
  assert_int_equal(sbio__error_from_backend(err, &zero, "acme"), SBIO_E_INTERNAL);
  sbio_error_free(err);
}

/* Whether all of s is well-formed UTF-8. */
static int valid_utf8(const char *s) {
  size_t n = strlen(s);
  for (size_t i = 0, len; i < n; i += len)
    if (!(len = sbio__utf8_char_len(s + i, n - i))) return 0;
  return 1;
}

/* A message longer than the error's buffer, in two-byte characters at
 * odd and even offsets: the cut lands between characters and says so. */
static void test_long_messages_are_cut_on_a_character(void **state) {
  (void)state;
  char text[5000];
  size_t o = 0;
  for (int i = 0; i < 2400; i++) o += (size_t)snprintf(text + o, sizeof text - o, "\xc3\xa9");
  sbio_error *err = sbio_error_new();
  for (const char *lead = ""; lead; lead = lead[0] ? NULL : "x") {
    sbio__error_set(err, SBIO_E_CONFIG, text, "%s%s", lead, text);
    const char *m = sbio_error_message(err);
    assert_true(strlen(m) <= 2047);
    assert_true(strlen(m) > 2000);
    assert_true(valid_utf8(m));
    assert_string_equal(m + strlen(m) - 3, "...");
    assert_true(valid_utf8(sbio_error_hint(err)));
    sbio__error_prefix(err, "%sctx", lead);
    assert_true(valid_utf8(sbio_error_message(err)));
  }
  /* Malformed bytes anywhere (a provider's message) become U+FFFD, also
   * where the replacement makes the text longer than its buffer. */
  char bad[2100];
  memset(bad, '\xff', sizeof bad - 1);
  bad[sizeof bad - 1] = '\0';
  sbio__error_set(err, SBIO_E_CREATE, "hint \xc3(", "quota \xff\xfe exceeded \xe2\x82");
  assert_string_equal(sbio_error_message(err), "quota \xef\xbf\xbd\xef\xbf\xbd exceeded \xef\xbf\xbd\xef\xbf\xbd");
  assert_string_equal(sbio_error_hint(err), "hint \xef\xbf\xbd(");
  sbio__error_set(err, SBIO_E_CREATE, NULL, "%s", bad);
  assert_true(valid_utf8(sbio_error_message(err)));
  assert_true(strlen(sbio_error_message(err)) <= 2047);
  sbio__error_set_sandbox_id(err, "id-\x80");
  assert_string_equal(sbio_error_sandbox_id(err), "id-\xef\xbf\xbd");
  /* A backend's buffer that ends inside a character. */
  sbio_bk_error bk = {.size = sizeof bk, .code = SBIO_E_CREATE};
  bk.message[0] = 'x';
  for (size_t i = 1; i + 2 < sizeof bk.message; i += 2) memcpy(bk.message + i, "\xc3\xa9", 2);
  bk.message[sizeof bk.message - 1] = '\xc3';
  sbio__error_from_backend(err, &bk, "acme");
  assert_true(valid_utf8(sbio_error_message(err)));
  sbio_error_free(err);
}

static void test_shown_names(void **state) {
  (void)state;
  char *valid = sbio__utf8_valid_copy("a\xff\xc3\xa9\xe2\x82");
  assert_non_null(valid);
  assert_string_equal(valid, "a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd");
  assert_true(sbio__utf8_valid(valid));
  assert_false(sbio__utf8_valid("a\xff"));
  free(valid);
  char buf[64];
  assert_string_equal(sbio__utf8_shown_name("a\033[31m\nb\xff\xc3.yaml", buf, sizeof buf),
                      "a\\x1b[31m\\x0ab\\xff\\xc3.yaml");
  /* Valid characters stay; C1 and bidirectional controls are spelled out. */
  assert_string_equal(sbio__utf8_shown_name("\xc3\xa9\xc2\x9b\xe2\x80\xae", buf, sizeof buf),
                      "\xc3\xa9\\u{009b}\\u{202e}");
  /* Too long: the end is kept behind "...", on a character. */
  char name[300];
  size_t o = 0;
  for (int i = 0; i < 100; i++) o += (size_t)snprintf(name + o, sizeof name - o, "\xc3\xa9");
  snprintf(name + o, sizeof name - o, "/c.yaml");
  const char *shown = sbio__utf8_shown_name(name, buf, sizeof buf);
  assert_true(strlen(shown) < sizeof buf);
  assert_true(strncmp(shown, "...", 3) == 0);
  assert_string_equal(shown + strlen(shown) - 7, "/c.yaml");
  assert_true(valid_utf8(shown));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_catalogue_names_and_classes),
      cmocka_unit_test(test_set_and_default_hint),
      cmocka_unit_test(test_backend_errors_are_sanitised),
      cmocka_unit_test(test_long_messages_are_cut_on_a_character),
      cmocka_unit_test(test_shown_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
