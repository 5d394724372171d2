/* SPDX-License-Identifier: MIT */
/* Where an installation reads its configuration: the rule of
 * core/src/install_layout.h, from the library's directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "install_layout.h"

#include <limits.h>
#include <string.h>

static const char *rule(const char *lib_dir, const char *libdir, const char *sysconfdir) {
  static char out[PATH_MAX];
  if (sbio__sysconfdir_for(lib_dir, libdir, sysconfdir, out, sizeof out) != 0) return NULL;
  return out;
}

static void test_system_prefix_reads_etc(void **state) {
  (void)state;
  assert_string_equal(rule("/usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu", "etc"), "/etc");
  assert_string_equal(rule("/usr/lib64", "lib64", "etc"), "/etc");
  assert_string_equal(rule("/lib", "lib", "etc"), "/etc");
}

static void test_other_prefixes_read_their_own_etc(void **state) {
  (void)state;
  assert_string_equal(rule("/usr/local/lib", "lib", "etc"), "/usr/local/etc");
  assert_string_equal(rule("/home/ann/.local/lib/", "lib", "etc"), "/home/ann/.local/etc");
  assert_string_equal(rule("/tmp/stage/usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu", "etc"), "/tmp/stage/usr/etc");
  assert_string_equal(rule("/opt/sandboxio/lib", "lib", "etc"), "/etc/opt/sandboxio");
}

static void test_an_absolute_sysconfdir_is_kept(void **state) {
  (void)state;
  assert_string_equal(rule("/usr/local/lib", "lib", "/etc"), "/etc");
  assert_string_equal(rule("/usr/local/lib", "lib", "/srv/conf"), "/srv/conf");
}

static void test_a_build_tree_is_its_own_prefix(void **state) {
  (void)state;
  /* Its library sits in BUILD/lib whatever the configured LIBDIR. */
  assert_string_equal(rule("/src/sandboxio/build/lib", "lib/x86_64-linux-gnu", "etc"), "/src/sandboxio/build/etc");
}

static void test_a_directory_under_no_prefix(void **state) {
  (void)state;
  assert_null(rule("/src/build/bin", "lib", "etc")); /* a program linked statically */
  assert_null(rule("/usr/xlib", "lib", "etc"));      /* components, not characters */
  assert_null(rule("/usr/lib64", "lib", "etc"));
  /* A LIBDIR that does not match still leaves a directory named lib, as
   * in a build tree: its parent is the prefix. */
  assert_string_equal(rule("/usr/lib", "lib/x86_64-linux-gnu", "etc"), "/etc");
  char tiny[4];
  assert_int_equal(sbio__sysconfdir_for("/usr/local/lib", "lib", "etc", tiny, sizeof tiny), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_system_prefix_reads_etc),        cmocka_unit_test(test_other_prefixes_read_their_own_etc),
      cmocka_unit_test(test_an_absolute_sysconfdir_is_kept), cmocka_unit_test(test_a_build_tree_is_its_own_prefix),
      cmocka_unit_test(test_a_directory_under_no_prefix),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
