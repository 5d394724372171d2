/* SPDX-License-Identifier: MIT */
/* Configuration: YAML parsing, validation, messages, merge and layering
 * (core/src/config.c against core/src/config.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Merges `text` into a fresh config and checks it fails with exactly `message`. */
static void expect_error(const char *text, const char *message) {
  sbio__config cfg;
  sbio__config_init(&cfg);
  sbio_code rc = merge_text(&cfg, text);
  if (rc != SBIO_E_CONFIG || strcmp(sbio_error_message(err), message) != 0)
    print_error("input:\n%s\nexpected: %s\n     got: %s (code %d)\n", text, message, sbio_error_message(err), rc);
  assert_int_equal(rc, SBIO_E_CONFIG);
  assert_string_equal(sbio_error_message(err), message);
  assert_int_equal(cfg.n_files_read, 0);
  sbio__config_free(&cfg);
}

/* Merges `text` and checks it succeeds; the caller frees cfg. */
static void expect_ok(sbio__config *cfg, const char *text) {
  sbio_code rc = merge_text(cfg, text);
  if (rc != SBIO_OK) print_error("input:\n%s\nunexpected error: %s\n", text, sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
}

static const char *settings_of(const char *text, const char *backend) {
  static char json[4096];
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, text);
  const sbio__backend_config *b = sbio__config_backend(&cfg, backend);
  assert_non_null(b);
  assert_non_null(b->settings_json);
  snprintf(json, sizeof json, "%s", b->settings_json);
  sbio__config_free(&cfg);
  return json;
}

/* ------------------------------------------------------------ defaults */

static void test_defaults(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(cfg.backend_path_set, 0);
  assert_int_equal(cfg.n_backend_path, 0);
  assert_null(cfg.default_backend);
  assert_int_equal(cfg.require_isolation_set, 0);
  assert_int_equal(cfg.max_age_days, 92);
  assert_int_equal(cfg.stale, SBIO__STALE_WARN);
  assert_int_equal(cfg.backends_default_enabled, 1);
  assert_int_equal(cfg.n_backends, 0);
  assert_null(cfg.audit_path);
  assert_int_equal(cfg.audit_on_failure, SBIO__ON_FAILURE_WARN);
  assert_int_equal(cfg.n_files_read, 0);
  assert_int_equal(sbio__config_backend_enabled(&cfg, "docker"), 1);
  assert_null(sbio__config_backend(&cfg, "docker"));
  sbio__config_free(&cfg);
  sbio__config_free(&cfg); /* a second free is harmless */
}

/* ------------------------------------------------------- valid documents */

static void test_every_key(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "# every key\n"
                  "backend_path: [/opt/sbio/backends, /usr/lib/sandboxio/backends]\n"
                  "default_backend: docker://python:3.12\n"
                  "require_isolation: GVisor\n"
                  "metadata:\n"
                  "  max_age_days: 30\n"
                  "  stale: unknown\n"
                  "backends_default: disabled\n"
                  "backends:\n"
                  "  docker:\n"
                  "    enabled: true\n"
                  "    expect_tier: container\n"
                  "    sha256: " /* upper case is accepted and stored lower */
                  "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789\n"
                  "    settings:\n"
                  "      image: python:3.12-slim\n"
                  "  e2b:\n"
                  "    enabled: False\n"
                  "    expect_tier: MICROVM\n"
                  "audit:\n"
                  "  path: /var/log/sandboxio/audit.jsonl\n"
                  "  on_failure: fail\n");
  assert_int_equal(cfg.backend_path_set, 1);
  assert_int_equal(cfg.n_backend_path, 2);
  assert_string_equal(cfg.backend_path[0], "/opt/sbio/backends");
  assert_string_equal(cfg.backend_path[1], "/usr/lib/sandboxio/backends");
  assert_string_equal(cfg.default_backend, "docker://python:3.12");
  assert_int_equal(cfg.require_isolation_set, 1);
  assert_int_equal(cfg.require_isolation, SBIO_TIER_GVISOR);
  assert_int_equal(cfg.max_age_days, 30);
  assert_int_equal(cfg.stale, SBIO__STALE_UNKNOWN);
  assert_int_equal(cfg.backends_default_enabled, 0);
  assert_int_equal(cfg.n_backends, 2);
  const sbio__backend_config *docker = sbio__config_backend(&cfg, "docker");
  assert_non_null(docker);
  assert_string_equal(docker->name, "docker");
  assert_int_equal(docker->enabled_set, 1);
  assert_int_equal(docker->enabled, 1);
  assert_int_equal(docker->expect_tier_set, 1);
  assert_int_equal(docker->expect_tier, SBIO_TIER_CONTAINER);
  assert_string_equal(docker->sha256, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
  assert_string_equal(docker->settings_json, "{\"image\":\"python:3.12-slim\"}");
  assert_string_equal(docker->where, "config.yaml:10:3");
  const sbio__backend_config *e2b = sbio__config_backend(&cfg, "e2b");
  assert_non_null(e2b);
  assert_int_equal(e2b->enabled_set, 1);
  assert_int_equal(e2b->enabled, 0);
  assert_int_equal(e2b->expect_tier, SBIO_TIER_MICROVM);
  assert_null(e2b->sha256);
  assert_null(e2b->settings_json);
  assert_string_equal(e2b->where, "config.yaml:16:3");
  assert_string_equal(cfg.audit_path, "/var/log/sandboxio/audit.jsonl");
  assert_int_equal(cfg.audit_on_failure, SBIO__ON_FAILURE_FAIL);
  assert_int_equal(cfg.n_files_read, 1);
  assert_string_equal(cfg.files_read[0], "config.yaml");
  /* allow-list mode: only what is enabled explicitly */
  assert_int_equal(sbio__config_backend_enabled(&cfg, "docker"), 1);
  assert_int_equal(sbio__config_backend_enabled(&cfg, "e2b"), 0);
  assert_int_equal(sbio__config_backend_enabled(&cfg, "fake"), 0);
  sbio__config_free(&cfg);
}

static void test_other_valid_spellings(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "default_backend: fake\n"
                  "require_isolation: microvm\n"
                  "metadata: {max_age_days: 3650, stale: WARN}\n"
                  "backends_default: Enabled\n"
                  "backends:\n"
                  "  docker: {enabled: TRUE, expect_tier: unknown}\n"
                  "  fake:\n"
                  "  a_1: {}\n"
                  "audit: {on_failure: warn}\n"
                  "backend_path: []\n");
  assert_string_equal(cfg.default_backend, "fake");
  assert_int_equal(cfg.require_isolation, SBIO_TIER_MICROVM);
  assert_int_equal(cfg.max_age_days, 3650);
  assert_int_equal(cfg.stale, SBIO__STALE_WARN);
  assert_int_equal(cfg.backends_default_enabled, 1);
  assert_int_equal(cfg.n_backends, 3);
  assert_int_equal(sbio__config_backend(&cfg, "docker")->expect_tier, SBIO_TIER_UNKNOWN);
  assert_int_equal(sbio__config_backend(&cfg, "docker")->expect_tier_set, 1);
  assert_int_equal(sbio__config_backend(&cfg, "fake")->enabled_set, 0);
  assert_int_equal(sbio__config_backend_enabled(&cfg, "fake"), 1);
  assert_int_equal(cfg.backend_path_set, 1);
  assert_int_equal(cfg.n_backend_path, 0);
  assert_null(cfg.audit_path);
  sbio__config_free(&cfg);
}

static void test_empty_documents(void **state) {
  (void)state;
  const char *empties[] = {"", "# only a comment\n\n   # another\n", "---\n", "---\n...\n", "metadata:\nbackends:\n"};
  for (size_t i = 0; i < sizeof empties / sizeof *empties; i++) {
    sbio__config cfg;
    sbio__config_init(&cfg);
    expect_ok(&cfg, empties[i]);
    assert_int_equal(cfg.n_backends, 0);
    assert_int_equal(cfg.max_age_days, 92);
    assert_int_equal(cfg.n_files_read, 1);
    sbio__config_free(&cfg);
  }
}

static void test_standard_tags(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "metadata: !!map {max_age_days: !!int 7}\n"
                  "backends:\n"
                  "  docker:\n"
                  "    enabled: !!bool false\n"
                  "    settings: {a: !!str 12, b: !!float 1, c: !!null null, d: ! 5}\n");
  assert_int_equal(cfg.max_age_days, 7);
  assert_int_equal(sbio__config_backend(&cfg, "docker")->enabled, 0);
  assert_string_equal(sbio__config_backend(&cfg, "docker")->settings_json,
                      "{\"a\":\"12\",\"b\":1,\"c\":null,\"d\":\"5\"}");
  sbio__config_free(&cfg);
}

/* ----------------------------------------------------------- wrong types */

static void test_wrong_types(void **state) {
  (void)state;
  expect_error("backend_path: /opt/x\n",
               "config.yaml:1:15: \"backend_path\" must be a list of absolute directories, not \"/opt/x\"");
  expect_error("backend_path:\n  - [/opt/x]\n",
               "config.yaml:2:5: each \"backend_path\" entry must be an absolute path (starting with /), not a list");
  expect_error("default_backend: [fake]\n",
               "config.yaml:1:18: \"default_backend\" must be a backend name (like fake) or a URI (like "
               "docker://python:3.12); got a list that is neither");
  expect_error("default_backend: true\n",
               "config.yaml:1:18: \"default_backend\" must be a backend name (like fake) or a URI (like "
               "docker://python:3.12); got a boolean that is neither");
  expect_error("default_backend:\n",
               "config.yaml:1:17: \"default_backend\" must be a backend name (like fake) or a URI (like "
               "docker://python:3.12); got empty (null) that is neither");
  expect_error("require_isolation: {tier: gvisor}\n",
               "config.yaml:1:20: \"require_isolation\" must be one of container, gvisor or microvm, not a mapping");
  expect_error("metadata: 5\n", "config.yaml:1:11: \"metadata\" must be a mapping of keys to values, not a number");
  expect_error("metadata:\n  max_age_days: \"30\"\n",
               "config.yaml:2:17: \"max_age_days\" must be a whole number of days from 1 to 3650, not the quoted "
               "string \"30\"");
  expect_error("metadata:\n  max_age_days: 1.5\n",
               "config.yaml:2:17: \"max_age_days\" must be a whole number of days from 1 to 3650, not \"1.5\"");
  expect_error("metadata:\n  stale: [warn]\n",
               "config.yaml:2:10: \"stale\" must be one of warn or unknown, not a list");
  expect_error("backends_default: true\n",
               "config.yaml:1:19: \"backends_default\" must be one of enabled or disabled, not \"true\"");
  expect_error("backends: [docker]\n",
               "config.yaml:1:11: \"backends\" must be a mapping of keys to values, not a list");
  expect_error("backends:\n  docker: true\n",
               "config.yaml:2:11: \"backends.docker\" must be a mapping of keys to values, not a boolean");
  expect_error("backends:\n  docker:\n    enabled: yes please\n",
               "config.yaml:3:14: \"enabled\" must be a boolean (true or false), not \"yes please\"");
  expect_error("backends:\n  docker:\n    enabled: \"true\"\n",
               "config.yaml:3:14: \"enabled\" must be a boolean (true or false), not the quoted string \"true\"");
  expect_error("backends:\n  docker:\n    enabled:\n",
               "config.yaml:3:13: \"enabled\" must be a boolean (true or false), not empty (null)");
  expect_error("backends:\n  docker:\n    expect_tier: [gvisor]\n",
               "config.yaml:3:18: \"expect_tier\" must be one of container, gvisor, microvm or unknown, not a list");
  expect_error("backends:\n  docker:\n    sha256: {}\n",
               "config.yaml:3:13: \"sha256\" must be 64 hexadecimal digits, not a mapping");
  expect_error("backends:\n  docker:\n    settings: [a, b]\n",
               "config.yaml:3:15: \"settings\" of backend \"docker\" must be a mapping of keys to values, not a list");
  expect_error("backends:\n  docker:\n    settings: \"token\"\n",
               "config.yaml:3:15: \"settings\" of backend \"docker\" must be a mapping of keys to values, not a "
               "string");
  expect_error("audit: /var/log/a\n", "config.yaml:1:8: \"audit\" must be a mapping of keys to values, not a string");
  expect_error("audit:\n  path: [/var/log/a]\n",
               "config.yaml:2:9: \"path\" (the audit file) must be an absolute path (starting with /), not a list");
  expect_error("audit:\n  on_failure: 1\n", "config.yaml:2:15: \"on_failure\" must be one of warn or fail, not \"1\"");
  expect_error("- a\n- b\n", "config.yaml:1:1: the top level must be a mapping of keys to values, not a list");
  expect_error("just text\n", "config.yaml:1:1: the top level must be a mapping of keys to values, not a string");
}

static void test_strict_booleans(void **state) {
  (void)state;
  const char *ambiguous[] = {"yes", "no", "on", "off", "y", "n", "1", "0", "tRUE"};
  for (size_t i = 0; i < sizeof ambiguous / sizeof *ambiguous; i++) {
    char text[128], message[256];
    snprintf(text, sizeof text, "backends:\n  docker:\n    enabled: %s\n", ambiguous[i]);
    snprintf(message, sizeof message, "config.yaml:3:14: \"enabled\" must be a boolean (true or false), not \"%s\"",
             ambiguous[i]);
    expect_error(text, message);
  }
  const char *accepted[] = {"true", "True", "TRUE", "false", "False", "FALSE"};
  for (size_t i = 0; i < sizeof accepted / sizeof *accepted; i++) {
    char text[128];
    snprintf(text, sizeof text, "backends:\n  docker:\n    enabled: %s\n", accepted[i]);
    sbio__config cfg;
    sbio__config_init(&cfg);
    expect_ok(&cfg, text);
    assert_int_equal(sbio__config_backend(&cfg, "docker")->enabled, i < 3);
    sbio__config_free(&cfg);
  }
}

/* ------------------------------------------------------------ unknown keys */

static void test_unknown_keys(void **state) {
  (void)state;
  expect_error("default_backend: fake\nbackends: {}\n\nrequre_isolation: gvisor\n",
               "config.yaml:4:1: unknown key \"requre_isolation\" in the top-level mapping (did you mean "
               "\"require_isolation\"?)");
  expect_error("telemetry: on\n",
               "config.yaml:1:1: unknown key \"telemetry\" in the top-level mapping (known keys: backend_path, "
               "default_backend, require_isolation, metadata, backends_default, backends, audit, tracing)");
  expect_error("metadata:\n  stale: warn\n  max_age_dyas: 3\n",
               "config.yaml:3:3: unknown key \"max_age_dyas\" in metadata (did you mean \"max_age_days\"?)");
  expect_error("backends:\n  docker:\n    enabled: true\n    expect_teir: gvisor\n",
               "config.yaml:4:5: unknown key \"expect_teir\" in backends.docker (did you mean \"expect_tier\"?)");
  expect_error("backends:\n  docker:\n      pin: abc\n",
               "config.yaml:3:7: unknown key \"pin\" in backends.docker (known keys: enabled, expect_tier, sha256, "
               "settings)");
  expect_error("audit:\n  paht: /x\n", "config.yaml:2:3: unknown key \"paht\" in audit (did you mean \"path\"?)");
  expect_error("audit: {path: /x, on_fail: warn}\n",
               "config.yaml:1:19: unknown key \"on_fail\" in audit (did you mean \"on_failure\"?)");
}

static void test_duplicate_keys(void **state) {
  (void)state;
  expect_error("backends: {}\nbackends: {}\n", "config.yaml:2:1: duplicate key \"backends\" (first at line 1)");
  expect_error("backends:\n  docker: {}\n  fake: {}\n  docker:\n    enabled: true\n",
               "config.yaml:4:3: duplicate key \"docker\" (first at line 2)");
  expect_error("backends:\n  docker:\n    settings:\n      a: 1\n      b:\n        c: 1\n        c: 2\n      a: 3\n",
               "config.yaml:7:9: duplicate key \"c\" (first at line 6)");
  expect_error("backends:\n  docker:\n    settings: {x: 1, y: 2, x: 3}\n",
               "config.yaml:3:28: duplicate key \"x\" (first at line 3)");
  /* a key's spelling, not its meaning, makes it a duplicate: "a" and a are the same */
  expect_error("backends:\n  docker:\n    settings: {a: 1, \"a\": 2}\n",
               "config.yaml:3:22: duplicate key \"a\" (first at line 3)");
}

static void test_invalid_enums(void **state) {
  (void)state;
  expect_error("require_isolation: unknown\n",
               "config.yaml:1:20: requiring UNKNOWN is meaningless: UNKNOWN satisfies no requirement (use container, "
               "gvisor or microvm, or leave require_isolation out)");
  expect_error("require_isolation: UNKNOWN\n",
               "config.yaml:1:20: requiring UNKNOWN is meaningless: UNKNOWN satisfies no requirement (use container, "
               "gvisor or microvm, or leave require_isolation out)");
  expect_error("require_isolation: vm\n",
               "config.yaml:1:20: \"require_isolation\" must be one of container, gvisor or microvm, not \"vm\"");
  expect_error("metadata:\n  stale: ignore\n",
               "config.yaml:2:10: \"stale\" must be one of warn or unknown, not \"ignore\"");
  expect_error("metadata:\n  max_age_days: 0\n",
               "config.yaml:2:17: \"max_age_days\" must be a whole number of days from 1 to 3650, not \"0\"");
  expect_error("metadata:\n  max_age_days: 3651\n",
               "config.yaml:2:17: \"max_age_days\" must be a whole number of days from 1 to 3650, not \"3651\"");
  expect_error("metadata:\n  max_age_days: 99999999999999999999999\n",
               "config.yaml:2:17: \"max_age_days\" must be a whole number of days from 1 to 3650, not "
               "\"99999999999999999999999\"");
  expect_error("backends_default: allow\n",
               "config.yaml:1:19: \"backends_default\" must be one of enabled or disabled, not \"allow\"");
  expect_error("backends:\n  docker:\n    expect_tier: kata\n",
               "config.yaml:3:18: \"expect_tier\" must be one of container, gvisor, microvm or unknown, not \"kata\"");
  expect_error("audit:\n  on_failure: ignore\n",
               "config.yaml:2:15: \"on_failure\" must be one of warn or fail, not \"ignore\"");
  /* a long bad value, or one with characters no keyword has, is not shown (it may be a token) */
  expect_error(
      "audit:\n  on_failure: \"a\\tbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"\n",
      "config.yaml:2:15: \"on_failure\" must be one of warn or fail, not a string of 78 bytes (not shown: it may "
      "be a credential)");
}

static void test_paths(void **state) {
  (void)state;
  expect_error("backend_path:\n  - /opt/ok\n  - lib/backends\n",
               "config.yaml:3:5: each \"backend_path\" entry must be an absolute path (starting with /), not "
               "\"lib/backends\"");
  expect_error("backend_path: [~/backends]\n",
               "config.yaml:1:16: each \"backend_path\" entry must be an absolute path (starting with /), not "
               "\"~/backends\"");
  expect_error("audit:\n  path: audit.jsonl\n",
               "config.yaml:2:9: \"path\" (the audit file) must be an absolute path (starting with /), not "
               "\"audit.jsonl\"");
}

static void test_sha256(void **state) {
  (void)state;
  expect_error("backends:\n  docker:\n    sha256: abc123\n",
               "config.yaml:3:13: \"sha256\" must be 64 hexadecimal digits, not \"abc123\" (6 characters)");
  expect_error("backends:\n  docker:\n    sha256: "
               "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0\n",
               "config.yaml:3:13: \"sha256\" must be 64 hexadecimal digits, not a string of 65 bytes (not shown: "
               "it may be a credential)");
  expect_error("backends:\n  docker:\n    sha256: "
               "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg\n",
               "config.yaml:3:13: \"sha256\" must be 64 hexadecimal digits, not a string of 64 bytes (not shown: "
               "it may be a credential)");
  expect_error("backends:\n  docker:\n    sha256:\n",
               "config.yaml:3:12: \"sha256\" must be 64 hexadecimal digits, not empty (null)");
  /* all digits: a plain scalar YAML would read as an integer is still a hash */
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "backends:\n  docker:\n    sha256: "
                  "1234567890123456789012345678901234567890123456789012345678901234\n");
  assert_string_equal(sbio__config_backend(&cfg, "docker")->sha256,
                      "1234567890123456789012345678901234567890123456789012345678901234");
  sbio__config_free(&cfg);
}

static void test_backend_names(void **state) {
  (void)state;
  const char *bad[] = {"Docker", "1docker", "_x", "my-backend", "a234567890123456789012345678901b", "\"\""};
  const char *shown[] = {"Docker", "1docker", "_x", "my-backend", "a234567890123456789012345678901b", ""};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char text[128], message[256];
    snprintf(text, sizeof text, "backends:\n  %s:\n    enabled: true\n", bad[i]);
    snprintf(message, sizeof message,
             "config.yaml:2:3: invalid backend name \"%s\": a name is 1 to 31 lower-case letters, digits and "
             "underscores, starting with a letter",
             shown[i]);
    expect_error(text, message);
  }
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "backends:\n  a234567890123456789012345678901: {}\n  x_9: {}\n");
  assert_int_equal(cfg.n_backends, 2);
  sbio__config_free(&cfg);
  expect_error("default_backend: Docker\n",
               "config.yaml:1:18: \"default_backend\" must be a backend name (like fake) or a URI (like "
               "docker://python:3.12); got a string that is neither");
  expect_error("default_backend: \"://x\"\n",
               "config.yaml:1:18: \"default_backend\" must be a backend name (like fake) or a URI (like "
               "docker://python:3.12); got a string that is neither");
}

/* A default_backend URI may carry a credential: the message must not echo it. */
static void test_secrets_not_echoed(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(merge_text(&cfg, "default_backend: \"E2B://x?api_key=s3cr3t\"\n"), SBIO_E_CONFIG);
  assert_null(strstr(sbio_error_message(err), "s3cr3t"));
  assert_int_equal(merge_text(&cfg, "backends:\n  e2b:\n    settings: !!int s3cr3t\n"), SBIO_E_CONFIG);
  assert_null(strstr(sbio_error_message(err), "s3cr3t"));
  assert_string_equal(sbio_error_message(err), "config.yaml:3:15: the value does not match its tag !!int");
  /* A token pasted under a key that takes a word, a boolean, a path or a
   * hash is described by its place and length, never shown. */
  static const char *const pasted[] = {
      "require_isolation: sk-live-Zq9x7Tw2\n",
      "backends:\n  docker:\n    enabled: sk-live-Zq9x7Tw2\n",
      "backends:\n  docker:\n    expect_tier: sk-live-Zq9x7Tw2\n",
      "backends:\n  docker:\n    sha256: sk-live-Zq9x7Tw2\n",
      "audit:\n  path: sk-live-Zq9x7Tw2\n",
      "backend_path: [sk-live-Zq9x7Tw2]\n",
  };
  for (size_t i = 0; i < sizeof pasted / sizeof *pasted; i++) {
    assert_int_equal(merge_text(&cfg, pasted[i]), SBIO_E_CONFIG);
    const char *msg = sbio_error_message(err);
    if (strstr(msg, "Zq9x7Tw2") || !strstr(msg, "config.yaml:") || !strstr(msg, "a string of 16 bytes"))
      fail_msg("%s: %s", pasted[i], msg);
  }
  sbio__config_free(&cfg);
}

/* ---------------------------------------------------------- settings JSON */

static void test_settings_json(void **state) {
  (void)state;
  assert_string_equal(settings_of("backends:\n"
                                  "  docker:\n"
                                  "    settings:\n"
                                  "      image: python:3.12-slim\n"
                                  "      limits:\n"
                                  "        cpus: 1.5\n"
                                  "        memory_mb: 512\n"
                                  "        pids: -7\n"
                                  "      env: [A, \"B\", 3, true, null, ~]\n"
                                  "      quoted: {t: \"true\", n: \"12\", z: 'null', e: \"\"}\n"
                                  "      plain: {t: True, f: FALSE, n: NULL, empty: , tilde: ~}\n"
                                  "      words: {yes: yes, on: off}\n"
                                  "      nested: [[1, [2]], {a: [{b: c}]}]\n"
                                  "      block: |\n"
                                  "        line one\n"
                                  "        line two\n"
                                  "      \"quoted key\": 1\n"
                                  "      3: int key\n",
                                  "docker"),
                      "{\"image\":\"python:3.12-slim\","
                      "\"limits\":{\"cpus\":1.5,\"memory_mb\":512,\"pids\":-7},"
                      "\"env\":[\"A\",\"B\",3,true,null,null],"
                      "\"quoted\":{\"t\":\"true\",\"n\":\"12\",\"z\":\"null\",\"e\":\"\"},"
                      "\"plain\":{\"t\":true,\"f\":false,\"n\":null,\"empty\":null,\"tilde\":null},"
                      "\"words\":{\"yes\":\"yes\",\"on\":\"off\"},"
                      "\"nested\":[[1,[2]],{\"a\":[{\"b\":\"c\"}]}],"
                      "\"block\":\"line one\\nline two\\n\","
                      "\"quoted key\":1,"
                      "\"3\":\"int key\"}");
  /* numbers keep every digit and become valid JSON spellings */
  assert_string_equal(settings_of("backends:\n  x:\n    settings:\n"
                                  "      a: [+12, 007, -0, 12345678901234567890123, 0x1F, 0o17, 0xFFFFFFFFFFFFFFFFFF]\n"
                                  "      b: [.5, -.5, 1., +2.50, 1e5, 1.5E-07, 010.25]\n"
                                  "      c: [.inf, -.Inf, .NaN, 1e, 1.2.3, 0x, 0b101]\n",
                                  "x"),
                      "{\"a\":[12,7,-0,12345678901234567890123,31,15,\"0xFFFFFFFFFFFFFFFFFF\"],"
                      "\"b\":[0.5,-0.5,1.0,2.50,1e5,1.5E-07,10.25],"
                      "\"c\":[\".inf\",\"-.Inf\",\".NaN\",\"1e\",\"1.2.3\",\"0x\",\"0b101\"]}");
  assert_string_equal(settings_of("backends:\n  x:\n    settings: {}\n", "x"), "{}");
  assert_string_equal(settings_of("backends:\n  x:\n    settings:\n      s: \"caf\\u00e9 \\\"q\\\" \\\\\"\n", "x"),
                      "{\"s\":\"caf\xc3\xa9 \\\"q\\\" \\\\\"}");
  expect_error("backends:\n  x:\n    settings:\n      ? [a]\n      : 1\n",
               "config.yaml:4:9: a key must be a plain value, not a list");
  expect_error("backends:\n  x:\n    settings: {a: \"nul\\0here\"}\n",
               "config.yaml:3:19: a NUL character is not allowed in a value");
}

/* ------------------------------------------------------------------ merge */

static void test_merge_overrides(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  const char *first = "backend_path: [/a, /b]\n"
                      "default_backend: fake\n"
                      "require_isolation: gvisor\n"
                      "metadata: {max_age_days: 10, stale: unknown}\n"
                      "backends:\n"
                      "  docker:\n"
                      "    enabled: false\n"
                      "    expect_tier: gvisor\n"
                      "    sha256: " /* 64 x "a" */
                      "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"
                      "    settings: {image: one, keep: 1}\n"
                      "  fake: {enabled: true}\n"
                      "audit: {path: /log/a, on_failure: fail}\n";
  assert_int_equal(sbio__config_merge_buffer(&cfg, "first.yaml", first, strlen(first), err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 1);
  const char *second = "backend_path: [/c]\n"
                       "metadata: {stale: warn}\n"
                       "backends:\n"
                       "  docker:\n"
                       "    enabled: true\n"
                       "    settings: {image: two}\n"
                       "  e2b: {expect_tier: microvm}\n"
                       "audit: {path: /log/b}\n";
  assert_int_equal(sbio__config_merge_buffer(&cfg, "second.yaml", second, strlen(second), err), SBIO_OK);
  /* whole list replaced */
  assert_int_equal(cfg.n_backend_path, 1);
  assert_string_equal(cfg.backend_path[0], "/c");
  /* untouched scalars kept, touched ones replaced */
  assert_string_equal(cfg.default_backend, "fake");
  assert_int_equal(cfg.require_isolation, SBIO_TIER_GVISOR);
  assert_int_equal(cfg.max_age_days, 10);
  assert_int_equal(cfg.stale, SBIO__STALE_WARN);
  assert_string_equal(cfg.audit_path, "/log/b");
  assert_int_equal(cfg.audit_on_failure, SBIO__ON_FAILURE_FAIL);
  /* per backend, per field; settings as a whole */
  assert_int_equal(cfg.n_backends, 3);
  const sbio__backend_config *docker = sbio__config_backend(&cfg, "docker");
  assert_int_equal(docker->enabled, 1);
  assert_int_equal(docker->expect_tier_set, 1);
  assert_int_equal(docker->expect_tier, SBIO_TIER_GVISOR);
  assert_string_equal(docker->sha256, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  assert_string_equal(docker->settings_json, "{\"image\":\"two\"}");
  assert_string_equal(docker->where, "second.yaml:4:3");
  assert_int_equal(sbio__config_backend(&cfg, "fake")->enabled, 1);
  assert_string_equal(sbio__config_backend(&cfg, "fake")->where, "first.yaml:11:3");
  assert_int_equal(sbio__config_backend(&cfg, "e2b")->expect_tier, SBIO_TIER_MICROVM);
  assert_string_equal(cfg.backends[0].name, "docker");
  assert_string_equal(cfg.backends[1].name, "fake");
  assert_string_equal(cfg.backends[2].name, "e2b");
  assert_int_equal(cfg.n_files_read, 2);
  assert_string_equal(cfg.files_read[0], "first.yaml");
  assert_string_equal(cfg.files_read[1], "second.yaml");
  sbio__config_free(&cfg);
}

static void test_merge_is_atomic(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  expect_ok(&cfg, "backend_path: [/a]\ndefault_backend: fake\nbackends:\n  docker: {enabled: true}\n");
  /* everything valid except the very last line */
  assert_int_equal(merge_text(&cfg, "backend_path: [/b, /c]\n"
                                    "default_backend: docker\n"
                                    "require_isolation: microvm\n"
                                    "metadata: {max_age_days: 5}\n"
                                    "backends:\n"
                                    "  docker: {enabled: false, settings: {a: 1}}\n"
                                    "  e2b: {enabled: true}\n"
                                    "audit: {path: /x, on_failure: maybe}\n"),
                   SBIO_E_CONFIG);
  assert_string_equal(sbio_error_message(err),
                      "config.yaml:8:31: \"on_failure\" must be one of warn or fail, not \"maybe\"");
  assert_int_equal(cfg.n_backend_path, 1);
  assert_string_equal(cfg.backend_path[0], "/a");
  assert_string_equal(cfg.default_backend, "fake");
  assert_int_equal(cfg.require_isolation_set, 0);
  assert_int_equal(cfg.max_age_days, 92);
  assert_int_equal(cfg.n_backends, 1);
  assert_int_equal(sbio__config_backend(&cfg, "docker")->enabled, 1);
  assert_null(sbio__config_backend(&cfg, "docker")->settings_json);
  assert_null(cfg.audit_path);
  assert_int_equal(cfg.n_files_read, 1);
  /* a syntax error late in the file too */
  assert_int_equal(merge_text(&cfg, "default_backend: docker\nbackends: {\n"), SBIO_E_CONFIG);
  assert_string_equal(cfg.default_backend, "fake");
  assert_int_equal(cfg.n_files_read, 1);
  sbio__config_free(&cfg);
}

/* ----------------------------------------------------- refused YAML forms */

static void test_anchors_and_aliases(void **state) {
  (void)state;
  const char *expected_tail = "anchors and aliases (& and *) are not allowed in configuration files; write each "
                              "value out";
  char message[256];
  snprintf(message, sizeof message, "config.yaml:2:15: %s", expected_tail);
  expect_error("backends:\n  docker: {a: &x 1}\n", message);
  snprintf(message, sizeof message, "config.yaml:1:11: %s", expected_tail);
  expect_error("backends: &b\n  docker: {}\n", message);
  snprintf(message, sizeof message, "config.yaml:1:11: %s", expected_tail);
  expect_error("metadata: *x\n", message);
  /* billion laughs never gets past the first anchor */
  snprintf(message, sizeof message, "config.yaml:1:4: %s", expected_tail);
  expect_error("a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n", message);
}

static void test_tags(void **state) {
  (void)state;
  expect_error("backends:\n  docker:\n    settings: !custom {a: 1}\n",
               "config.yaml:3:15: tag \"!custom\" is not allowed here; only the standard tags !!str, !!int, !!float, "
               "!!bool, !!null, !!seq and !!map are");
  expect_error("backends:\n  docker:\n    settings: {a: !!binary aGVsbG8=}\n",
               "config.yaml:3:19: tag \"tag:yaml.org,2002:binary\" is not allowed here; only the standard tags !!str, "
               "!!int, !!float, !!bool, !!null, !!seq and !!map are");
  expect_error("metadata: !!seq {max_age_days: 3}\n",
               "config.yaml:1:11: tag \"tag:yaml.org,2002:seq\" is not allowed here; only the standard tags !!str, "
               "!!int, !!float, !!bool, !!null, !!seq and !!map are");
  expect_error("backends:\n  docker:\n    settings: {a: !!int twelve}\n",
               "config.yaml:3:19: the value does not match its tag !!int");
}

static void test_multiple_documents(void **state) {
  (void)state;
  expect_error("backends: {}\n---\nbackends: {}\n",
               "config.yaml:2:1: a configuration file holds a single YAML document; this starts a second one");
  expect_error("---\na: 1\n...\n---\n",
               "config.yaml:4:1: a configuration file holds a single YAML document; this starts a second one");
}

static void test_syntax_errors(void **state) {
  (void)state;
  expect_error("backends:\n  docker:\n    enabled: true\n   bad: x\n",
               "config.yaml:4:4: did not find expected key (while parsing a block mapping started at 2:3)");
  expect_error("backends: {docker: {enabled: true}\n",
               "config.yaml:2:1: did not find expected ',' or '}' (while parsing a flow mapping started at 1:11)");
  expect_error("a: \"unterminated\n",
               "config.yaml:2:1: found unexpected end of stream (while scanning a quoted scalar started at 1:4)");
  expect_error("a: b: c\n", "config.yaml:1:5: mapping values are not allowed in this context");
  expect_error("a:\n\tb: 1\n",
               "config.yaml:2:1: found character that cannot start any token (while scanning for the next token "
               "started at 2:1)");
  /* invalid UTF-8: libyaml reports a byte offset, shown as line:column */
  expect_error("a: 1\nb: \xff\n", "config.yaml:2:4: invalid leading UTF-8 octet (byte 0xff)");
  expect_error("a: \xc3\xa9\xef\xbf\xbe\n", "config.yaml:1:5: control characters are not allowed (character U+FFFE)");
  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_merge_buffer(&cfg, "nul.yaml", "a: 1\0b", 6, err), SBIO_E_CONFIG);
  assert_string_equal(sbio_error_message(err), "nul.yaml:1:5: control characters are not allowed (byte 0x00)");
  sbio__config_free(&cfg);
}

static void test_limits(void **state) {
  (void)state;
  /* 1 MiB + 1 byte of comment: refused before parsing */
  size_t big = ((size_t)1 << 20) + 1;
  char *text = malloc(big + 1);
  assert_non_null(text);
  memset(text, '#', big);
  text[big] = '\0';
  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_merge_buffer(&cfg, "big.yaml", text, big, err), SBIO_E_CONFIG);
  assert_string_equal(sbio_error_message(err),
                      "big.yaml: the file is 1048577 bytes; configuration files are limited to 1 MiB");
  /* exactly 1 MiB is fine */
  assert_int_equal(sbio__config_merge_buffer(&cfg, "max.yaml", text, big - 1, err), SBIO_OK);
  free(text);

  /* nesting: 64 levels pass, 65 do not */
  char deep[512];
  size_t o = (size_t)snprintf(deep, sizeof deep, "backends:\n  x:\n    settings:\n      a: ");
  for (int i = 0; i < 60; i++) deep[o++] = '[';
  for (int i = 0; i < 60; i++) deep[o++] = ']';
  deep[o++] = '\n';
  deep[o] = '\0';
  expect_ok(&cfg, deep);
  o = (size_t)snprintf(deep, sizeof deep, "backends:\n  x:\n    settings:\n      a: ");
  for (int i = 0; i < 61; i++) deep[o++] = '[';
  for (int i = 0; i < 61; i++) deep[o++] = ']';
  deep[o++] = '\n';
  deep[o] = '\0';
  expect_error(deep, "config.yaml:4:70: nesting deeper than 64 levels is not allowed");
  sbio__config_free(&cfg);
  char flood[200];
  memset(flood, '[', sizeof flood - 1);
  flood[sizeof flood - 1] = '\0';
  expect_error(flood, "config.yaml:1:65: nesting deeper than 64 levels is not allowed");
}

/* --------------------------------------------------------------- files */

static char tmp_root[64];

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

static void make_dir(const char *path) {
  assert_int_equal(mkdir(path, 0755), 0);
}

static int remove_tree(const char *path) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  return system(cmd);
}

static int setup_files(void **state) {
  (void)state;
  snprintf(tmp_root, sizeof tmp_root, "/tmp/sbio-test-config-XXXXXX");
  return mkdtemp(tmp_root) ? 0 : -1;
}

static int teardown_files(void **state) {
  (void)state;
  unsetenv("SBIO_CONFIG");
  return remove_tree(tmp_root);
}

static void test_layers(void **state) {
  (void)state;
  char sys[256], dir[300], confd[320], xdg[256], xdgdir[300];
  snprintf(sys, sizeof sys, "%s/etc", tmp_root);
  snprintf(dir, sizeof dir, "%s/sandboxio", sys);
  snprintf(confd, sizeof confd, "%s/conf.d", dir);
  snprintf(xdg, sizeof xdg, "%s/home-config", tmp_root);
  snprintf(xdgdir, sizeof xdgdir, "%s/sandboxio", xdg);
  make_dir(sys);
  make_dir(dir);
  make_dir(confd);
  make_dir(xdg);
  make_dir(xdgdir);
  write_file(dir, "config.yaml",
             "default_backend: docker\nmetadata: {max_age_days: 10}\nbackends:\n  docker: {expect_tier: gvisor}\n");
  /* written out of order: the merge order comes from the names */
  write_file(confd, "20-b.yaml", "metadata: {max_age_days: 20}\nbackends:\n  docker: {enabled: false}\n");
  write_file(confd, "10-a.yaml",
             "metadata: {max_age_days: 15, stale: unknown}\nbackends:\n  docker: {enabled: true}\n");
  write_file(confd, "30-ignored.yml", "this: is not loaded\n");
  write_file(confd, "README", "not yaml\n");
  char sub[400];
  snprintf(sub, sizeof sub, "%s/40-dir.yaml", confd);
  make_dir(sub); /* not a regular file: skipped */
  char dangling[400];
  snprintf(dangling, sizeof dangling, "%s/50-dangling.yaml", confd);
  assert_int_equal(symlink("/nonexistent/sbio.yaml", dangling), 0);
  write_file(xdgdir, "config.yaml", "default_backend: fake\n");

  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 4);
  char expect[512];
  snprintf(expect, sizeof expect, "%s/config.yaml", dir);
  assert_string_equal(cfg.files_read[0], expect);
  snprintf(expect, sizeof expect, "%s/10-a.yaml", confd);
  assert_string_equal(cfg.files_read[1], expect);
  snprintf(expect, sizeof expect, "%s/20-b.yaml", confd);
  assert_string_equal(cfg.files_read[2], expect);
  snprintf(expect, sizeof expect, "%s/config.yaml", xdgdir);
  assert_string_equal(cfg.files_read[3], expect);
  assert_string_equal(cfg.default_backend, "fake");
  assert_int_equal(cfg.max_age_days, 20);
  assert_int_equal(cfg.stale, SBIO__STALE_UNKNOWN);
  const sbio__backend_config *docker = sbio__config_backend(&cfg, "docker");
  assert_int_equal(docker->enabled_set, 1);
  assert_int_equal(docker->enabled, 0);
  assert_int_equal(docker->expect_tier, SBIO_TIER_GVISOR);
  snprintf(expect, sizeof expect, "%s/20-b.yaml:3:3", confd);
  assert_string_equal(docker->where, expect);
  sbio__config_free(&cfg);

  /* XDG_CONFIG_HOME is used when no xdg_home is given */
  setenv("XDG_CONFIG_HOME", xdg, 1);
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, NULL, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 4);
  assert_string_equal(cfg.default_backend, "fake");
  sbio__config_free(&cfg);
  /* a relative XDG_CONFIG_HOME is ignored; $HOME/.config is used */
  setenv("XDG_CONFIG_HOME", "relative/dir", 1);
  char home[300];
  snprintf(home, sizeof home, "%s/home", tmp_root);
  make_dir(home);
  snprintf(expect, sizeof expect, "%s/.config", home);
  make_dir(expect);
  assert_int_equal(symlink(xdgdir, strcat(expect, "/sandboxio")), 0);
  char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
  setenv("HOME", home, 1);
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, NULL, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 4);
  snprintf(expect, sizeof expect, "%s/.config/sandboxio/config.yaml", home);
  assert_string_equal(cfg.files_read[3], expect);
  sbio__config_free(&cfg);
  if (old_home)
    setenv("HOME", old_home, 1);
  else
    unsetenv("HOME");
  free(old_home);
  unsetenv("XDG_CONFIG_HOME");

  /* SBIO_CONFIG replaces every layer */
  char only[400];
  snprintf(only, sizeof only, "%s/only.yaml", tmp_root);
  write_file(tmp_root, "only.yaml", "default_backend: e2b\n");
  setenv("SBIO_CONFIG", only, 1);
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 1);
  assert_string_equal(cfg.files_read[0], only);
  assert_string_equal(cfg.default_backend, "e2b");
  assert_int_equal(cfg.max_age_days, 92);
  sbio__config_free(&cfg);
  /* ... and an explicit file replaces SBIO_CONFIG */
  snprintf(expect, sizeof expect, "%s/config.yaml", xdgdir);
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, expect, sys, xdg, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 1);
  assert_string_equal(cfg.default_backend, "fake");
  sbio__config_free(&cfg);
  /* a missing SBIO_CONFIG file is an error, not a fallback */
  snprintf(only, sizeof only, "%s/missing.yaml", tmp_root);
  setenv("SBIO_CONFIG", only, 1);
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_E_CONFIG);
  snprintf(expect, sizeof expect, "cannot read %s: No such file or directory", only);
  assert_string_equal(sbio_error_message(err), expect);
  sbio__config_free(&cfg);
  /* an empty SBIO_CONFIG means "not set" */
  setenv("SBIO_CONFIG", "", 1);
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 4);
  sbio__config_free(&cfg);
  unsetenv("SBIO_CONFIG");

  /* an error in one layer names that file */
  write_file(confd, "15-bad.yaml", "backends:\n  docker:\n    enabled: maybe\n");
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_E_CONFIG);
  snprintf(expect, sizeof expect, "%s/15-bad.yaml:3:14: \"enabled\" must be a boolean (true or false), not \"maybe\"",
           confd);
  assert_string_equal(sbio_error_message(err), expect);
  sbio__config_free(&cfg);
}

/* The fleet floor only rises from layer to layer: a package's drop-in or
 * the user's own file cannot replace the operator's floor with a weaker
 * one, and one that asks for more raises it. */
static void test_layers_never_lower_the_floor(void **state) {
  (void)state;
  char sys[256], dir[300], confd[320], xdg[256], xdgdir[300];
  snprintf(sys, sizeof sys, "%s/etc", tmp_root);
  snprintf(dir, sizeof dir, "%s/sandboxio", sys);
  snprintf(confd, sizeof confd, "%s/conf.d", dir);
  snprintf(xdg, sizeof xdg, "%s/home-config", tmp_root);
  snprintf(xdgdir, sizeof xdgdir, "%s/sandboxio", xdg);
  make_dir(sys);
  make_dir(dir);
  make_dir(confd);
  make_dir(xdg);
  make_dir(xdgdir);
  write_file(dir, "config.yaml", "require_isolation: gvisor\n");
  write_file(confd, "50-package.yaml", "require_isolation: container\n");
  write_file(xdgdir, "config.yaml", "require_isolation: Container\n");

  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 3);
  assert_int_equal(cfg.require_isolation_set, 1);
  assert_int_equal(cfg.require_isolation, SBIO_TIER_GVISOR);
  sbio__config_free(&cfg);

  /* a later layer that asks for more raises it */
  write_file(xdgdir, "config.yaml", "require_isolation: microvm\n");
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_OK);
  assert_int_equal(cfg.require_isolation, SBIO_TIER_MICROVM);
  sbio__config_free(&cfg);

  /* a floor set only by a later layer is taken as it is */
  write_file(dir, "config.yaml", "default_backend: fake\n");
  write_file(xdgdir, "config.yaml", "default_backend: fake\n");
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, xdg, err), SBIO_OK);
  assert_int_equal(cfg.require_isolation_set, 1);
  assert_int_equal(cfg.require_isolation, SBIO_TIER_CONTAINER);
  sbio__config_free(&cfg);
}

static void test_missing_and_unreadable(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  char path[400], expect[600];
  /* explicit file missing */
  snprintf(path, sizeof path, "%s/nope.yaml", tmp_root);
  assert_int_equal(sbio__config_load(&cfg, path, NULL, NULL, err), SBIO_E_CONFIG);
  snprintf(expect, sizeof expect, "cannot read %s: No such file or directory", path);
  assert_string_equal(sbio_error_message(err), expect);
  assert_int_equal(sbio__config_merge_file(&cfg, path, err), SBIO_E_CONFIG);
  assert_string_equal(sbio_error_message(err), expect);
  /* no layers at all: nothing read, defaults stay */
  snprintf(path, sizeof path, "%s/no-such-etc", tmp_root);
  assert_int_equal(sbio__config_load(&cfg, NULL, path, path, err), SBIO_OK);
  assert_int_equal(cfg.n_files_read, 0);
  /* an existing layer that cannot be read is an error (a directory here,
   * since root reads past file modes) */
  char sys[300], dir[360];
  snprintf(sys, sizeof sys, "%s/etc2", tmp_root);
  snprintf(dir, sizeof dir, "%s/sandboxio", sys);
  make_dir(sys);
  make_dir(dir);
  snprintf(path, sizeof path, "%s/config.yaml", dir);
  make_dir(path);
  assert_int_equal(sbio__config_load(&cfg, NULL, sys, path, err), SBIO_E_CONFIG);
  snprintf(expect, sizeof expect, "cannot read %s: Is a directory", path);
  assert_string_equal(sbio_error_message(err), expect);
  assert_int_equal(cfg.n_files_read, 0);
  sbio__config_free(&cfg);
}

static void test_file_limits(void **state) {
  (void)state;
  char path[400];
  snprintf(path, sizeof path, "%s/big.yaml", tmp_root);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  for (size_t i = 0; i < ((size_t)1 << 20) / 16 + 1; i++) fputs("# 13 bytes ....\n", f);
  fclose(f);
  sbio__config cfg;
  sbio__config_init(&cfg);
  assert_int_equal(sbio__config_merge_file(&cfg, path, err), SBIO_E_CONFIG);
  char expect[600];
  snprintf(expect, sizeof expect, "%s: the file is larger than 1 MiB; configuration files are limited to 1 MiB", path);
  assert_string_equal(sbio_error_message(err), expect);
  assert_int_equal(cfg.n_files_read, 0);
  sbio__config_free(&cfg);
}

static void test_example_config_is_valid(void **state) {
  (void)state;
  sbio__config cfg;
  sbio__config_init(&cfg);
  sbio_code rc = sbio__config_merge_file(&cfg, SBIO_TEST_SOURCE_DIR "/../docs/config.example.yaml", err);
  if (rc) print_error("%s\n", sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  /* the example shows every key */
  assert_int_equal(cfg.backend_path_set, 1);
  assert_non_null(cfg.default_backend);
  assert_int_equal(cfg.require_isolation_set, 1);
  assert_true(cfg.n_backends >= 2);
  assert_non_null(cfg.audit_path);
  const sbio__backend_config *docker = sbio__config_backend(&cfg, "docker");
  assert_non_null(docker);
  assert_non_null(docker->settings_json);
  int pinned = 0;
  for (size_t i = 0; i < cfg.n_backends; i++) pinned |= cfg.backends[i].sha256 != NULL;
  assert_true(pinned);
  sbio__config_free(&cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_every_key),
      cmocka_unit_test(test_other_valid_spellings),
      cmocka_unit_test(test_empty_documents),
      cmocka_unit_test(test_standard_tags),
      cmocka_unit_test(test_wrong_types),
      cmocka_unit_test(test_strict_booleans),
      cmocka_unit_test(test_unknown_keys),
      cmocka_unit_test(test_duplicate_keys),
      cmocka_unit_test(test_invalid_enums),
      cmocka_unit_test(test_paths),
      cmocka_unit_test(test_sha256),
      cmocka_unit_test(test_backend_names),
      cmocka_unit_test(test_secrets_not_echoed),
      cmocka_unit_test(test_settings_json),
      cmocka_unit_test(test_merge_overrides),
      cmocka_unit_test(test_merge_is_atomic),
      cmocka_unit_test(test_anchors_and_aliases),
      cmocka_unit_test(test_tags),
      cmocka_unit_test(test_multiple_documents),
      cmocka_unit_test(test_syntax_errors),
      cmocka_unit_test(test_limits),
      cmocka_unit_test_setup_teardown(test_layers, setup_files, teardown_files),
      cmocka_unit_test_setup_teardown(test_layers_never_lower_the_floor, setup_files, teardown_files),
      cmocka_unit_test_setup_teardown(test_missing_and_unreadable, setup_files, teardown_files),
      cmocka_unit_test_setup_teardown(test_file_limits, setup_files, teardown_files),
      cmocka_unit_test(test_example_config_is_valid),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
