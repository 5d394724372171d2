/* SPDX-License-Identifier: MIT */
/* The test-support library itself: lines from many threads, joined and
 * counted; files, scratch directories and their removal; a host whose
 * warnings are captured without the date-dependent freshness warning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sbio_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sbt_lines shared;

static void *add_many(void *arg) {
  char line[64];
  for (int i = 0; i < 500; i++) {
    snprintf(line, sizeof line, "thread %ld line %d", (long)(intptr_t)arg, i);
    sbt_lines_add(&shared, line);
  }
  return NULL;
}

static void test_lines_from_threads(void **state) {
  (void)state;
  pthread_t t[4];
  for (long i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, add_many, (void *)(intptr_t)i), 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  assert_int_equal(shared.n, 2000);
  assert_int_equal(sbt_lines_count(&shared, "thread 2 "), 500);
  assert_true(sbt_lines_contain(&shared, "thread 3 line 499"));
  assert_false(sbt_lines_contain(&shared, "thread 4"));
  sbt_lines_free(&shared);
  assert_int_equal(shared.n, 0);
  sbt_lines_add(&shared, "a");
  sbt_lines_add(&shared, "b c");
  char *all = sbt_lines_join(&shared);
  assert_string_equal(all, "a\nb c\n");
  free(all);
  sbt_lines_free(&shared);
  all = sbt_lines_join(&shared);
  assert_string_equal(all, "");
  free(all);
}

static void test_files_and_directories(void **state) {
  (void)state;
  char dir[256], path[512];
  sbt_tempdir(dir, sizeof dir, "support");
  assert_int_equal(strncmp(dir, "/tmp/sbio-support-", 18), 0);
  assert_int_equal(sbt_write_file(dir, "f.txt", "one\ntwo\none more\n", path, sizeof path), 0);
  assert_int_equal(sbt_file_count(path, "one"), 2);
  assert_int_equal(sbt_file_count(path, "three"), 0);
  char sub[300];
  snprintf(sub, sizeof sub, "%s/sub", dir);
  assert_int_equal(mkdir(sub, 0700), 0);
  assert_int_equal(sbt_write_file(sub, "g.txt", "x", NULL, 0), 0);
  assert_int_equal(sbt_write_file("/nonexistent-dir", "h.txt", "x", NULL, 0), -1);
  sbt_rmtree(dir);
  assert_int_equal(access(dir, F_OK), -1);
  assert_int_equal(sbt_file_count(path, "one"), 0); /* gone: no lines */
}

static void test_host_with_captured_warnings(void **state) {
  (void)state;
  char dir[256], config[512];
  sbt_tempdir(dir, sizeof dir, "support");
  /* An unwritable audit file under "warn": the first event warns. */
  assert_int_equal(sbt_write_file(dir, "config.yaml", "audit:\n  path: /nonexistent-dir/a.jsonl\n  on_failure: warn\n",
                                  config, sizeof config),
                   0);
  sbt_lines warnings = {0};
  sbio_host_options *o = sbio_host_options_new();
  assert_int_equal(sbio_host_options_set_config_file(o, config), SBIO_OK);
  sbt_capture_warnings(o, &warnings);
  sbio_host *h = NULL;
  assert_int_equal(sbio_host_open(o, &h, NULL), SBIO_OK);
  sbio_host_options_free(o);
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(h, "fake://", NULL, &sb, NULL), SBIO_OK);
  assert_int_equal(sbt_lines_count(&warnings, "audit sink failed"), 1);
  assert_false(sbt_lines_contain(&warnings, "days ago (re-verification window")); /* date-dependent: set aside */
  sbio_sandbox_close(sb, NULL);
  sbio_host_close(h);
  sbt_lines_free(&warnings);
  /* A config that cannot be read: the status, not a host. */
  sbio_host *none = NULL;
  assert_int_not_equal(sbt_host_open("/nonexistent-dir/config.yaml", NULL, NULL, &none, NULL), SBIO_OK);
  assert_null(none);
  sbt_rmtree(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lines_from_threads),
      cmocka_unit_test(test_files_and_directories),
      cmocka_unit_test(test_host_with_captured_warnings),
  };
  return cmocka_run_group_tests_name("support_library", tests, NULL, NULL);
}
