/* SPDX-License-Identifier: MIT */
/* SDK secrets: the backend's own set, the host's redactor, credentials
 * from the environment, logging. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_host.h"

#include <sandboxio/sdk.h>
#include <stdlib.h>
#include <string.h>

static void redact_own_and_host(void **state) {
  (void)state;
  test_host h;
  test_host_init(&h);
  sbio_sdk_secrets *s = sbio_sdk_secrets_new();
  assert_non_null(s);
  assert_int_equal(sbio_sdk_secrets_add(s, "abc"), 0);
  assert_int_equal(sbio_sdk_secrets_add(s, "abcdef"), 0);
  assert_int_equal(sbio_sdk_secrets_add(s, ""), 0); /* ignored */
  assert_int_equal(sbio_sdk_secrets_add(s, NULL), 0);
  assert_int_equal(sbio_sdk_secrets_add(s, "abc"), 0); /* once */
  char *out = sbio_sdk_redact(&h.services, s, "key=abcdef, short=abc, host=hostsecret, x=ab");
  assert_string_equal(out, "key=***, short=***, host=***, x=ab");
  free(out);
  /* Without a host, only the backend's own. */
  out = sbio_sdk_redact(NULL, s, "abcdef hostsecret");
  assert_string_equal(out, "*** hostsecret");
  free(out);
  /* Without either, a copy. */
  out = sbio_sdk_redact(NULL, NULL, "plain");
  assert_string_equal(out, "plain");
  free(out);
  out = sbio_sdk_redact(NULL, NULL, NULL);
  assert_string_equal(out, "");
  free(out);
  /* The host could not redact: nothing is returned, not the raw text. */
  h.fail_redact = 1;
  assert_null(sbio_sdk_redact(&h.services, s, "hostsecret"));
  sbio_sdk_secrets_free(s);
  sbio_sdk_secrets_free(NULL);
}

static void redact_error_in_place(void **state) {
  (void)state;
  test_host h;
  test_host_init(&h);
  sbio_sdk_secrets *s = sbio_sdk_secrets_new();
  sbio_sdk_secrets_add(s, "tok-123");
  sbio_bk_error err = {.size = sizeof err, .code = SBIO_E_AUTH};
  strcpy(err.message, "acme: token tok-123 refused (hostsecret)");
  strcpy(err.hint, "check tok-123");
  sbio_sdk_redact_error(&h.services, s, &err);
  assert_string_equal(err.message, "acme: token *** refused (***)");
  assert_string_equal(err.hint, "check ***");
  assert_int_equal(err.code, SBIO_E_AUTH);
  /* Unterminated buffers are not read past their end. */
  memset(err.message, 'x', sizeof err.message);
  memset(err.hint, 'y', sizeof err.hint);
  sbio_sdk_redact_error(&h.services, s, &err);
  assert_int_equal(strlen(err.message), sizeof err.message - 1);
  /* When redaction fails, the text is withheld. */
  h.fail_redact = 1;
  strcpy(err.message, "hostsecret");
  strcpy(err.hint, "hostsecret");
  sbio_sdk_redact_error(&h.services, s, &err);
  assert_null(strstr(err.message, "hostsecret"));
  assert_non_null(strstr(err.message, "withheld"));
  assert_string_equal(err.hint, "");
  sbio_sdk_redact_error(&h.services, s, NULL);
  sbio_sdk_secrets_free(s);
}

static void credential_from_env(void **state) {
  (void)state;
  sbio_sdk_secrets *s = sbio_sdk_secrets_new();
  sbio_bk_error err = {.size = sizeof err};
  char *key = NULL;
  unsetenv("SBIO_SDK_TEST_KEY");
  assert_int_equal(sbio_sdk_secret_from_env(s, "acme", "SBIO_SDK_TEST_KEY", &key, &err), SBIO_E_AUTH);
  assert_null(key);
  assert_string_equal(err.message, "acme: no credential: the environment variable SBIO_SDK_TEST_KEY is not set");
  assert_non_null(strstr(err.hint, "export SBIO_SDK_TEST_KEY="));
  setenv("SBIO_SDK_TEST_KEY", "", 1);
  assert_int_equal(sbio_sdk_secret_from_env(s, "acme", "SBIO_SDK_TEST_KEY", &key, &err), SBIO_E_AUTH);
  assert_non_null(strstr(err.message, "is empty"));
  setenv("SBIO_SDK_TEST_KEY", "sk-live-42", 1);
  assert_int_equal(sbio_sdk_secret_from_env(s, "acme", "SBIO_SDK_TEST_KEY", &key, &err), SBIO_OK);
  assert_string_equal(key, "sk-live-42");
  /* From now on the value is redacted. */
  char *out = sbio_sdk_redact(NULL, s, "Authorization: Bearer sk-live-42");
  assert_string_equal(out, "Authorization: Bearer ***");
  free(out);
  /* A NULL set is allowed (the caller keeps the value secret itself). */
  assert_int_equal(sbio_sdk_secret_from_env(NULL, "acme", "SBIO_SDK_TEST_KEY", &key, &err), SBIO_OK);
  free(key);
  unsetenv("SBIO_SDK_TEST_KEY");
  sbio_sdk_secrets_free(s);
}

/* A variable named by a setting: the default is named as ever; another
 * name is repeated only once its variable is set, since the setting may
 * hold the key itself, and until then it is one of the backend's secrets. */
static void credential_from_setting(void **state) {
  (void)state;
  static const char *const pasted = "acme_5ecretPastedWhereTheNameGoes42";
  sbio_sdk_secrets *s = sbio_sdk_secrets_new();
  sbio_bk_error err = {.size = sizeof err};
  char *key = NULL;
  unsetenv("SBIO_SDK_TEST_KEY");
  unsetenv(pasted);
  assert_int_equal(
      sbio_sdk_secret_from_setting(s, "acme", "api_key_env", "SBIO_SDK_TEST_KEY", "SBIO_SDK_TEST_KEY", &key, &err),
      SBIO_E_AUTH);
  assert_string_equal(err.message, "acme: no credential: the environment variable SBIO_SDK_TEST_KEY is not set");
  assert_int_equal(sbio_sdk_secret_from_setting(s, "acme", "api_key_env", pasted, "SBIO_SDK_TEST_KEY", &key, &err),
                   SBIO_E_AUTH);
  assert_null(key);
  assert_string_equal(err.message,
                      "acme: no credential: the environment variable that settings.api_key_env names is not set");
  assert_null(strstr(err.hint, pasted));
  char *out = sbio_sdk_redact(NULL, s, pasted);
  assert_string_equal(out, "***");
  free(out);
  setenv("SBIO_SDK_TEST_OTHER", "", 1);
  assert_int_equal(
      sbio_sdk_secret_from_setting(s, "acme", "api_key_env", "SBIO_SDK_TEST_OTHER", "SBIO_SDK_TEST_KEY", &key, &err),
      SBIO_E_AUTH);
  assert_non_null(strstr(err.message, "settings.api_key_env names is empty"));
  /* Set: a variable's name, read like any other. */
  setenv("SBIO_SDK_TEST_OTHER", "sk-other-43", 1);
  assert_int_equal(
      sbio_sdk_secret_from_setting(s, "acme", "api_key_env", "SBIO_SDK_TEST_OTHER", "SBIO_SDK_TEST_KEY", &key, &err),
      SBIO_OK);
  assert_string_equal(key, "sk-other-43");
  free(key);
  unsetenv("SBIO_SDK_TEST_OTHER");
  sbio_sdk_secrets_free(s);
}

/* A credential that travels in a header: visible ASCII only, and no
 * longer than the backend allows. Anything else is SBIO_E_AUTH naming the
 * variable and the kind of fault, never the value. */
static void credential_for_a_header(void **state) {
  (void)state;
  static const struct {
    const char *value, *why;
  } bad[] = {
      {"sk-ab\ncd", "it contains a control character (such as a line break)"},
      {"sk-abcd\r", "it contains a control character"},
      {"sk-ab\tcd", "it contains a control character"},
      {"sk-ab\x7f"
       "cd",
       "it contains a control character"},
      {"sk-ab\x01"
       "cd",
       "it contains a control character"},
      {"sk-ab\xc3\xa9"
       "cd",
       "it contains a byte that is not ASCII"},
      {"sk-ab cd", "it contains a space"},
      {"sk-abcdefgh", "it is longer than 10 bytes"},
      {"", "it is empty"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    sbio_bk_error err = {.size = sizeof err};
    assert_int_equal(sbio_sdk_secret_check_header("acme", "ACME_KEY", bad[i].value, 10, &err), SBIO_E_AUTH);
    if (!strstr(err.message, bad[i].why)) fail_msg("case %zu: '%s' lacks '%s'", i, err.message, bad[i].why);
    assert_non_null(strstr(err.message, "acme: the value of ACME_KEY cannot be sent in a request header"));
    assert_non_null(strstr(err.hint, "export ACME_KEY="));
    if (bad[i].value[0]) {
      assert_null(strstr(err.message, bad[i].value));
      assert_null(strstr(err.message, "sk-"));
      assert_null(strstr(err.hint, "sk-"));
    }
  }
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_secret_check_header("acme", "ACME_KEY", "sk-live_42.A~b+c/d=", 0, &err), SBIO_OK);
  assert_int_equal(sbio_sdk_secret_check_header("acme", "ACME_KEY", "0123456789", 10, &err), SBIO_OK);
}

/* A provider's text is redacted over its whole length before it is cut:
 * a secret the cut falls inside goes whole, the host's secrets too; control
 * characters become spaces; the cut keeps UTF-8 characters whole. */
static void provider_text_is_redacted_before_the_cut(void **state) {
  (void)state;
  test_host h;
  test_host_init(&h);
  sbio_sdk_secrets *s = sbio_sdk_secrets_new();
  sbio_sdk_secrets_add(s, "sk-own-0123456789");
  char buf[16];
  const char *text = "bad key sk-own-0123456789 here";
  sbio_sdk_quote_provider(&h.services, s, text, strlen(text), buf, sizeof buf);
  assert_string_equal(buf, "bad key *** her");
  text = "host hostsecret";
  sbio_sdk_quote_provider(&h.services, s, text, strlen(text), buf, 12);
  assert_string_equal(buf, "host ***");
  text = "a\nb\x01"
         "c\xc3\xa9\xc3\xa9";
  sbio_sdk_quote_provider(NULL, NULL, text, strlen(text), buf, 8);
  assert_string_equal(buf, "a b c\xc3\xa9");
  sbio_sdk_quote_provider(NULL, NULL, NULL, 0, buf, sizeof buf);
  assert_string_equal(buf, "");
  sbio_sdk_secrets_free(s);
}

static void log_is_redacted(void **state) {
  (void)state;
  test_host h;
  test_host_init(&h);
  sbio_sdk_secrets *s = sbio_sdk_secrets_new();
  sbio_sdk_secrets_add(s, "pw-9");
  sbio_sdk_log(&h.services, s, SBIO_BK_LOG_WARN, "login with %s failed %d times", "pw-9", 3);
  assert_string_equal(h.log, "30:login with *** failed 3 times\n");
  sbio_sdk_log(NULL, s, SBIO_BK_LOG_WARN, "nowhere"); /* no host: nothing, no crash */
  char big[3000];
  memset(big, 'z', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  h.log[0] = '\0';
  sbio_sdk_log(&h.services, NULL, SBIO_BK_LOG_DEBUG, "%s", big);
  assert_true(strlen(h.log) < 1100); /* cut at 1 KiB */
  sbio_sdk_secrets_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(redact_own_and_host),     cmocka_unit_test(redact_error_in_place),
      cmocka_unit_test(credential_from_env),     cmocka_unit_test(credential_from_setting),
      cmocka_unit_test(credential_for_a_header), cmocka_unit_test(provider_text_is_redacted_before_the_cut),
      cmocka_unit_test(log_is_redacted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
