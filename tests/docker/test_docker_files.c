/* SPDX-License-Identifier: MIT */
/* Files on a real engine: binary, empty, 10 MiB, long paths, relative
 * paths under /work, list/mkdir/remove, missing paths, symlinks, the read
 * limit, and the sandbox seeing every write. Run under runc (archive
 * endpoints) and, when the engine has it, runsc (programs in the sandbox). */
#include "docker_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dx_env env;

typedef struct fx {
  dx_host h;
  sbio_sandbox *sb;
} fx;

static int open_runtime(void **state, const char *runtime) {
  fx *f = calloc(1, sizeof *f);
  if (!f || dx_open(&f->h, &env, runtime, NULL) != 0) return -1;
  f->sb = dx_create(&f->h, NULL);
  if (!f->sb) return -1;
  *state = f;
  return 0;
}
static int setup_runc(void **state) {
  return open_runtime(state, "runc");
}
static int setup_runsc(void **state) {
  return open_runtime(state, "runsc");
}

static int teardown(void **state) {
  fx *f = *state;
  sbio_sandbox_close(f->sb, NULL);
  dx_close(&f->h);
  free(f);
  return 0;
}

static void round_trip(sbio_sandbox *sb, const char *path, const unsigned char *data, size_t len) {
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_file_write(sb, path, data, len, err);
  if (rc) fprintf(stderr, "write %s: %s\n", path, sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  unsigned char *back = NULL;
  size_t blen = 0;
  rc = sbio_file_read(sb, path, 0, &back, &blen, err);
  if (rc) fprintf(stderr, "read %s: %s\n", path, sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  assert_int_equal(blen, len);
  if (len) assert_memory_equal(back, data, len);
  sbio_free(back);
  sbio_error_free(err);
}

/* Whether libarchive is mapped into this process. */
static int libarchive_mapped(void) {
  FILE *maps = fopen("/proc/self/maps", "r");
  assert_non_null(maps);
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, maps)) found = strstr(line, "/libarchive") != NULL;
  fclose(maps);
  return found;
}

/* Create and exec do not load libarchive (every `sbio run` would map it
 * and its dependencies); the first file operation does. First in the
 * list, before any other test reads or writes a file. */
static void test_libarchive_loaded_by_the_first_file_operation(void **state) {
  fx *f = *state;
  char *out = NULL;
  int code = -1;
  assert_int_equal(dx_sh(f->sb, "echo ok", 30, &code, &out, NULL), SBIO_OK);
  assert_string_equal(out, "ok\n");
  free(out);
  assert_false(libarchive_mapped());
  round_trip(f->sb, "first.txt", (const unsigned char *)"first\n", 6);
  assert_true(libarchive_mapped());
}

static void test_round_trips(void **state) {
  fx *f = *state;
  unsigned char all[512];
  for (size_t i = 0; i < sizeof all; i++) all[i] = (unsigned char)i;
  round_trip(f->sb, "binary.bin", all, sizeof all);
  round_trip(f->sb, "empty.txt", (const unsigned char *)"", 0);
  size_t big = 10u << 20;
  unsigned char *data = malloc(big);
  uint32_t x = 12345;
  for (size_t i = 0; i < big; i++) {
    x = x * 1103515245u + 12345u;
    data[i] = (unsigned char)(x >> 16);
  }
  round_trip(f->sb, "/tmp/ten-mib.bin", data, big);
  /* Overwrite with something shorter. */
  round_trip(f->sb, "/tmp/ten-mib.bin", data, 1000);
  free(data);
  /* The file is where exec sees it. */
  char *out = NULL;
  int code = -1;
  round_trip(f->sb, "rel.txt", (const unsigned char *)"relative\n", 9);
  assert_int_equal(dx_sh(f->sb, "cat /work/rel.txt; wc -c < /tmp/ten-mib.bin", 30, &code, &out, NULL), SBIO_OK);
  assert_string_equal(out, "relative\n1000\n");
  free(out);
}

static void test_long_path(void **state) {
  fx *f = *state;
  char dir[1024] = "deep";
  for (int i = 0; i < 5; i++) {
    size_t n = strlen(dir);
    dir[n++] = '/';
    memset(dir + n, 'a' + i, 120);
    dir[n + 120] = '\0';
  }
  assert_int_equal(sbio_file_mkdir(f->sb, dir, 1, NULL), SBIO_OK);
  char path[1400];
  snprintf(path, sizeof path, "%s/%0200d.txt", dir, 7);
  assert_true(strlen(path) > 700);
  round_trip(f->sb, path, (const unsigned char *)"long\n", 5);
  char script[1600], *out = NULL;
  int code;
  snprintf(script, sizeof script, "cat '/work/%s'", path);
  assert_int_equal(dx_sh(f->sb, script, 30, &code, &out, NULL), SBIO_OK);
  assert_string_equal(out, "long\n");
  free(out);
}

static void test_missing_paths(void **state) {
  fx *f = *state;
  sbio_error *err = sbio_error_new();
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(f->sb, "nope.txt", 0, &data, &len, err), SBIO_E_PATH_NOT_FOUND);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1701");
  assert_non_null(strstr(sbio_error_message(err), "/work/nope.txt"));
  assert_int_equal(sbio_file_write(f->sb, "no/such/dir/x.txt", "x", 1, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_remove(f->sb, "nope", err), SBIO_E_PATH_NOT_FOUND);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(f->sb, "nope", &l, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_mkdir(f->sb, "a/b/c", 0, err), SBIO_E_PATH_NOT_FOUND);
  /* A directory is not a file. */
  assert_int_equal(sbio_file_read(f->sb, "/tmp", 0, &data, &len, err), SBIO_E_FS);
  sbio_error_free(err);
}

static int find(const sbio_file_list *l, const char *name) {
  for (size_t i = 0; i < sbio_file_list_count(l); i++)
    if (!strcmp(sbio_file_list_name(l, i), name)) return (int)i;
  return -1;
}

static void test_list_mkdir_remove(void **state) {
  fx *f = *state;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_mkdir(f->sb, "proj/src", 1, err), SBIO_OK);
  assert_int_equal(sbio_file_mkdir(f->sb, "proj/src", 1, err), SBIO_OK); /* parents: exists is fine */
  assert_int_equal(sbio_file_mkdir(f->sb, "proj/src", 0, err), SBIO_E_FS);
  assert_int_equal(sbio_file_mkdir(f->sb, "proj/lib", 0, err), SBIO_OK);
  assert_int_equal(sbio_file_write(f->sb, "proj/main.py", "print(1)\n", 9, err), SBIO_OK);
  assert_int_equal(sbio_file_write(f->sb, "proj/with space.txt", "", 0, err), SBIO_OK);
  assert_int_equal(sbio_file_write(f->sb, "proj/.hidden", "h", 1, err), SBIO_OK);
  sbio_file_list *l = NULL;
  sbio_code rc = sbio_file_list_dir(f->sb, "proj", &l, err);
  if (rc) fprintf(stderr, "list: %s\n", sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 5);
  int i = find(l, "main.py");
  assert_true(i >= 0);
  assert_int_equal(sbio_file_list_size(l, (size_t)i), 9);
  assert_false(sbio_file_list_is_dir(l, (size_t)i));
  assert_string_equal(sbio_file_list_path(l, (size_t)i), "/work/proj/main.py");
  assert_true(sbio_file_list_is_dir(l, (size_t)find(l, "src")));
  assert_true(find(l, "with space.txt") >= 0);
  assert_true(find(l, ".hidden") >= 0);
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_list_dir(f->sb, "proj/main.py", &l, err), SBIO_E_FS); /* not a directory */
  assert_int_equal(sbio_file_remove(f->sb, "proj", err), SBIO_OK);
  unsigned char *data = NULL;
  size_t len;
  assert_int_equal(sbio_file_read(f->sb, "proj/main.py", 0, &data, &len, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_list_dir(f->sb, ".", &l, err), SBIO_OK);
  assert_int_equal(find(l, "proj"), -1);
  sbio_file_list_free(l);
  sbio_error_free(err);
}

static void test_read_follows_symlink(void **state) {
  fx *f = *state;
  int code;
  assert_int_equal(sbio_file_write(f->sb, "target.txt", "via link\n", 9, NULL), SBIO_OK);
  assert_int_equal(dx_sh(f->sb, "ln -s target.txt link.txt", 30, &code, NULL, NULL), SBIO_OK);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(f->sb, "link.txt", 0, &data, &len, NULL), SBIO_OK);
  assert_string_equal((char *)data, "via link\n");
  sbio_free(data);
}

/* The sandbox sees every write, also an overwrite of a file it has read
 * (under gVisor the archive endpoints would leave it a stale copy). */
static void test_sandbox_sees_overwrite(void **state) {
  fx *f = *state;
  char *out = NULL;
  int code;
  assert_int_equal(sbio_file_write(f->sb, "v.txt", "one\n", 4, NULL), SBIO_OK);
  assert_int_equal(dx_sh(f->sb, "cat v.txt", 30, &code, &out, NULL), SBIO_OK);
  assert_string_equal(out, "one\n");
  free(out);
  assert_int_equal(sbio_file_write(f->sb, "v.txt", "two-longer\n", 11, NULL), SBIO_OK);
  assert_int_equal(dx_sh(f->sb, "cat v.txt; echo inside > w.txt", 30, &code, &out, NULL), SBIO_OK);
  assert_string_equal(out, "two-longer\n");
  free(out);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(f->sb, "w.txt", 0, &data, &len, NULL), SBIO_OK);
  assert_string_equal((char *)data, "inside\n");
  sbio_free(data);
}

static void test_read_limit(void **state) {
  fx *f = *state;
  char buf[4096];
  memset(buf, 'x', sizeof buf);
  assert_int_equal(sbio_file_write(f->sb, "four-k.txt", buf, sizeof buf, NULL), SBIO_OK);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(f->sb, "four-k.txt", 100, &data, &len, NULL), SBIO_E_FS);
  assert_null(data);
}

int main(void) {
  int rc = dx_env_load(&env);
  if (rc) return rc;
  const struct CMUnitTest runc[] = {
      cmocka_unit_test_setup_teardown(test_libarchive_loaded_by_the_first_file_operation, setup_runc, teardown),
      cmocka_unit_test_setup_teardown(test_round_trips, setup_runc, teardown),
      cmocka_unit_test_setup_teardown(test_long_path, setup_runc, teardown),
      cmocka_unit_test_setup_teardown(test_missing_paths, setup_runc, teardown),
      cmocka_unit_test_setup_teardown(test_list_mkdir_remove, setup_runc, teardown),
      cmocka_unit_test_setup_teardown(test_read_follows_symlink, setup_runc, teardown),
      cmocka_unit_test_setup_teardown(test_read_limit, setup_runc, teardown),
      cmocka_unit_test_setup_teardown(test_sandbox_sees_overwrite, setup_runc, teardown),
  };
  const struct CMUnitTest runsc[] = {
      cmocka_unit_test_setup_teardown(test_round_trips, setup_runsc, teardown),
      cmocka_unit_test_setup_teardown(test_long_path, setup_runsc, teardown),
      cmocka_unit_test_setup_teardown(test_missing_paths, setup_runsc, teardown),
      cmocka_unit_test_setup_teardown(test_list_mkdir_remove, setup_runsc, teardown),
      cmocka_unit_test_setup_teardown(test_read_follows_symlink, setup_runsc, teardown),
      cmocka_unit_test_setup_teardown(test_read_limit, setup_runsc, teardown),
      cmocka_unit_test_setup_teardown(test_sandbox_sees_overwrite, setup_runsc, teardown),
  };
  rc = cmocka_run_group_tests_name("docker_files_runc", runc, NULL, NULL);
  if (env.runsc)
    rc |= cmocka_run_group_tests_name("docker_files_runsc", runsc, NULL, NULL);
  else
    fprintf(stderr, "SKIP: runsc is not registered with the engine: gVisor file tests not run\n");
  return rc;
}
