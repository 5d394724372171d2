/* SPDX-License-Identifier: MIT */
/* The target URI grammar: strict, with the reference's error cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "uri.h"

static sbio_code parse(const char *text, sbio__uri *u, sbio_error *err) {
  return sbio__uri_parse(text, u, err);
}

static void test_valid_forms(void **state) {
  (void)state;
  sbio__uri u;
  assert_int_equal(parse("fake://", &u, NULL), SBIO_OK);
  assert_string_equal(u.backend, "fake");
  assert_null(u.template_name);
  assert_false(u.has_timeout);
  sbio__uri_free(&u);

  assert_int_equal(parse("docker://python:3.12-slim", &u, NULL), SBIO_OK);
  assert_string_equal(u.backend, "docker");
  assert_string_equal(u.template_name, "python:3.12-slim");
  sbio__uri_free(&u);

  assert_int_equal(parse("e2b://code-interpreter-v1?timeout=600", &u, NULL), SBIO_OK);
  assert_string_equal(u.template_name, "code-interpreter-v1");
  assert_true(u.has_timeout);
  assert_true(u.timeout_s == 600.0);
  sbio__uri_free(&u);

  assert_int_equal(parse("fake://?timeout=86400", &u, NULL), SBIO_OK); /* the maximum itself */
  assert_true(u.timeout_s == SBIO_MAX_TIMEOUT_S);
  sbio__uri_free(&u);

  assert_int_equal(parse("my_backend://tpl/with/path?timeout=0.5", &u, NULL), SBIO_OK);
  assert_string_equal(u.template_name, "tpl/with/path");
  assert_true(u.timeout_s == 0.5);
  sbio__uri_free(&u);
}

static void expect_config_error(const char *text, const char *message_part) {
  sbio_error *err = sbio_error_new();
  sbio__uri u;
  assert_int_equal(parse(text, &u, err), SBIO_E_CONFIG);
  assert_int_equal(sbio_error_code(err), SBIO_E_CONFIG);
  if (!strstr(sbio_error_message(err), message_part))
    fail_msg("\"%s\": message \"%s\" lacks \"%s\"", text, sbio_error_message(err), message_part);
  assert_true(sbio_error_hint(err)[0] != '\0');
  sbio_error_free(err);
}

static void test_refusals(void **state) {
  (void)state;
  expect_config_error("", "empty");
  expect_config_error("docker", "no \"://\"");
  expect_config_error("Docker://x", "invalid backend name");
  expect_config_error("1abc://x", "invalid backend name");
  expect_config_error("://x", "invalid backend name");
  expect_config_error("fake://x#frag", "fragment");
  expect_config_error("fake://?timeout=1&timeout=2", "repeated");
  expect_config_error("fake://?gpu=a100", "unknown URI parameter \"gpu\"");
  expect_config_error("fake://?timeout=abc", "not a positive number");
  expect_config_error("fake://?timeout=0", "not a positive number");
  expect_config_error("fake://?timeout=-5", "not a positive number");
  expect_config_error("fake://?timeout=inf", "not a positive number");
  expect_config_error("fake://?timeout=", "not a positive number");
  /* One maximum, SBIO_MAX_TIMEOUT_S (24 h): above it is refused, not clamped. */
  expect_config_error("fake://?timeout=86400.5", "above the maximum of 86400 seconds");
  expect_config_error("fake://?timeout=99999999999999999999", "above the maximum of 86400 seconds");
  expect_config_error("fake://?timeout=1e300", "above the maximum of 86400 seconds");
  expect_config_error("fake://?", "empty query");
  expect_config_error("fake://?timeout=1&", "empty parameter");
  expect_config_error("fake://a b", "whitespace");
}

static void test_credentials_are_refused_without_echoing_them(void **state) {
  (void)state;
  const char *keys[] = {"token",    "api_key", "API-KEY",    "apikey",      "secret",
                        "password", "passwd",  "credential", "MyAuthHeader"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    char uri[128];
    snprintf(uri, sizeof uri, "e2b://tpl?%s=sk-live-canary-123", keys[i]);
    sbio_error *err = sbio_error_new();
    sbio__uri u;
    assert_int_equal(parse(uri, &u, err), SBIO_E_CONFIG);
    assert_null(strstr(sbio_error_message(err), "sk-live-canary-123"));
    assert_null(strstr(sbio_error_hint(err), "sk-live-canary-123"));
    assert_non_null(strstr(sbio_error_message(err), "credential"));
    assert_non_null(strstr(sbio_error_hint(err), "E2B_API_KEY"));
    sbio_error_free(err);
  }
  sbio_error *err = sbio_error_new();
  sbio__uri u;
  assert_int_equal(parse("acme://tpl?token=x", &u, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_hint(err), "environment"));
  sbio_error_free(err);
}

/* The message and hint of a refusal of `text`, which must hold neither
 * `secret` nor the whole target. */
static void expect_refused_quietly(const char *text, const char *secret, const char *hint_part) {
  sbio_error *err = sbio_error_new();
  sbio__uri u;
  assert_int_equal(parse(text, &u, err), SBIO_E_CONFIG);
  if (strstr(sbio_error_message(err), secret) || strstr(sbio_error_hint(err), secret))
    fail_msg("\"%s\": the refusal echoes \"%s\": %s / %s", text, secret, sbio_error_message(err), sbio_error_hint(err));
  if (hint_part && !strstr(sbio_error_hint(err), hint_part))
    fail_msg("\"%s\": hint \"%s\" lacks \"%s\"", text, sbio_error_hint(err), hint_part);
  sbio_error_free(err);
}

static void test_userinfo_is_refused_without_echoing_it(void **state) {
  (void)state;
  expect_refused_quietly("docker://user:SECRET@img", "SECRET", "credentials");
  expect_refused_quietly("e2b://user:SECRET@base", "SECRET", "E2B_API_KEY");
  expect_refused_quietly("daytona://user:SECRET@snap", "SECRET", "DAYTONA_API_KEY");
  expect_refused_quietly("docker://user:SECRET@registry:5000/team/img:1", "SECRET", NULL);
  expect_refused_quietly("docker://u:pa/SECRET@img", "SECRET", NULL); /* a '/' in the password */
  expect_refused_quietly("docker://SECRET@img", "SECRET", NULL);
  expect_refused_quietly("docker://u:SECRET@img@sha256:0123456789abcdef0123456789abcdef", "SECRET", NULL);
  expect_refused_quietly("e2b://user:SECRET@base?timeout=5", "SECRET", "E2B_API_KEY");
  sbio_error *err = sbio_error_new();
  sbio__uri u;
  assert_int_equal(parse("e2b://user:SECRET@base", &u, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "userinfo"));
  sbio_error_free(err);
  /* A digest is the one legitimate '@'. */
  const char *digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  char uri[256];
  snprintf(uri, sizeof uri, "docker://python:3.12@%s", digest);
  assert_int_equal(parse(uri, &u, NULL), SBIO_OK);
  sbio__uri_free(&u);
  snprintf(uri, sizeof uri, "docker://registry:5000/team/img@%s?timeout=9", digest);
  assert_int_equal(parse(uri, &u, NULL), SBIO_OK);
  assert_true(strstr(u.template_name, digest) != NULL);
  sbio__uri_free(&u);
}

static void test_refusals_never_echo_what_they_refuse(void **state) {
  (void)state;
  expect_refused_quietly("e2b:/base?api_key=SECRET", "SECRET", NULL);
  expect_refused_quietly("e2b:/base?api_key=SECRET", "base", NULL);
  expect_refused_quietly("e2b://base?e2b_SECRET", "e2b_SECRET", "E2B_API_KEY");
  expect_refused_quietly("e2b://base?e2b_0123456789abcdef0123456789abcdef01234567",
                         "0123456789abcdef0123456789abcdef01234567", NULL);
  expect_refused_quietly("e2b://base?timeout=1&e2b_0123456789abcdef", "0123456789abcdef", NULL);
  expect_refused_quietly("fake://?timeout=SECRET", "SECRET", NULL);
  /* What is safe to name is still named. */
  sbio_error *err = sbio_error_new();
  sbio__uri u;
  assert_int_equal(parse("e2b:/base", &u, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "e2b://"));
  sbio_error_free(err);
}

static const char *acme_var(void *user, const char *backend) {
  (void)user;
  return strcmp(backend, "acme") == 0 ? "ACME_API_KEY" : NULL;
}

/* A third-party backend's hint names the variable its note declares (the
 * host looks it up); first-party backends keep theirs without one. */
static void test_hints_name_the_declared_variable(void **state) {
  (void)state;
  sbio__uri_ctx ctx = {acme_var, NULL};
  const char *uris[] = {"acme://u:SECRET@tpl", "acme://tpl?token=SECRET", "e2b://u:SECRET@base"};
  const char *vars[] = {"ACME_API_KEY", "ACME_API_KEY", "E2B_API_KEY"};
  for (size_t i = 0; i < 3; i++) {
    sbio_error *err = sbio_error_new();
    sbio__uri u;
    assert_int_equal(sbio__uri_parse_ex(uris[i], &u, &ctx, err), SBIO_E_CONFIG);
    if (!strstr(sbio_error_hint(err), vars[i]))
      fail_msg("%s: hint \"%s\" lacks %s", uris[i], sbio_error_hint(err), vars[i]);
    assert_null(strstr(sbio_error_message(err), "SECRET"));
    sbio_error_free(err);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_forms),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_credentials_are_refused_without_echoing_them),
      cmocka_unit_test(test_userinfo_is_refused_without_echoing_it),
      cmocka_unit_test(test_refusals_never_echo_what_they_refuse),
      cmocka_unit_test(test_hints_name_the_declared_variable),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
