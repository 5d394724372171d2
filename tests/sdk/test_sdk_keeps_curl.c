/* SPDX-License-Identifier: MIT */
/* Once the SDK has initialised libcurl it stays loaded for the rest of the
 * process (sdk/src/http.c, keep_curl_loaded): unloading the backend that
 * brought it must unload the backend, not libcurl's tree, whose global
 * state is never cleaned up. This program does not link libcurl itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Whether a file whose path contains `needle` is mapped into this process. */
static int mapped(const char *needle) {
  FILE *f = fopen("/proc/self/maps", "r");
  assert_non_null(f);
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, needle) != NULL;
  fclose(f);
  return found;
}

static void test_libcurl_outlives_the_module_that_loaded_it(void **state) {
  (void)state;
  assert_false(mapped("/libcurl"));
  void *module = dlopen(SBIO_TEST_CURL_USER, RTLD_NOW | RTLD_LOCAL);
  if (!module) fail_msg("cannot load %s: %s", SBIO_TEST_CURL_USER, dlerror());
  assert_true(mapped("/libcurl"));
  int (*make_client)(void) = NULL;
  void *sym = dlsym(module, "curl_user_make_client");
  assert_non_null(sym);
  memcpy(&make_client, &sym, sizeof make_client);
  assert_int_equal(make_client(), 0);
  assert_int_equal(dlclose(module), 0);
  assert_false(mapped("/curl_user.so")); /* the module itself is gone */
  assert_true(mapped("/libcurl"));       /* libcurl is not */
  /* Loaded again, the module finds libcurl initialised and works. */
  module = dlopen(SBIO_TEST_CURL_USER, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(module);
  sym = dlsym(module, "curl_user_make_client");
  assert_non_null(sym);
  memcpy(&make_client, &sym, sizeof make_client);
  assert_int_equal(make_client(), 0);
  assert_int_equal(dlclose(module), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_libcurl_outlives_the_module_that_loaded_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
