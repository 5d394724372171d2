/* SPDX-License-Identifier: MIT */
/* A kill is never reported as success when nothing was killed (issue 10,
 * finding 2). The loader refuses a table that offers create or connect
 * without kill (ops_contract.c, tested by the loader battery); this is the
 * second line, should such a sandbox object exist anyway: built here by
 * hand around a table the loader never saw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "host_internal.h"

#include <stdlib.h>
#include <string.h>

static int released;
static void release_only(void *sandbox) {
  (void)sandbox;
  released++;
}
static const sbio_backend_ops no_kill = {
    .size = sizeof(sbio_backend_ops), .abi_major = SBIO_BACKEND_ABI_MAJOR, .name = "nokill", .release = release_only};

static char last_event[4096];
static int on_audit(const char *line, void *user) {
  (void)user;
  snprintf(last_event, sizeof last_event, "%s", line);
  return 0;
}

static void test_kill_without_a_kill_operation_fails(void **state) {
  (void)state;
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_no_config(o, 1);
  sbio_host_options_add_audit_callback(o, on_audit, NULL);
  sbio_host *host = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_host_open(o, &host, err), SBIO_OK);
  sbio_host_options_free(o);

  struct sbio_backend_info b;
  memset(&b, 0, sizeof b);
  b.name = "nokill";
  b.status = SBIO_BACKEND_LOADED;
  b.ops = &no_kill;
  sbio_bk_sandbox_info info = {.size = sizeof info, .id = "nk-1", .mechanism = "runc"};
  int handle = 0;
  struct sbio_sandbox *sb = sbio__sandbox_new(host, &b, &handle, &info, NULL);
  assert_non_null(sb);

  assert_int_equal(sbio_sandbox_kill(sb, err), SBIO_E_BACKEND_UNAVAILABLE);
  assert_string_equal(sbio_error_message(err), "backend nokill has no kill operation: sandbox nokill:nk-1 was not "
                                               "destroyed");
  assert_string_equal(sbio_error_sandbox_id(err), "nk-1");
  assert_non_null(strstr(last_event, "\"event\":\"kill\""));
  assert_non_null(strstr(last_event, "\"outcome\":\"error\""));
  assert_non_null(strstr(last_event, "\"error_code\":\"SBX_E1002\""));
  /* Asking again does not turn it into a success. */
  assert_int_equal(sbio_sandbox_kill(sb, err), SBIO_E_BACKEND_UNAVAILABLE);
  /* Closing reports the same and still frees the handle. */
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_E_BACKEND_UNAVAILABLE);
  assert_int_equal(released, 1);
  sbio_error_free(err);
  sbio_host_close(host);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kill_without_a_kill_operation_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
