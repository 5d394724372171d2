/* SPDX-License-Identifier: MIT */
/* Configuration of the observability keys: the `tracing` section and
 * `audit.stderr` (core/src/config.c), kept apart from test_config.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sbio_error *err;

static int setup(void **state) {
  (void)state;
  err = sbio_error_new();
  return err ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  sbio_error_free(err);
  return 0;
}

static sbio_code merge_text(sbio__config *cfg, const char *text) {
  sbio_error_clear(err);
  return sbio__config_merge_buffer(cfg, "config.yaml", text, strlen(text), err);
}

static void expect_ok(sbio__config *cfg, const char *text) {
  sbio_code rc = merge_text(cfg, text);
  if (rc != SBIO_OK) print_error("input:\n%s\nunexpected error: %s\n", text, sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
}

static void expect_error(const char *text, const char *message) {
  sbio__config cfg;
  sbio__config_init(&cfg);
  sbio_code rc = merge_text(&cfg, text);
  if (rc != SBIO_E_CONFIG || strcmp(sbio_error_message(err), message) != 0)
    print_error("input:\n%s\nexpected: %s\n     got: %s (code %d)\n", text, message, sbio_error_message(err), rc);
  assert_int_equal(rc, SBIO_E_CONFIG);
  assert_string_equal(sbio_error_message(err), message);
  /* A bad file changes nothing. */
  assert_null(cfg.trace_endpoint);
  assert_int_equal(cfg.n_trace_headers, 0);
  assert_int_equal(cfg.n_files_read, 0);
  sbio__config_free(&cfg);
}

static const char *header(const sbio__config *cfg, const char *name) {
  for (size_t i = 0; i < cfg->n_trace_headers; i++)
    if (!strcmp(cfg->trace_header_names[i], name)) return cfg->trace_header_values[i];
  return NULL;
}

static void test_defaults(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(cfg.audit_stderr, 0);
  assert_int_equal(cfg.trace_enabled_set, 0);
  assert_null(cfg.trace_endpoint);
  assert_null(cfg.trace_service_name);
  assert_int_equal(cfg.trace_headers_set, 0);
  assert_int_equal(cfg.n_trace_headers, 0);
  sbio__config_free(&cfg);
}

static void test_every_key(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "audit:\n"
                  "  stderr: true\n"
                  "tracing:\n"
                  "  enabled: true\n"
                  "  endpoint: https://otel.example.test:4318/base/\n"
                  "  service_name: agents\n"
                  "  headers:\n"
                  "    X-Scope-OrgID: team-a\n"
                  "    Authorization: \"Bearer abc def\"\n");
  assert_int_equal(cfg.audit_stderr, 1);
  assert_int_equal(cfg.trace_enabled_set, 1);
  assert_int_equal(cfg.trace_enabled, 1);
  assert_string_equal(cfg.trace_endpoint, "https://otel.example.test:4318/base/");
  assert_string_equal(cfg.trace_service_name, "agents");
  assert_int_equal(cfg.trace_headers_set, 1);
  assert_int_equal(cfg.n_trace_headers, 2);
  assert_string_equal(header(&cfg, "X-Scope-OrgID"), "team-a");
  assert_string_equal(header(&cfg, "Authorization"), "Bearer abc def");
  sbio__config_free(&cfg);
}

static void test_empty_sections(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "tracing:\n");
  assert_int_equal(cfg.trace_enabled_set, 0);
  expect_ok(&cfg, "tracing: {headers: {}}\n");
  assert_int_equal(cfg.trace_headers_set, 1);
  assert_int_equal(cfg.n_trace_headers, 0);
  sbio__config_free(&cfg);
}

/* Later files override key by key; headers replace as a whole. */
static void test_merge(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "tracing:\n"
                  "  endpoint: http://a.test:4318\n"
                  "  service_name: first\n"
                  "  headers: {A: one, B: two}\n"
                  "audit: {stderr: true}\n");
  expect_ok(&cfg, "tracing:\n"
                  "  enabled: false\n"
                  "  headers: {C: three}\n"
                  "audit: {on_failure: fail}\n");
  assert_string_equal(cfg.trace_endpoint, "http://a.test:4318");
  assert_string_equal(cfg.trace_service_name, "first");
  assert_int_equal(cfg.trace_enabled_set, 1);
  assert_int_equal(cfg.trace_enabled, 0);
  assert_int_equal(cfg.n_trace_headers, 1);
  assert_string_equal(header(&cfg, "C"), "three");
  assert_null(header(&cfg, "A"));
  assert_int_equal(cfg.audit_stderr, 1); /* untouched by the second file */
  expect_ok(&cfg, "tracing: {endpoint: 'http://b.test'}\naudit: {stderr: false}\n");
  assert_string_equal(cfg.trace_endpoint, "http://b.test");
  assert_int_equal(cfg.trace_enabled, 0);
  assert_int_equal(cfg.audit_stderr, 0);
  assert_int_equal(cfg.n_files_read, 3);
  sbio__config_free(&cfg);
}

static void test_wrong_values(void **state) {
  (void)state;
  expect_error("tracing: on\n", "config.yaml:1:10: \"tracing\" must be a mapping of keys to values, not a string");
  expect_error("tracing: {enabled: yes}\n",
               "config.yaml:1:20: \"enabled\" must be a boolean (true or false), not \"yes\"");
  expect_error("audit: {stderr: 1}\n", "config.yaml:1:17: \"stderr\" must be a boolean (true or false), not \"1\"");
  expect_error("tracing:\n  endpoint: localhost:4318\n",
               "config.yaml:2:13: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
               "password (like http://localhost:4318); got a string that is not: not an http:// or https:// URL");
  expect_error("tracing:\n  endpoint: [http://a]\n",
               "config.yaml:2:13: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
               "password (like http://localhost:4318); got a list that is not");
  expect_error("tracing: {endpoint: 'ftp://collector'}\n",
               "config.yaml:1:21: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
               "password (like http://localhost:4318); got a string that is not: not an http:// or https:// URL");
  expect_error("tracing: {endpoint: 'http://'}\n",
               "config.yaml:1:21: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
               "password (like http://localhost:4318); got a string that is not: there is no host after the scheme");
  expect_error(
      "tracing: {endpoint: 'http://a b'}\n",
      "config.yaml:1:21: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
      "password (like http://localhost:4318); got a string that is not: it holds a space or a control character");
  /* The port: empty (issue 11: "http://a:" used to be taken) or out of range. */
  expect_error("tracing: {endpoint: 'http://a:/x'}\n",
               "config.yaml:1:21: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
               "password (like http://localhost:4318); got a string that is not: the port after ':' is empty (give a "
               "number, or no ':' for the scheme's default)");
  expect_error("tracing: {endpoint: 'http://a:99999'}\n",
               "config.yaml:1:21: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
               "password (like http://localhost:4318); got a string that is not: the port is not a number from 1 to "
               "65535");
  expect_error("tracing: {endpoint: 'http://u:p@a'}\n",
               "config.yaml:1:21: \"endpoint\" must be an http:// or https:// URL with a host and no user name or "
               "password (like http://localhost:4318); got a string that is not: it has a user name or password");
  expect_error("tracing: {service_name: ''}\n",
               "config.yaml:1:25: \"service_name\" must be a non-empty string, not the quoted string \"\"");
  expect_error("tracing: {service_name: 12}\n",
               "config.yaml:1:25: \"service_name\" must be a non-empty string, not \"12\"");
  expect_error("tracing: {headers: [a]}\n",
               "config.yaml:1:20: \"headers\" must be a mapping of keys to values, not a list");
  expect_error("tracing:\n  headers:\n    \"Bad Name\": x\n",
               "config.yaml:3:5: invalid HTTP header name \"Bad Name\" in tracing.headers");
  expect_error("tracing:\n  headers:\n    A:\n",
               "config.yaml:3:7: header \"A\" in tracing.headers must be a string, not empty (null)");
  expect_error("tracing:\n  headers:\n    A: {b: c}\n",
               "config.yaml:3:8: header \"A\" in tracing.headers must be a string, not a mapping");
}

static void test_unknown_keys(void **state) {
  (void)state;
  expect_error("tracing: {endpont: http://a}\n",
               "config.yaml:1:11: unknown key \"endpont\" in tracing (did you mean \"endpoint\"?)");
  expect_error("tracing: {sampler: always}\n", "config.yaml:1:11: unknown key \"sampler\" in tracing (known keys: "
                                               "enabled, endpoint, headers, service_name)");
  expect_error("audit: {stder: true}\n", "config.yaml:1:9: unknown key \"stder\" in audit (did you mean \"stderr\"?)");
  expect_error("audit: {stdout: true}\n",
               "config.yaml:1:9: unknown key \"stdout\" in audit (known keys: path, on_failure, stderr)");
}

/* Endpoints and header values may be credentials: an error names the key
 * and the kind of value, never the value. */
static void test_secrets_not_echoed(void **state) {
  (void)state;
  const char *cases[] = {
      "tracing: {endpoint: 'https://user:hunter2secret@collector.test'}\n",
      "tracing: {endpoint: 'https://hunter2secret'}\n" /* valid: checked below */,
      "tracing:\n  headers:\n    Authorization: \"Bearer hunter2secret\\r\\nX-Evil: 1\"\n",
      "tracing:\n  headers:\n    Authorization: [hunter2secret]\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    sbio__config cfg;
    sbio__config_init(&cfg);
    sbio_code rc = merge_text(&cfg, cases[i]);
    if (i == 1) {
      assert_int_equal(rc, SBIO_OK);
    } else {
      assert_int_equal(rc, SBIO_E_CONFIG);
      assert_null(strstr(sbio_error_message(err), "hunter2"));
      assert_null(strstr(sbio_error_hint(err), "hunter2"));
    }
    sbio__config_free(&cfg);
  }
  expect_error("tracing:\n  headers:\n    Authorization: \"Bearer x\\ny\"\n",
               "config.yaml:3:20: header \"Authorization\" in tracing.headers holds a line break or control "
               "character");
}

static void test_example_uses_the_keys(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  sbio_code rc = sbio__config_merge_file(&cfg, SBIO_TEST_SOURCE_DIR "/../docs/config.example.yaml", err);
  if (rc) print_error("%s\n", sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  assert_int_equal(cfg.trace_enabled_set, 1);
  assert_non_null(cfg.trace_endpoint);
  assert_non_null(cfg.trace_service_name);
  assert_true(cfg.n_trace_headers >= 1);
  sbio__config_free(&cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),           cmocka_unit_test(test_every_key),
      cmocka_unit_test(test_empty_sections),     cmocka_unit_test(test_merge),
      cmocka_unit_test(test_wrong_values),       cmocka_unit_test(test_unknown_keys),
      cmocka_unit_test(test_secrets_not_echoed), cmocka_unit_test(test_example_uses_the_keys),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
