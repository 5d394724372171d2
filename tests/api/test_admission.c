/* SPDX-License-Identifier: MIT */
/* The admission gate through the public API: every path that yields a
 * sandbox handle (create, connect) meets the fleet floor, the caller's
 * requirement, the mechanism the backend names for that sandbox and every
 * capability the request needs, and is refused before anything exists (or
 * before a handle is returned), with the same errors, audited alike.
 *
 * The test backends (plugins/testbk.c) leave one file per operation they
 * ran in the fixture's directory, so "the backend was never asked" and
 * "the sandbox was released but not killed" are facts, not inferences. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api_support.h"

/* How many times the test backend ran `op` (bytes in its counter file). */
static long ran(const fixture *f, const char *op) {
  char path[512];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", f->dir, op);
  return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

static size_t events(const fixture *f, const char *name) {
  char needle[96];
  snprintf(needle, sizeof needle, "\"event\":\"%s\"", name);
  return sbt_file_count(f->audit_path, needle);
}

/* The one audit line of event `name` (there must be exactly one). */
static const char *only_event(const fixture *f, const char *name) {
  char needle[96];
  snprintf(needle, sizeof needle, "\"event\":\"%s\"", name);
  const char *found = NULL;
  for (size_t i = 0; i < f->audit.n; i++) {
    if (!strstr(f->audit.items[i], needle)) continue;
    if (found) fail_msg("more than one %s event", name);
    found = f->audit.items[i];
  }
  if (!found) fail_msg("no %s event", name);
  return found;
}

static void open_with(fixture *f, const char *yaml) {
  if (fixture_open(f, yaml, NULL) != 0) fail_msg("fixture_open failed");
}

/* ------------------------------------------------------------- connect */

/* Finding 1 of issue 10: under a fleet floor no mechanism of the backend
 * can meet, a connect was let through and exec ran in the sandbox. Now it
 * is refused from the metadata alone: the backend is not even asked. */
static void test_connect_under_a_floor_is_refused_before_the_backend_is_asked(void **state) {
  (void)state;
  fixture f;
  open_with(&f, "require_isolation: microvm\n");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_connect(f.host, "liar", "tb-7", &sb, err), SBIO_E_CONFIG);
  assert_null(sb);
  /* The same error and hint as a create under the floor. */
  assert_string_equal(sbio_error_message(err),
                      "backend liar cannot meet the required isolation MICROVM: it offers GVISOR (mechanism "
                      "\"runsc\", verified 2026-11-01 from https://gvisor.dev/docs/)");
  assert_non_null(strstr(sbio_error_hint(err), "the floor comes from require_isolation in the configuration"));
  assert_string_equal(sbio_error_backend(err), "liar");
  assert_string_equal(sbio_error_sandbox_id(err), "tb-7");
  sbio_sandbox *created = NULL;
  assert_int_equal(sbio_sandbox_create(f.host, "liar://", NULL, &created, err), SBIO_E_CONFIG);
  assert_int_equal(ran(&f, "connect"), 0);
  assert_int_equal(ran(&f, "plan"), 0);
  assert_int_equal(events(&f, "connect_requested"), 1);
  assert_int_equal(events(&f, "connect_denied"), 1);
  assert_int_equal(events(&f, "connected"), 0);
  const char *denied = only_event(&f, "connect_denied");
  assert_non_null(strstr(denied, "\"sandbox_id\":\"tb-7\""));
  assert_non_null(strstr(denied, "\"required_tier\":\"MICROVM\""));
  assert_non_null(strstr(denied, "\"required_capabilities\":[\"connect\"]"));
  assert_non_null(strstr(denied, "\"error_code\":\"SBX_E1000\""));
  sbio_error_free(err);
  fixture_close(&f);
}

/* The floor can be met by one of the backend's mechanisms (runsc), so the
 * backend is asked; the sandbox turns out to run under runc. No handle is
 * returned, and the sandbox, which was someone's before the connect, is
 * released, never killed. */
static void test_connect_refused_on_the_reported_mechanism_leaves_the_sandbox_alone(void **state) {
  (void)state;
  fixture f;
  open_with(&f, "require_isolation: gvisor\n");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_connect(f.host, "liar", "tb-7", &sb, err), SBIO_E_CONFIG);
  assert_null(sb);
  const char *msg = sbio_error_message(err);
  assert_non_null(strstr(msg, "not attached to sandbox liar:tb-7, which was left as it was: "));
  assert_non_null(strstr(msg, "cannot meet the required isolation GVISOR: it offers CONTAINER (mechanism \"runc\""));
  assert_string_equal(sbio_error_sandbox_id(err), "tb-7");
  assert_int_equal(ran(&f, "connect"), 1);
  assert_int_equal(ran(&f, "release"), 1);
  assert_int_equal(ran(&f, "kill"), 0);
  const char *denied = only_event(&f, "connect_denied");
  assert_non_null(strstr(denied, "\"mechanism\":\"runc\""));
  assert_non_null(strstr(denied, "\"tier\":\"CONTAINER\""));
  assert_non_null(strstr(denied, "\"required_tier\":\"GVISOR\""));
  assert_int_equal(events(&f, "connected"), 0);
  sbio_error_free(err);
  sbio_host_close(f.host); /* owns nothing of it, so does not kill it either */
  f.host = NULL;
  assert_int_equal(ran(&f, "kill"), 0);
  fixture_close(&f);
}

static void test_connect_options_raise_the_floor_and_declare_capabilities(void **state) {
  (void)state;
  fixture f;
  open_with(&f, NULL);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_connect_options *co = sbio_connect_options_new();
  assert_int_equal(sbio_connect_options_require_isolation(co, SBIO_TIER_MICROVM), SBIO_OK);
  assert_int_equal(sbio_sandbox_connect_ex(f.host, "liar", "tb-7", co, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "required isolation MICROVM"));
  sbio_connect_options_free(co);

  /* liar declares no stdin. */
  co = sbio_connect_options_new();
  assert_int_equal(sbio_connect_options_require_capabilities(co, SBIO_CAP_STDIN), SBIO_OK);
  assert_int_equal(sbio_sandbox_connect_ex(f.host, "liar", "tb-7", co, &sb, err), SBIO_E_CAPABILITY);
  assert_string_equal(sbio_error_message(err), "backend liar does not support stdin");
  assert_non_null(strstr(sbio_error_hint(err), "fake"));
  sbio_connect_options_free(co);

  /* A requirement nobody can even name is refused, not ignored. */
  co = sbio_connect_options_new();
  assert_int_equal(sbio_connect_options_require_capabilities(co, (sbio_caps)1 << 62), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_connect_ex(f.host, "liar", "tb-7", co, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "not a capability"));
  sbio_connect_options_free(co);
  co = sbio_connect_options_new();
  assert_int_equal(sbio_connect_options_require_isolation(co, SBIO_TIER_UNKNOWN), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_connect_ex(f.host, "liar", "tb-7", co, &sb, err), SBIO_E_CONFIG);
  sbio_connect_options_free(co);
  assert_null(sb);
  assert_int_equal(ran(&f, "connect"), 0);
  assert_int_equal(events(&f, "connect_denied"), 2);
  sbio_error_free(err);
  fixture_close(&f);
}

static void test_connect_admitted_is_audited_with_the_observed_tier(void **state) {
  (void)state;
  fixture f;
  open_with(&f, "require_isolation: container\n");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_connect_options *co = sbio_connect_options_new();
  assert_int_equal(sbio_connect_options_require_capabilities(co, SBIO_CAP_RUN_COMMAND), SBIO_OK);
  assert_int_equal(sbio_sandbox_connect_ex(f.host, "liar", "tb-7", co, &sb, err), SBIO_OK);
  sbio_connect_options_free(co);
  assert_string_equal(sbio_sandbox_id(sb), "tb-7");
  assert_string_equal(sbio_sandbox_mechanism(sb), "runc");
  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_CONTAINER);
  const char *connected = only_event(&f, "connected");
  assert_non_null(strstr(connected, "\"sandbox_id\":\"tb-7\""));
  assert_non_null(strstr(connected, "\"mechanism\":\"runc\""));
  assert_non_null(strstr(connected, "\"outcome\":\"ok\""));
  /* An unknown id: the backend's answer, audited as connect_failed. */
  sbio_sandbox *none = NULL;
  assert_int_equal(sbio_sandbox_connect(f.host, "liar", "zz-1", &none, err), SBIO_E_CONNECT);
  assert_null(none);
  assert_string_equal(sbio_error_sandbox_id(err), "zz-1");
  assert_non_null(strstr(only_event(&f, "connect_failed"), "\"error_code\":\"SBX_E1202\""));
  /* The handle is owned like a created one: closing it destroys it. */
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK);
  assert_int_equal(ran(&f, "kill"), 1);
  sbio_error_free(err);
  fixture_close(&f);
}

/* -------------------------------------------------------------- create */

/* Finding 3 of issue 10: what a caller will use is declared with the
 * create, and a backend without it is refused before it is even loaded. */
static void test_required_capabilities_are_refused_before_anything_is_created(void **state) {
  (void)state;
  fixture f;
  open_with(&f, NULL);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_create_options *co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_require_capabilities(co, SBIO_CAP_RUN_COMMAND), SBIO_OK);
  assert_int_equal(sbio_create_options_require_capabilities(co, SBIO_CAP_STDIN | SBIO_CAP_SEPARATE_STDERR), SBIO_OK);
  assert_int_equal(sbio_sandbox_create(f.host, "vague://", co, &sb, err), SBIO_E_CAPABILITY);
  assert_null(sb);
  assert_string_equal(sbio_error_message(err), "backend vague does not support stdin");
  assert_non_null(strstr(sbio_error_hint(err), "backends that support stdin: "));
  assert_non_null(strstr(sbio_error_hint(err), "fake"));
  assert_int_equal(ran(&f, "plan"), 0);
  assert_int_equal(ran(&f, "create"), 0);
  const char *denied = only_event(&f, "create_denied");
  assert_non_null(
      strstr(denied, "\"required_capabilities\":[\"run_command\",\"network_policy\",\"stdin\",\"separate_stderr\"]"));
  assert_non_null(strstr(denied, "\"error_code\":\"SBX_E1101\""));
  assert_int_equal(events(&f, "created"), 0);
  /* The fake has all of them. */
  assert_int_equal(sbio_sandbox_create(f.host, "fake://", co, &sb, err), SBIO_OK);
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK);
  sbio_create_options_free(co);

  co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_require_capabilities(co, (sbio_caps)1 << SBIO_CAP_COUNT), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_create(f.host, "fake://", co, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "not a capability"));
  assert_null(sb);
  sbio_create_options_free(co);
  sbio_error_free(err);
  fixture_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_connect_under_a_floor_is_refused_before_the_backend_is_asked),
      cmocka_unit_test(test_connect_refused_on_the_reported_mechanism_leaves_the_sandbox_alone),
      cmocka_unit_test(test_connect_options_raise_the_floor_and_declare_capabilities),
      cmocka_unit_test(test_connect_admitted_is_audited_with_the_observed_tier),
      cmocka_unit_test(test_required_capabilities_are_refused_before_anything_is_created),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
