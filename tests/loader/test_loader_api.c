/* SPDX-License-Identifier: MIT */
/* The loader battery through the public API: what an application (or
 * `sbio inspect`) sees of refused, disabled, shadowed and loaded backends.
 * The registry-level details are in test_loader.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "loader_support.h"

#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct ctx {
  char tmp[PATH_MAX];
  char first[PATH_MAX];
  char second[PATH_MAX];
  char config[PATH_MAX];
  char marker[PATH_MAX];
  sbio_host *host;
  sbio_error *err;
} ctx;

static const char config_yaml[] = "backends:\n"
                                  "  loader_marker:\n"
                                  "    enabled: false\n"
                                  "  loader_unverified:\n"
                                  "    expect_tier: container\n";

static int setup(void **state) {
  ctx *c = calloc(1, sizeof *c);
  if (!c || loader_tmpdir(c->tmp) != 0) return -1;
  if (loader_mkdir(c->tmp, "first", 0755, c->first) != 0 || loader_mkdir(c->tmp, "second", 0755, c->second) != 0)
    return -1;
  loader_join(c->config, c->tmp, "config.yaml");
  loader_join(c->marker, c->tmp, "marker");
  if (loader_write_file(c->config, config_yaml, sizeof config_yaml - 1, 0644) != 0) return -1;
  setenv("SBIO_TEST_MARKER", c->marker, 1);
  static const char *const first[] = {"loader_good",   "loader_marker", "loader_unverified",
                                      "loader_nonote", "loader_opsabi", "loader_misnamed"};
  for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
    if (loader_copy_fixture(first[i], c->first, NULL, 0644) != 0) return -1;
  if (loader_copy_fixture("loader_good", c->second, NULL, 0644) != 0) return -1;
  if (loader_copy_fixture("loader_http", c->second, NULL, 0666) != 0) return -1;
  c->err = sbio_error_new();
  if (!c->err) return -1;

  sbio_host_options *opts = sbio_host_options_new();
  char path[2 * PATH_MAX + 2];
  snprintf(path, sizeof path, "%s:%s", c->first, c->second);
  if (!opts || sbio_host_options_set_backend_path(opts, path) != SBIO_OK ||
      sbio_host_options_set_config_file(opts, c->config) != SBIO_OK ||
      sbio_host_options_set_now(opts, LOADER_FIXED_NOW) != SBIO_OK) {
    sbio_host_options_free(opts);
    return -1;
  }
  sbio_code rc = sbio_host_open(opts, &c->host, c->err);
  sbio_host_options_free(opts);
  if (rc != SBIO_OK) {
    print_error("sbio_host_open: %s\n", sbio_error_message(c->err));
    return -1;
  }
  *state = c;
  return 0;
}

static int teardown(void **state) {
  ctx *c = *state;
  sbio_host_close(c->host);
  sbio_error_free(c->err);
  unsetenv("SBIO_TEST_MARKER");
  loader_rm_rf(c->tmp);
  free(c);
  return 0;
}

static const sbio_backend_info *find(ctx *c, const char *name) {
  const sbio_backend_info *b = sbio_host_backend_find(c->host, name);
  if (!b) fail_msg("backend %s not found", name);
  return b;
}

#define expect_status(b, status, reason) expect_status_at(__FILE__, __LINE__, b, status, reason)
static void expect_status_at(const char *file, int line, const sbio_backend_info *b, sbio_backend_status status,
                             const char *reason) {
  const char *have = sbio_backend_info_reason(b);
  int reason_ok = reason[0] ? strstr(have, reason) != NULL : have[0] == '\0';
  if (sbio_backend_info_status(b) != status || !reason_ok) {
    print_error("%s: status %s, reason \"%s\"; wanted %s and \"%s\"\n", sbio_backend_info_path(b),
                sbio_backend_status_name(sbio_backend_info_status(b)), have, sbio_backend_status_name(status), reason);
    _fail(file, line);
  }
}

/* Our directories come first in the search path, so these names resolve to
 * our copies whatever else is installed on the machine. */
static void test_listing(void **state) {
  ctx *c = *state;
  assert_true(sbio_host_search_dir_count(c->host) >= 2);
  assert_string_equal(sbio_host_search_dir_at(c->host, 0), c->first);
  assert_string_equal(sbio_host_search_dir_at(c->host, 1), c->second);

  const sbio_backend_info *good = find(c, "loader_good");
  expect_status(good, SBIO_BACKEND_AVAILABLE, "");
  char path[PATH_MAX];
  loader_join(path, c->first, "sbio-backend-loader_good.so");
  assert_string_equal(sbio_backend_info_path(good), path);
  assert_string_equal(sbio_backend_info_version(good), "1.0.0");
  assert_int_equal(sbio_backend_info_tier(good), SBIO_TIER_CONTAINER);
  assert_int_equal(strlen(sbio_backend_info_sha256(good)), 64);

  const sbio_backend_info *marker = find(c, "loader_marker");
  expect_status(marker, SBIO_BACKEND_DISABLED, "disabled by configuration");
  assert_false(sbio_backend_info_enabled(marker));
  assert_string_equal(sbio_backend_info_summary(marker), "loader battery fixture");

  const sbio_backend_info *unverified = find(c, "loader_unverified");
  expect_status(unverified, SBIO_BACKEND_REFUSED, "expected tier CONTAINER, backend provides UNKNOWN");
  assert_true(sbio_backend_info_has_expect_tier(unverified));
  assert_int_equal(sbio_backend_info_expect_tier(unverified), SBIO_TIER_CONTAINER);
  assert_int_equal(sbio_backend_info_tier(unverified), SBIO_TIER_UNKNOWN);

  expect_status(find(c, "loader_nonote"), SBIO_BACKEND_REFUSED, "no .note.sandboxio");
  expect_status(find(c, "loader_misnamed"), SBIO_BACKEND_REFUSED, "metadata names backend \"other\"");
  expect_status(find(c, "loader_opsabi"), SBIO_BACKEND_AVAILABLE, "");
  expect_status(find(c, "loader_http"), SBIO_BACKEND_REFUSED, "is writable by group or others (mode 0666)");

  /* The second directory's loader_good is listed, shadowed; find() never returns it. */
  size_t shadowed = 0;
  char want[PATH_MAX + 32];
  snprintf(want, sizeof want, "shadowed by %s", path);
  for (size_t i = 0; i < sbio_host_backend_count(c->host); i++) {
    const sbio_backend_info *b = sbio_host_backend_at(c->host, i);
    if (strcmp(sbio_backend_info_name(b), "loader_good") != 0 || b == good) continue;
    expect_status(b, SBIO_BACKEND_SHADOWED, want);
    shadowed++;
  }
  assert_int_equal(shadowed, 1);
  assert_null(sbio_host_backend_find(c->host, "loader_nothing"));
  assert_false(loader_exists(c->marker)); /* opening a host runs no backend code */
}

static void test_loading(void **state) {
  ctx *c = *state;
  assert_int_equal(sbio_host_load_backend(c->host, "loader_good", c->err), SBIO_OK);
  expect_status(find(c, "loader_good"), SBIO_BACKEND_LOADED, "");

  /* Refused at load: recorded in the info, reported with the catalogue code. */
  assert_int_equal(sbio_host_load_backend(c->host, "loader_opsabi", c->err), SBIO_E_BACKEND_UNAVAILABLE);
  assert_non_null(strstr(sbio_error_message(c->err), "operations table ABI major 2 does not match this core's 1"));
  expect_status(find(c, "loader_opsabi"), SBIO_BACKEND_REFUSED, "operations table ABI major 2");
  assert_int_equal(sbio_backend_info_tier(find(c, "loader_opsabi")), SBIO_TIER_UNKNOWN);

  /* Disabled: never loaded, and the hint names the key that enables it. */
  sbio_error_clear(c->err);
  assert_int_equal(sbio_host_load_backend(c->host, "loader_marker", c->err), SBIO_E_BACKEND_UNAVAILABLE);
  assert_non_null(strstr(sbio_error_message(c->err), "backend loader_marker is disabled by configuration"));
  assert_non_null(strstr(sbio_error_hint(c->err), "backends: {loader_marker: {enabled: true}}"));
  assert_string_equal(sbio_code_name(sbio_error_code(c->err)), "SBX_E1002");
  assert_false(loader_exists(c->marker));
  /* Nor does trying to create a sandbox on it load it. */
  sbio_sandbox *sb = NULL;
  sbio_error_clear(c->err);
  assert_int_equal(sbio_sandbox_create(c->host, "loader_marker://", NULL, &sb, c->err), SBIO_E_BACKEND_UNAVAILABLE);
  assert_null(sb);
  assert_non_null(strstr(sbio_error_message(c->err), "disabled by configuration"));
  assert_false(loader_exists(c->marker));
  expect_status(find(c, "loader_marker"), SBIO_BACKEND_DISABLED, "disabled by configuration");

  /* Refused at scan. */
  assert_int_equal(sbio_host_load_backend(c->host, "loader_nonote", c->err), SBIO_E_BACKEND_UNAVAILABLE);
  assert_non_null(strstr(sbio_error_message(c->err), "no .note.sandboxio"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_listing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_loading, setup, teardown),
  };
  return cmocka_run_group_tests_name("loader_public_api", tests, NULL, NULL);
}
