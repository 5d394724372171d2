/* SPDX-License-Identifier: MIT */
/* Files through the daytona backend: binary round trips, relative paths
 * that mean the same place as exec's, and the missing-path and
 * wrong-kind cases mapped the way every sandboxio backend maps them. */
#include "dt_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sbio_sandbox *box(dtf *f, const char *name) {
  dtf_open(f, name, NULL, NULL, NULL);
  return dtf_create(f, NULL, NULL);
}

static void done(dtf *f, sbio_sandbox *sb) {
  assert_int_equal(sbio_sandbox_close(sb, NULL), SBIO_OK);
  dtf_close(f);
}

static void test_binary_round_trip(void **state) {
  (void)state;
  dtf f;
  sbio_sandbox *sb = box(&f, "binary");
  size_t n = 300000;
  unsigned char *data = malloc(n);
  assert_non_null(data);
  for (size_t i = 0; i < n; i++) data[i] = (unsigned char)(i * 7 + i / 256);
  assert_int_equal(sbio_file_write(sb, "/home/daytona/blob.bin", data, n, NULL), SBIO_OK);
  unsigned char *back = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(sb, "/home/daytona/blob.bin", 0, &back, &len, NULL), SBIO_OK);
  assert_int_equal(len, n);
  assert_memory_equal(back, data, n);
  sbio_free(back);
  /* An empty file is a file too. */
  assert_int_equal(sbio_file_write(sb, "empty", "", 0, NULL), SBIO_OK);
  assert_int_equal(sbio_file_read(sb, "empty", 0, &back, &len, NULL), SBIO_OK);
  assert_int_equal(len, 0);
  sbio_free(back);
  /* The read limit is the caller's. */
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_read(sb, "blob.bin", 1000, &back, &len, err), SBIO_E_FS);
  assert_non_null(strstr(sbio_error_message(err), "read limit"));
  sbio_error_free(err);
  free(data);
  cJSON *reqs = dtf_requests(&f);
  const cJSON *up = dtf_find(reqs, "toolbox", "POST", "/files/upload", 0);
  const cJSON *part = cJSON_GetArrayItem(cJSON_GetObjectItem(up, "parts"), 0);
  assert_string_equal(cJSON_GetObjectItem(part, "name")->valuestring, "file"); /* the multipart field */
  assert_int_equal(cJSON_GetObjectItem(part, "bytes")->valueint, (int)n);
  cJSON_Delete(reqs);
  done(&f, sb);
}

static void test_relative_paths_mean_the_same_place_as_exec(void **state) {
  (void)state;
  dtf f;
  sbio_sandbox *sb = box(&f, "relative");
  assert_int_equal(sbio_file_write(sb, "notes.txt", "from files\n", 11, NULL), SBIO_OK);
  sbio_exec_result *r = dtf_sh(sb, "cat notes.txt; echo from exec > back.txt");
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "from files\n");
  sbio_exec_result_free(r);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(sb, "./sub/../back.txt", 0, &data, &len, NULL), SBIO_OK);
  assert_string_equal((char *)data, "from exec\n");
  sbio_free(data);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, ".", &l, NULL), SBIO_OK);
  int seen = 0;
  for (size_t i = 0; i < sbio_file_list_count(l); i++) {
    if (strcmp(sbio_file_list_name(l, i), "notes.txt") == 0) {
      seen = 1;
      assert_string_equal(sbio_file_list_path(l, i), "/home/daytona/notes.txt");
      assert_int_equal(sbio_file_list_size(l, i), 11);
      assert_false(sbio_file_list_is_dir(l, i));
    }
  }
  assert_true(seen);
  sbio_file_list_free(l);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "toolbox", "GET", "/work-dir"), 1); /* asked once per sandbox */
  cJSON_Delete(reqs);
  done(&f, sb);
}

static void test_missing_paths_and_wrong_kinds(void **state) {
  (void)state;
  dtf f;
  sbio_sandbox *sb = box(&f, "missing");
  sbio_error *err = sbio_error_new();
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(sb, "nope.txt", 0, &data, &len, err), SBIO_E_PATH_NOT_FOUND);
  assert_non_null(strstr(sbio_error_message(err), "/home/daytona/nope.txt"));
  assert_int_equal(sbio_file_mkdir(sb, "adir", 0, NULL), SBIO_OK);
  assert_int_equal(sbio_file_read(sb, "adir", 0, &data, &len, err), SBIO_E_FS);
  /* A write into a directory that does not exist: nothing is uploaded. */
  assert_int_equal(sbio_file_write(sb, "no/such/dir/f.txt", "x", 1, err), SBIO_E_PATH_NOT_FOUND);
  assert_non_null(strstr(sbio_error_message(err), "/home/daytona/no/such/dir"));
  assert_int_equal(sbio_file_write(sb, "adir", "x", 1, err), SBIO_E_FS);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, "ghost", &l, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_write(sb, "plain.txt", "x", 1, NULL), SBIO_OK);
  assert_int_equal(sbio_file_list_dir(sb, "plain.txt", &l, err), SBIO_E_FS);
  assert_int_equal(sbio_file_remove(sb, "ghost", err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_remove(sb, "/", err), SBIO_E_FS);
  assert_int_equal(sbio_file_remove(sb, "/home/daytona", err), SBIO_E_FS);
  sbio_error_free(err);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "toolbox", "POST", "/files/upload"), 2); /* adir (refused), plain.txt */
  cJSON_Delete(reqs);
  done(&f, sb);
}

static void test_mkdir_list_and_remove(void **state) {
  (void)state;
  dtf f;
  sbio_sandbox *sb = box(&f, "dirs");
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_mkdir(sb, "a/b/c", 0, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_mkdir(sb, "a/b/c", 1, NULL), SBIO_OK);
  assert_int_equal(sbio_file_mkdir(sb, "a/b/c", 1, NULL), SBIO_OK); /* parents accepts an existing one */
  assert_int_equal(sbio_file_mkdir(sb, "a/b/c", 0, err), SBIO_E_FS);
  assert_non_null(strstr(sbio_error_message(err), "already exists"));
  assert_int_equal(sbio_file_mkdir(sb, "a/b/d", 0, NULL), SBIO_OK);
  assert_int_equal(sbio_file_write(sb, "a/b/file.txt", "12345", 5, NULL), SBIO_OK);

  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, "/home/daytona/a/b", &l, NULL), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 3);
  const char *names[] = {"c", "d", "file.txt"};
  for (size_t i = 0; i < 3; i++) {
    assert_string_equal(sbio_file_list_name(l, i), names[i]);
    char path[100];
    snprintf(path, sizeof path, "/home/daytona/a/b/%s", names[i]);
    assert_string_equal(sbio_file_list_path(l, i), path);
    assert_int_equal(sbio_file_list_is_dir(l, i), i < 2);
    assert_int_equal(sbio_file_list_size(l, i), i < 2 ? 0 : 5);
  }
  sbio_file_list_free(l);

  assert_int_equal(sbio_file_remove(sb, "a/b/file.txt", NULL), SBIO_OK);
  assert_int_equal(sbio_file_remove(sb, "a", NULL), SBIO_OK); /* a whole tree */
  sbio_exec_result *r = dtf_sh(sb, "test -e a && echo still || echo gone");
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "gone\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  done(&f, sb);
}

static void test_files_after_kill_are_gone(void **state) {
  (void)state;
  dtf f;
  sbio_sandbox *sb = box(&f, "filesgone");
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_write(sb, "x", "x", 1, err), SBIO_E_GONE);
  sbio_error_free(err);
  done(&f, sb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_binary_round_trip),
      cmocka_unit_test(test_relative_paths_mean_the_same_place_as_exec),
      cmocka_unit_test(test_missing_paths_and_wrong_kinds),
      cmocka_unit_test(test_mkdir_list_and_remove),
      cmocka_unit_test(test_files_after_kill_are_gone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
