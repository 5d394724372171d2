/* SPDX-License-Identifier: MIT */
/* The CLI's human tables, in process: columns line up by characters, so a
 * cell with non-ASCII text (a label a provider returned) does not push the
 * columns after it out of line, and what the table escapes stays escaped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output.h"

static char *printed(const cli_table *t) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  assert_non_null(out);
  cli_table_print(t, out);
  assert_int_equal(fclose(out), 0);
  return buf;
}

static void test_columns_count_characters_not_bytes(void **state) {
  (void)state;
  static const char *const headers[] = {"ID", "LABELS", "RESULT"};
  cli_table *t = cli_table_new(3, headers);
  assert_non_null(t);
  /* "zoë" is 4 bytes and 3 characters; "東京" 6 bytes, 2 characters. */
  static const char *const a[] = {"a1", "owner=zoë", "killed"};
  static const char *const b[] = {"b2", "site=東京", "killed"};
  static const char *const c[] = {"c3", "owner=bob", "killed"};
  assert_int_equal(cli_table_add(t, a, NULL), 0);
  assert_int_equal(cli_table_add(t, b, NULL), 0);
  assert_int_equal(cli_table_add(t, c, NULL), 0);
  assert_int_equal(cli_table_rows(t), 3);
  char *s = printed(t);
  assert_string_equal(s, "ID  LABELS     RESULT\n"
                         "a1  owner=zoë  killed\n"
                         "b2  site=東京    killed\n"
                         "c3  owner=bob  killed\n");
  free(s);
  cli_table_free(t);
}

static void test_control_characters_are_escaped_and_counted_as_shown(void **state) {
  (void)state;
  static const char *const headers[] = {"NAME", "NEXT"};
  cli_table *t = cli_table_new(2, headers);
  assert_non_null(t);
  static const char *const a[] = {"a\033[2Jb", "Q"};
  static const char *const b[] = {"plain", "W"};
  assert_int_equal(cli_table_add(t, a, NULL), 0);
  assert_int_equal(cli_table_add(t, b, NULL), 0);
  char *s = printed(t);
  /* No escape byte reaches the terminal, and the padding follows the text
   * as shown. */
  assert_null(strchr(s, '\033'));
  char *line = strstr(s, "\n") + 1;
  char *nl = strchr(line, '\n');
  char *next = strstr(line, "Q");
  assert_non_null(next);
  assert_true(next < nl);
  char *line2 = nl + 1;
  assert_int_equal(next - line, strstr(line2, "W") - line2);
  free(s);
  cli_table_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_columns_count_characters_not_bytes),
      cmocka_unit_test(test_control_characters_are_escaped_and_counted_as_shown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
