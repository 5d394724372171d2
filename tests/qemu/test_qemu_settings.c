/* SPDX-License-Identifier: MIT */
/* The qemu backend's settings (plugins/qemu/settings.c): defaults that are
 * never unset, accel only kvm or tcg, bounded caps, absolute paths, and
 * every unknown key refused with its name (a typo is never ignored). */
#include "settings.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static int parse(const char *json, qm_settings *s, sbio_bk_error *err) {
  memset(err, 0, sizeof *err);
  err->size = sizeof *err;
  return sbio__qm_settings_parse(json, s, err);
}

static void defaults(void **state) {
  (void)state;
  qm_settings s;
  sbio_bk_error err;
  assert_int_equal(parse("{}", &s, &err), SBIO_OK);
  assert_int_equal(s.accel, QM_ACCEL_KVM); /* TCG only when asked */
  assert_int_equal(s.memory_mb, 256);
  assert_int_equal(s.cpus, 1);
  assert_string_equal(s.qemu, "qemu-system-x86_64");
  assert_non_null(s.state_dir);
  assert_true(s.state_dir[0] == '/');
  assert_null(s.rootfs_dir);
  sbio__qm_settings_free(&s);
}

static void tcg_and_paths(void **state) {
  (void)state;
  qm_settings s;
  sbio_bk_error err;
  assert_int_equal(parse("{\"accel\":\"tcg\",\"guest_dir\":\"/g\",\"state_dir\":\"/s\",\"rootfs_dir\":\"/r\","
                         "\"memory_mb\":512,\"cpus\":2}",
                         &s, &err),
                   SBIO_OK);
  assert_int_equal(s.accel, QM_ACCEL_TCG);
  assert_string_equal(s.guest_dir, "/g");
  assert_string_equal(s.rootfs_dir, "/r");
  assert_int_equal(s.memory_mb, 512);
  assert_int_equal(s.cpus, 2);
  sbio__qm_settings_free(&s);
}

static void refused(const char *json, const char *needle) {
  qm_settings s;
  sbio_bk_error err;
  assert_int_equal(parse(json, &s, &err), SBIO_E_CONFIG);
  if (!strstr(err.message, needle)) fail_msg("'%s' -> '%s', expected it to name '%s'", json, err.message, needle);
  sbio__qm_settings_free(&s);
}

static void bad_values(void **state) {
  (void)state;
  refused("{\"accel\":\"hvf\"}", "accel");
  refused("{\"acel\":\"tcg\"}", "acel");
  refused("{\"memory_mb\":64}", "memory_mb");
  refused("{\"cpus\":0}", "cpus");
  refused("{\"guest_dir\":\"relative/dir\"}", "guest_dir");
  refused("{\"state_dir\":\"\"}", "state_dir");
  refused("{\"rootfs_dir\":\"r\"}", "rootfs_dir");
  refused("[]", "qemu");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaults),
      cmocka_unit_test(tcg_and_paths),
      cmocka_unit_test(bad_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
