/* SPDX-License-Identifier: MIT */
/* SDK errors: the status table, catalogue validation, construction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sandboxio/sdk.h>
#include <string.h>

typedef struct row {
  long status;
  int create, connect, exec, file;
} row;

static void status_table(void **state) {
  (void)state;
  static const row rows[] = {
      {200, SBIO_OK, SBIO_OK, SBIO_OK, SBIO_OK},
      {204, SBIO_OK, SBIO_OK, SBIO_OK, SBIO_OK},
      {304, SBIO_OK, SBIO_OK, SBIO_OK, SBIO_OK},
      {400, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {401, SBIO_E_AUTH, SBIO_E_AUTH, SBIO_E_AUTH, SBIO_E_AUTH},
      {403, SBIO_E_AUTH, SBIO_E_AUTH, SBIO_E_AUTH, SBIO_E_AUTH},
      {404, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_GONE, SBIO_E_PATH_NOT_FOUND},
      {408, SBIO_E_CREATE_TIMEOUT, SBIO_E_CONNECT, SBIO_E_EXEC_TIMEOUT, SBIO_E_FS},
      {409, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {410, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_GONE, SBIO_E_GONE},
      {422, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {429, SBIO_E_RATE_LIMIT, SBIO_E_RATE_LIMIT, SBIO_E_RATE_LIMIT, SBIO_E_RATE_LIMIT},
      {500, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {502, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {503, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {504, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {0, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
      {-1, SBIO_E_CREATE, SBIO_E_CONNECT, SBIO_E_EXEC, SBIO_E_FS},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    assert_int_equal(sbio_sdk_status_code(rows[i].status, SBIO_SDK_OP_CREATE), rows[i].create);
    assert_int_equal(sbio_sdk_status_code(rows[i].status, SBIO_SDK_OP_CONNECT), rows[i].connect);
    assert_int_equal(sbio_sdk_status_code(rows[i].status, SBIO_SDK_OP_EXEC), rows[i].exec);
    assert_int_equal(sbio_sdk_status_code(rows[i].status, SBIO_SDK_OP_FILE), rows[i].file);
  }
}

static void op_codes(void **state) {
  (void)state;
  assert_int_equal(sbio_sdk_op_code(SBIO_SDK_OP_CREATE), SBIO_E_CREATE);
  assert_int_equal(sbio_sdk_op_code(SBIO_SDK_OP_CONNECT), SBIO_E_CONNECT);
  assert_int_equal(sbio_sdk_op_code(SBIO_SDK_OP_EXEC), SBIO_E_EXEC);
  assert_int_equal(sbio_sdk_op_code(SBIO_SDK_OP_FILE), SBIO_E_FS);
  assert_int_equal(sbio_sdk_op_code((sbio_sdk_op)99), SBIO_E_INTERNAL);
  assert_int_equal(sbio_sdk_op_timeout_code(SBIO_SDK_OP_CREATE), SBIO_E_CREATE_TIMEOUT);
  assert_int_equal(sbio_sdk_op_timeout_code(SBIO_SDK_OP_EXEC), SBIO_E_EXEC_TIMEOUT);
  assert_int_equal(sbio_sdk_op_timeout_code(SBIO_SDK_OP_CONNECT), SBIO_E_CONNECT);
  assert_int_equal(sbio_sdk_op_timeout_code(SBIO_SDK_OP_FILE), SBIO_E_FS);
}

static void op_of_code(void **state) {
  (void)state;
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_CREATE), SBIO_SDK_OP_CREATE);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_CREATE_TIMEOUT), SBIO_SDK_OP_CREATE);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_EXEC), SBIO_SDK_OP_EXEC);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_EXEC_TIMEOUT), SBIO_SDK_OP_EXEC);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_FS), SBIO_SDK_OP_FILE);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_PATH_NOT_FOUND), SBIO_SDK_OP_FILE);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_CONNECT), SBIO_SDK_OP_CONNECT);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_GONE), SBIO_SDK_OP_CONNECT);
  assert_int_equal(sbio_sdk_op_of_code(SBIO_E_AUTH), SBIO_SDK_OP_CONNECT);
  assert_int_equal(sbio_sdk_op_of_code(0), SBIO_SDK_OP_CONNECT);
}

static void catalogue(void **state) {
  (void)state;
  static const int good[] = {1000, 1001, 1002, 1101, 1201, 1202, 1203, 1204, 1301, 1302,
                             1401, 1402, 1501, 1502, 1601, 1700, 1701, 1900, 1901, 1902};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) assert_true(sbio_sdk_code_valid(good[i]));
  static const int bad[] = {0, 1, -1, 999, 1003, 1100, 1200, 1999, 2000, 404};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_false(sbio_sdk_code_valid(bad[i]));
}

static void error_fills(void **state) {
  (void)state;
  sbio_bk_error err = {.size = sizeof err, .provider_status = 77};
  assert_int_equal(sbio_sdk_error(&err, SBIO_E_GONE, "make a new one", "acme: sandbox %s is gone", "sb-1"),
                   SBIO_E_GONE);
  assert_int_equal(err.code, SBIO_E_GONE);
  assert_int_equal(err.provider_status, 0);
  assert_string_equal(err.message, "acme: sandbox sb-1 is gone");
  assert_string_equal(err.hint, "make a new one");
  assert_int_equal(sbio_sdk_error(&err, SBIO_E_EXEC, NULL, "x"), SBIO_E_EXEC);
  assert_string_equal(err.hint, "");
  /* NULL err is allowed: the code still comes back. */
  assert_int_equal(sbio_sdk_error(NULL, SBIO_E_FS, NULL, "nothing"), SBIO_E_FS);
}

static void error_refuses_invented_codes(void **state) {
  (void)state;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_error(&err, 404, NULL, "acme: not found"), SBIO_E_INTERNAL);
  assert_int_equal(err.code, SBIO_E_INTERNAL);
  assert_non_null(strstr(err.message, "code 404"));
  assert_non_null(strstr(err.message, "acme: not found"));
  assert_int_equal(sbio_sdk_error(&err, 0, NULL, "zero"), SBIO_E_INTERNAL);
  assert_int_equal(sbio_sdk_error(NULL, 12345, NULL, "x"), SBIO_E_INTERNAL);
}

static void error_status(void **state) {
  (void)state;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_error_status(&err, 429, SBIO_SDK_OP_CREATE, NULL, "acme: create: HTTP %d", 429),
                   SBIO_E_RATE_LIMIT);
  assert_int_equal(err.code, SBIO_E_RATE_LIMIT);
  assert_int_equal(err.provider_status, 429);
  assert_string_equal(err.message, "acme: create: HTTP 429");
  assert_int_equal(sbio_sdk_error_status(&err, 404, SBIO_SDK_OP_FILE, "check the path", "no %s", "/x"),
                   SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(err.provider_status, 404);
  assert_string_equal(err.hint, "check the path");
  /* Called for a failure with a success status: still a failure. */
  assert_int_equal(sbio_sdk_error_status(&err, 200, SBIO_SDK_OP_EXEC, NULL, "odd"), SBIO_E_EXEC);
  assert_int_equal(err.code, SBIO_E_EXEC);
  /* A status that is not one is not recorded as one. */
  assert_int_equal(sbio_sdk_error_status(&err, 0, SBIO_SDK_OP_CONNECT, NULL, "no answer"), SBIO_E_CONNECT);
  assert_int_equal(err.provider_status, 0);
}

/* A provider answer the backend maps itself keeps its status. */
static void error_answer(void **state) {
  (void)state;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_error_answer(&err, SBIO_E_GONE, 502, "create a new one", "acme: %s is gone", "sb1"),
                   SBIO_E_GONE);
  assert_int_equal(err.code, SBIO_E_GONE);
  assert_int_equal(err.provider_status, 502);
  assert_string_equal(err.message, "acme: sb1 is gone");
  assert_string_equal(err.hint, "create a new one");
  assert_int_equal(sbio_sdk_error_answer(&err, 4242, 500, NULL, "x"), SBIO_E_INTERNAL); /* not in the catalogue */
  assert_int_equal(err.provider_status, 500);
  assert_int_equal(sbio_sdk_error_answer(&err, SBIO_E_FS, 99999, NULL, "x"), SBIO_E_FS);
  assert_int_equal(err.provider_status, 0); /* not an HTTP status */
  assert_int_equal(sbio_sdk_error_answer(NULL, SBIO_E_FS, 500, NULL, "x"), SBIO_E_FS);
}

static void long_message_is_cut_not_overflowed(void **state) {
  (void)state;
  char big[2000];
  memset(big, 'm', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  sbio_bk_error err = {.size = sizeof err};
  sbio_sdk_error(&err, SBIO_E_CREATE, big, "%s", big);
  assert_int_equal(strlen(err.message), sizeof err.message - 1);
  assert_int_equal(strlen(err.hint), sizeof err.hint - 1);
  sbio_sdk_error(&err, 7, NULL, "%s", big);
  assert_int_equal(err.code, SBIO_E_INTERNAL);
  assert_true(strlen(err.message) < sizeof err.message);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(status_table),
      cmocka_unit_test(op_codes),
      cmocka_unit_test(op_of_code),
      cmocka_unit_test(catalogue),
      cmocka_unit_test(error_fills),
      cmocka_unit_test(error_refuses_invented_codes),
      cmocka_unit_test(error_status),
      cmocka_unit_test(error_answer),
      cmocka_unit_test(long_message_is_cut_not_overflowed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
