/* SPDX-License-Identifier: MIT */
/* SDK settings reader: types, ranges, nesting, unknown and duplicate keys,
 * and messages that name the key but never the value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sandboxio/sdk.h>
#include <stdlib.h>
#include <string.h>

static sbio_sdk_settings *parse_ok(const char *json) {
  sbio_sdk_settings *s = NULL;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_settings_parse(json, "acme", "see the acme README", &s, &err), SBIO_OK);
  assert_non_null(s);
  return s;
}

/* Asserts a CONFIG error whose message is exactly `message`. */
static void assert_config(int rc, const sbio_bk_error *err, const char *message) {
  assert_int_equal(rc, SBIO_E_CONFIG);
  assert_int_equal(err->code, SBIO_E_CONFIG);
  assert_string_equal(err->message, message);
  assert_string_equal(err->hint, "see the acme README");
}

static void empty_documents(void **state) {
  (void)state;
  const char *docs[] = {NULL, "{}", "null", " { } "};
  for (size_t i = 0; i < 4; i++) {
    sbio_sdk_settings *s = parse_ok(docs[i]);
    sbio_bk_error err = {.size = sizeof err};
    char *region = NULL;
    assert_int_equal(sbio_sdk_settings_string(s, "region", 0, &region, &err), SBIO_OK);
    assert_null(region);
    assert_false(sbio_sdk_settings_has(s, "region"));
    assert_int_equal(sbio_sdk_settings_finish(s, &err), SBIO_OK);
    sbio_sdk_settings_free(s);
  }
}

static void bad_documents(void **state) {
  (void)state;
  sbio_sdk_settings *s = (sbio_sdk_settings *)(void *)&s; /* must come back NULL */
  sbio_bk_error err = {.size = sizeof err};
  assert_config(sbio_sdk_settings_parse("{\"a\":", "acme", "see the acme README", &s, &err), &err,
                "acme settings are not valid JSON");
  assert_null(s);
  assert_config(sbio_sdk_settings_parse("[1,2]", "acme", "see the acme README", &s, &err), &err,
                "acme settings must be a mapping of keys to values");
  assert_config(sbio_sdk_settings_parse("{} trailing", "acme", "see the acme README", &s, &err), &err,
                "acme settings are not valid JSON");
  /* Without a hint, a generic one. */
  assert_int_equal(sbio_sdk_settings_parse("7", "acme", NULL, &s, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.hint, "settings"));
}

static void strings(void **state) {
  (void)state;
  sbio_sdk_settings *s =
      parse_ok("{\"region\":\"eu-west\",\"empty\":\"\",\"multi\":\"a\\nb\",\"num\":12345,\"nul\":null}");
  sbio_bk_error err = {.size = sizeof err};
  char *v = strdup("default");
  assert_int_equal(sbio_sdk_settings_string(s, "region", SBIO_SDK_NONEMPTY | SBIO_SDK_ONELINE, &v, &err), SBIO_OK);
  assert_string_equal(v, "eu-west");
  assert_int_equal(sbio_sdk_settings_string(s, "nul", 0, &v, &err), SBIO_OK); /* null: absent */
  assert_string_equal(v, "eu-west");
  assert_int_equal(sbio_sdk_settings_string(s, "multi", 0, &v, &err), SBIO_OK);
  assert_string_equal(v, "a\nb");
  assert_int_equal(sbio_sdk_settings_string(s, "empty", 0, &v, &err), SBIO_OK);
  assert_string_equal(v, "");
  free(v);
  sbio_sdk_settings_free(s);

  struct {
    const char *key;
    unsigned flags;
    const char *message;
  } cases[] = {
      {"empty", SBIO_SDK_NONEMPTY, "acme settings: 'empty' must not be empty"},
      {"multi", SBIO_SDK_ONELINE, "acme settings: 'multi' must not contain control characters"},
      {"num", 0, "acme settings: 'num' must be a string"},
      {"missing", SBIO_SDK_REQUIRED, "acme settings: 'missing' is required"},
      {"nul", SBIO_SDK_REQUIRED, "acme settings: 'nul' is required"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    s = parse_ok("{\"empty\":\"\",\"multi\":\"a\\nb\",\"num\":12345,\"nul\":null}");
    char *out = NULL;
    assert_config(sbio_sdk_settings_string(s, cases[i].key, cases[i].flags, &out, &err), &err, cases[i].message);
    assert_null(out);
    assert_null(strstr(err.message, "12345")); /* never the value */
    sbio_sdk_settings_free(s);
  }
}

static void numbers_and_bools(void **state) {
  (void)state;
  sbio_sdk_settings *s = parse_ok("{\"n\":8,\"f\":0.5,\"b\":true,\"neg\":-3,\"big\":1e300}");
  sbio_bk_error err = {.size = sizeof err};
  int64_t n = 0;
  double f = 0;
  int b = 0;
  assert_int_equal(sbio_sdk_settings_int(s, "n", 0, 1, 64, &n, &err), SBIO_OK);
  assert_int_equal(n, 8);
  assert_int_equal(sbio_sdk_settings_int(s, "neg", 0, -5, 5, &n, &err), SBIO_OK);
  assert_int_equal(n, -3);
  assert_int_equal(sbio_sdk_settings_number(s, "f", 0, 0, 1, &f, &err), SBIO_OK);
  assert_true(f == 0.5);
  assert_int_equal(sbio_sdk_settings_bool(s, "b", 0, &b, &err), SBIO_OK);
  assert_int_equal(b, 1);
  n = 42;
  assert_int_equal(sbio_sdk_settings_int(s, "absent", 0, 1, 64, &n, &err), SBIO_OK);
  assert_int_equal(n, 42);
  assert_int_equal(sbio_sdk_settings_finish(s, &err), SBIO_E_CONFIG); /* "big" was never read */
  assert_string_equal(err.message, "acme settings: unknown key 'big' (known: n, neg, f, b, absent)");
  sbio_sdk_settings_free(s);

  struct {
    const char *json;
    int kind; /* 0 int [1,64], 1 number [0,1], 2 bool */
    const char *message;
  } cases[] = {
      {"{\"k\":0}", 0, "acme settings: 'k' must be an integer from 1 to 64"},
      {"{\"k\":65}", 0, "acme settings: 'k' must be an integer from 1 to 64"},
      {"{\"k\":2.5}", 0, "acme settings: 'k' must be an integer from 1 to 64"},
      {"{\"k\":\"8\"}", 0, "acme settings: 'k' must be an integer from 1 to 64"},
      {"{\"k\":1.5}", 1, "acme settings: 'k' must be a number from 0 to 1"},
      {"{\"k\":true}", 1, "acme settings: 'k' must be a number from 0 to 1"},
      {"{\"k\":\"yes\"}", 2, "acme settings: 'k' must be true or false"},
      {"{\"k\":1}", 2, "acme settings: 'k' must be true or false"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    s = parse_ok(cases[i].json);
    int rc = cases[i].kind == 0   ? sbio_sdk_settings_int(s, "k", 0, 1, 64, &n, &err)
             : cases[i].kind == 1 ? sbio_sdk_settings_number(s, "k", 0, 0, 1, &f, &err)
                                  : sbio_sdk_settings_bool(s, "k", 0, &b, &err);
    assert_config(rc, &err, cases[i].message);
    sbio_sdk_settings_free(s);
  }
  /* Integers beyond 2^53 are not exact as JSON numbers. */
  s = parse_ok("{\"k\":18014398509481984}");
  assert_int_equal(sbio_sdk_settings_int(s, "k", 0, INT64_MIN, INT64_MAX, &n, &err), SBIO_E_CONFIG);
  sbio_sdk_settings_free(s);
}

static void choices_and_lists(void **state) {
  (void)state;
  static const char *const pulls[] = {"missing", "always", "never", NULL};
  sbio_sdk_settings *s = parse_ok("{\"pull\":\"never\",\"hosts\":[\"a\",\"b\"],\"none\":[]}");
  sbio_bk_error err = {.size = sizeof err};
  int pull = 0;
  assert_int_equal(sbio_sdk_settings_choice(s, "pull", 0, pulls, &pull, &err), SBIO_OK);
  assert_int_equal(pull, 2);
  char **hosts = NULL;
  size_t n = 0;
  assert_int_equal(sbio_sdk_settings_strings(s, "hosts", SBIO_SDK_NONEMPTY, &hosts, &n, &err), SBIO_OK);
  assert_int_equal(n, 2);
  assert_string_equal(hosts[0], "a");
  assert_string_equal(hosts[1], "b");
  assert_int_equal(sbio_sdk_settings_strings(s, "none", 0, &hosts, &n, &err), SBIO_OK); /* replaces */
  assert_int_equal(n, 0);
  sbio_sdk_strings_free(hosts, n);
  assert_int_equal(sbio_sdk_settings_finish(s, &err), SBIO_OK);
  sbio_sdk_settings_free(s);

  s = parse_ok("{\"pull\":\"sometimes\"}");
  assert_config(sbio_sdk_settings_choice(s, "pull", 0, pulls, &pull, &err), &err,
                "acme settings: 'pull' must be one of: missing, always, never");
  assert_null(strstr(err.message, "sometimes"));
  sbio_sdk_settings_free(s);

  s = parse_ok("{\"hosts\":[\"a\",\"\"]}");
  hosts = NULL;
  n = 0;
  assert_config(sbio_sdk_settings_strings(s, "hosts", SBIO_SDK_NONEMPTY, &hosts, &n, &err), &err,
                "acme settings: 'hosts[1]' must not be empty");
  assert_null(hosts);
  sbio_sdk_settings_free(s);

  s = parse_ok("{\"hosts\":\"a\"}");
  assert_config(sbio_sdk_settings_strings(s, "hosts", 0, &hosts, &n, &err), &err,
                "acme settings: 'hosts' must be a list of strings");
  sbio_sdk_settings_free(s);
}

static void nesting(void **state) {
  (void)state;
  sbio_sdk_settings *s = parse_ok("{\"pool\":{\"size\":4,\"sise\":5},\"scripts\":[{\"match\":\"a\"},{\"match\":7}]}");
  sbio_bk_error err = {.size = sizeof err};
  sbio_sdk_settings *pool = NULL, **scripts = NULL;
  size_t n = 0;
  int64_t size = 0;
  char *match = NULL;
  assert_int_equal(sbio_sdk_settings_object(s, "pool", 0, &pool, &err), SBIO_OK);
  assert_non_null(pool);
  assert_int_equal(sbio_sdk_settings_int(pool, "size", 0, 1, 8, &size, &err), SBIO_OK);
  assert_int_equal(size, 4);
  assert_int_equal(sbio_sdk_settings_objects(s, "scripts", 0, &scripts, &n, &err), SBIO_OK);
  assert_int_equal(n, 2);
  assert_int_equal(sbio_sdk_settings_string(scripts[0], "match", 0, &match, &err), SBIO_OK);
  assert_string_equal(match, "a");
  free(match);
  match = NULL;
  assert_config(sbio_sdk_settings_string(scripts[1], "match", 0, &match, &err), &err,
                "acme settings: 'scripts[1].match' must be a string");
  sbio_sdk_settings_free(s);

  /* Unknown keys are found in children too, named with their path. */
  s = parse_ok("{\"pool\":{\"size\":4,\"sise\":5}}");
  assert_int_equal(sbio_sdk_settings_object(s, "pool", 0, &pool, &err), SBIO_OK);
  assert_int_equal(sbio_sdk_settings_int(pool, "size", 0, 1, 8, &size, &err), SBIO_OK);
  assert_config(sbio_sdk_settings_finish(s, &err), &err, "acme settings: unknown key 'pool.sise' (known: size)");
  sbio_sdk_settings_free(s);

  s = parse_ok("{\"pool\":{\"x\":1}}");
  assert_int_equal(sbio_sdk_settings_object(s, "pool", 0, &pool, &err), SBIO_OK);
  assert_config(sbio_sdk_settings_finish(s, &err), &err,
                "acme settings: unknown key 'pool.x' (no settings are taken here)");
  sbio_sdk_settings_free(s);

  s = parse_ok("{\"pool\":[1]}");
  assert_config(sbio_sdk_settings_object(s, "pool", 0, &pool, &err), &err,
                "acme settings: 'pool' must be a mapping of keys to values");
  assert_null(pool);
  sbio_sdk_settings_free(s);

  s = parse_ok("{\"scripts\":[{},3]}");
  assert_config(sbio_sdk_settings_objects(s, "scripts", 0, &scripts, &n, &err), &err,
                "acme settings: 'scripts[1]' must be a mapping of keys to values");
  assert_int_equal(n, 0);
  sbio_sdk_settings_free(s);

  s = parse_ok("{}");
  assert_int_equal(sbio_sdk_settings_object(s, "pool", 0, &pool, &err), SBIO_OK);
  assert_null(pool);
  assert_config(sbio_sdk_settings_object(s, "other", SBIO_SDK_REQUIRED, &pool, &err), &err,
                "acme settings: 'other' is required");
  sbio_sdk_settings_free(s);
}

static void unknown_and_duplicate_keys(void **state) {
  (void)state;
  sbio_bk_error err = {.size = sizeof err};
  sbio_sdk_settings *s = parse_ok("{\"regoin\":\"x\"}");
  assert_config(sbio_sdk_settings_finish(s, &err), &err,
                "acme settings: unknown key 'regoin' (no settings are taken at all)");
  sbio_sdk_settings_free(s);

  s = parse_ok("{\"region\":\"a\",\"region\":\"b\"}");
  char *v = NULL;
  assert_int_equal(sbio_sdk_settings_string(s, "region", 0, &v, &err), SBIO_OK);
  free(v);
  assert_config(sbio_sdk_settings_finish(s, &err), &err, "acme settings: duplicate key 'region'");
  sbio_sdk_settings_free(s);

  /* A key with control characters is shown without them. */
  s = parse_ok("{\"a\\u0001b\":1}");
  assert_int_equal(sbio_sdk_settings_finish(s, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "'a?b'"));
  sbio_sdk_settings_free(s);

  /* has() makes a key known. */
  s = parse_ok("{\"flag\":1}");
  assert_true(sbio_sdk_settings_has(s, "flag"));
  assert_int_equal(sbio_sdk_settings_finish(s, &err), SBIO_OK);
  sbio_sdk_settings_free(s);
}

static void first_error_sticks(void **state) {
  (void)state;
  sbio_bk_error err = {.size = sizeof err};
  sbio_sdk_settings *s = parse_ok("{\"a\":1,\"b\":\"x\"}");
  char *a = NULL, *b = NULL;
  int rc = sbio_sdk_settings_string(s, "a", 0, &a, &err);
  int rc2 = sbio_sdk_settings_string(s, "b", 0, &b, &err);
  assert_int_equal(rc, SBIO_E_CONFIG);
  assert_int_equal(rc2, SBIO_E_CONFIG);
  assert_null(b); /* not read after the failure */
  assert_string_equal(err.message, "acme settings: 'a' must be a string");
  assert_int_equal(sbio_sdk_settings_finish(s, &err), SBIO_E_CONFIG);
  assert_string_equal(err.message, "acme settings: 'a' must be a string");
  sbio_sdk_settings_free(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(empty_documents),
      cmocka_unit_test(bad_documents),
      cmocka_unit_test(strings),
      cmocka_unit_test(numbers_and_bools),
      cmocka_unit_test(choices_and_lists),
      cmocka_unit_test(nesting),
      cmocka_unit_test(unknown_and_duplicate_keys),
      cmocka_unit_test(first_error_sticks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
