/* SPDX-License-Identifier: MIT */
/* Redaction: every known secret becomes "***", longest first, and nothing
 * else changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "redact.h"

static void test_replaces_every_occurrence(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  assert_int_equal(sbio__redactor_add(&r, "s3cr3t"), 0);
  char *out = sbio__redact(&r, "a s3cr3t and s3cr3ts3cr3t end");
  assert_string_equal(out, "a *** and ****** end");
  free(out);
  sbio__redactor_free(&r);
}

static void test_longest_secret_wins(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  sbio__redactor_add(&r, "abc");
  sbio__redactor_add(&r, "abcdef");
  sbio__redactor_add(&r, "");    /* ignored */
  sbio__redactor_add(&r, "abc"); /* duplicate */
  assert_int_equal(r.n, 2);
  char *out = sbio__redact(&r, "xabcdefx abc");
  assert_string_equal(out, "x***x ***");
  free(out);
  sbio__redactor_free(&r);
}

static void test_secret_that_looks_like_the_marker(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  sbio__redactor_add(&r, "*");
  char *out = sbio__redact(&r, "a*b");
  assert_string_equal(out, "a***b");
  free(out);
  sbio__redactor_free(&r);
}

static void test_credential_keys(void **state) {
  (void)state;
  assert_true(sbio__looks_like_credential_key("GITHUB_TOKEN"));
  assert_true(sbio__looks_like_credential_key("db_password"));
  assert_true(sbio__looks_like_credential_key("X-Api-Key"));
  assert_true(sbio__looks_like_credential_key("AUTHORIZATION"));
  assert_false(sbio__looks_like_credential_key("PATH"));
  assert_false(sbio__looks_like_credential_key("HOME"));
  assert_false(sbio__looks_like_credential_key(NULL));
}

static void test_error_redaction(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  sbio__redactor_add(&r, "hunter2");
  sbio_error *err = sbio_error_new();
  sbio__error_set(err, SBIO_E_AUTH, "token hunter2 rejected", "provider said hunter2 is wrong");
  sbio__error_redact(err, &r);
  assert_string_equal(sbio_error_message(err), "provider said *** is wrong");
  assert_string_equal(sbio_error_hint(err), "token *** rejected");
  sbio_error_free(err);
  sbio__redactor_free(&r);
}

static void expect_redacted(const char *const *secrets, const char *text, const char *want) {
  sbio__redactor r;
  sbio__redactor_init(&r);
  for (size_t i = 0; secrets[i]; i++) assert_int_equal(sbio__redactor_add(&r, secrets[i]), 0);
  char *out = sbio__redact(&r, text);
  if (strcmp(out, want) != 0) fail_msg("\"%s\" -> \"%s\", want \"%s\"", text, out, want);
  free(out);
  sbio__redactor_free(&r);
}

/* Adjacent and overlapping secrets: each position takes the longest
 * secret that starts there, and the scan resumes after it. */
static void test_adjacent_and_overlapping_secrets(void **state) {
  (void)state;
  expect_redacted((const char *[]){"abc", NULL}, "abcabc", "******");
  expect_redacted((const char *[]){"abc", NULL}, "xabcabcx", "x******x");
  expect_redacted((const char *[]){"abc", "bcd", NULL}, "abcd", "***d");
  expect_redacted((const char *[]){"abc", "bcd", NULL}, "xbcdabc", "x******");
  expect_redacted((const char *[]){"aa", NULL}, "aaa", "***a");
  expect_redacted((const char *[]){"aa", NULL}, "aaaa", "******");
  expect_redacted((const char *[]){"ab", "abcd", "cd", NULL}, "abcdcd", "******");
  expect_redacted((const char *[]){"ab", "abcd", NULL}, "abcab", "***c***");
  expect_redacted((const char *[]){"k", NULL}, "kkk", "*********");
  expect_redacted((const char *[]){"secret", NULL}, "secre", "secre");                        /* a prefix at the end */
  expect_redacted((const char *[]){"secret", NULL}, "", "");                                  /* nothing to do */
  expect_redacted((const char *[]){"\xc3\xa9t\xc3\xa9", NULL}, "\xc3\xa9t\xc3\xa9!", "***!"); /* bytes >= 0x80 */
  expect_redacted((const char *[]){NULL}, "untouched", "untouched");
}

/* The plain left-to-right replacement the one-pass version must equal. */
static char *reference_redact(const char *const *secrets, size_t n, const char *text) {
  char *out = malloc(strlen(text) * 3 + 1);
  size_t len = 0;
  for (const char *p = text; *p;) {
    size_t match = 0;
    for (size_t i = 0; i < n && !match; i++)
      if (strncmp(p, secrets[i], strlen(secrets[i])) == 0) match = strlen(secrets[i]);
    if (match) {
      memcpy(out + len, "***", 3);
      len += 3;
      p += match;
    } else {
      out[len++] = *p++;
    }
  }
  out[len] = '\0';
  return out;
}

/* Many texts over a small alphabet, so secrets overlap, repeat and abut
 * all the time: the one-pass result equals the reference. The generator
 * is seeded: the same cases every run. */
static void test_one_pass_equals_the_reference(void **state) {
  (void)state;
  unsigned seed = 12345;
  for (int round = 0; round < 2000; round++) {
    char pool[6][8], text[64];
    sbio__redactor r;
    sbio__redactor_init(&r);
    size_t n = (size_t)(rand_r(&seed) % 6);
    for (size_t i = 0; i < n; i++) {
      size_t len = 1 + (size_t)(rand_r(&seed) % 6);
      for (size_t j = 0; j < len; j++) pool[i][j] = (char)('a' + rand_r(&seed) % 3);
      pool[i][len] = '\0';
      sbio__redactor_add(&r, pool[i]);
    }
    size_t tlen = (size_t)(rand_r(&seed) % (sizeof text));
    for (size_t j = 0; j < tlen; j++) text[j] = (char)('a' + rand_r(&seed) % 3);
    text[tlen] = '\0';
    char *want = reference_redact((const char *const *)r.secrets, r.n, text);
    char *got = sbio__redact(&r, text);
    char *with = sbio__redact_with((const char *const *)r.secrets, r.n, text);
    if (strcmp(got, want) != 0 || strcmp(with, want) != 0)
      fail_msg("round %d: \"%s\" -> \"%s\" / \"%s\", want \"%s\"", round, text, got, with, want);
    free(want);
    free(got);
    free(with);
    sbio__redactor_free(&r);
  }
}

/* The redactor keeps each secret's length beside it and a table of first
 * bytes; a text none of whose bytes begins a secret is copied whole. */
static void test_redactor_keeps_lengths_and_first_bytes(void **state) {
  (void)state;
  sbio__redactor r;
  sbio__redactor_init(&r);
  sbio__redactor_add(&r, "xy");
  sbio__redactor_add(&r, "token-123");
  sbio__redactor_add(&r, "xy"); /* duplicate */
  assert_int_equal(r.n, 2);
  assert_string_equal(r.secrets[0], "token-123");
  assert_int_equal(r.lens[0], 9);
  assert_int_equal(r.lens[1], 2);
  assert_true(r.first['t'] && r.first['x']);
  assert_false(r.first['a']);
  sbio__redactor_free(&r);
  /* Empty entries in an explicit list are ignored, never matched. */
  char *out = sbio__redact_with((const char *const[]){"", "ab"}, 2, "xaby");
  assert_string_equal(out, "x***y");
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_replaces_every_occurrence),
      cmocka_unit_test(test_longest_secret_wins),
      cmocka_unit_test(test_secret_that_looks_like_the_marker),
      cmocka_unit_test(test_credential_keys),
      cmocka_unit_test(test_error_redaction),
      cmocka_unit_test(test_adjacent_and_overlapping_secrets),
      cmocka_unit_test(test_one_pass_equals_the_reference),
      cmocka_unit_test(test_redactor_keeps_lengths_and_first_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
