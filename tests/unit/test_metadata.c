/* SPDX-License-Identifier: MIT */
/* The metadata document: a valid one parses completely; every schema
 * violation is refused with a reason naming the field. */
/* cmocka needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include "metadata.h"

#include <sandboxio/backend.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOCKER_DOC                                                                                                     \
  SBIO_METADATA_JSON(                                                                                                  \
      "docker", "0.1.0", "Local Docker Engine",                                                                        \
      SBIO_CAP("run_command") "," SBIO_CAP("filesystem") "," SBIO_CAP("run_command"),                                  \
      SBIO_MECHANISM(                                                                                                  \
          "runc", "container", "https://docs.docker.com/engine/security/", "2026-01-10",                               \
          "Docker containers are, by default, quite secure") "," SBIO_MECHANISM_UNVERIFIED("kata", "nobody checked"))

static int parse(const char *json, sbio__metadata *m, char *reason, size_t size) {
  return sbio__metadata_parse(json, strlen(json), m, reason, size);
}

static void test_valid_document(void **state) {
  (void)state;
  sbio__metadata m;
  char reason[256] = "";
  int rc = parse(DOCKER_DOC, &m, reason, sizeof reason);
  if (rc != 0) print_error("%s\n", reason);
  assert_int_equal(rc, 0);
  assert_int_equal(m.abi, SBIO_BACKEND_ABI_MAJOR);
  assert_string_equal(m.name, "docker");
  assert_string_equal(m.version, "0.1.0");
  assert_string_equal(m.summary, "Local Docker Engine");
  assert_true(m.caps == (SBIO_CAP_RUN_COMMAND | SBIO_CAP_FILESYSTEM)); /* duplicates are harmless */
  assert_int_equal(m.n_mechs, 2);
  assert_string_equal(m.mechs[0].name, "runc");
  assert_int_equal(m.mechs[0].claimed, SBIO_TIER_CONTAINER);
  assert_string_equal(m.mechs[0].url, "https://docs.docker.com/engine/security/");
  assert_string_equal(m.mechs[0].verified_on, "2026-01-10");
  assert_string_equal(m.mechs[0].quote, "Docker containers are, by default, quite secure");
  assert_null(m.mechs[0].unverified);
  assert_int_equal(m.mechs[0].effective, SBIO_TIER_UNKNOWN); /* until trust.c says otherwise */
  assert_string_equal(m.mechs[1].name, "kata");
  assert_int_equal(m.mechs[1].claimed, SBIO_TIER_UNKNOWN);
  assert_null(m.mechs[1].url);
  assert_string_equal(m.mechs[1].unverified, "nobody checked");
  sbio__metadata_free(&m);
  sbio__metadata_free(&m); /* idempotent */
}

static void test_tolerated_forms(void **state) {
  (void)state;
  static const char *const docs[] = {
      /* whitespace around, no mechanisms, no capabilities */
      ("  "
       "\n{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"\",\"capabilities\":[],\"mechanisms\":[]}\r\n\t "),
      /* source fields missing or malformed strings: trust.c's business */
      ("{\"abi\":1,\"name\":\"a_1\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[\"pty\"],"
       "\"mechanisms\":[{\"name\":\"m\",\"tier\":\"microvm\",\"source\":{}},"
       "{\"name\":\"n\",\"tier\":\"gvisor\",\"source\":{\"url\":\"http://x\",\"verified_on\":\"yesterday\"}},"
       "{\"name\":\"o\",\"tier\":\"container\"},"
       "{\"name\":\"p\",\"tier\":\"unknown\",\"source\":{\"url\":\"https://x\",\"verified_on\":\"2026-01-01\","
       "\"quote\":\"q\"}}]}"),
      /* UTF-8 text, upper-case tier */
      ("{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"caf\xc3\xa9 \xe2\x9c\x93\",\"capabilities\":[],"
       "\"mechanisms\":[{\"name\":\"m\",\"tier\":\"MICROVM\"}]}"),
      /* abi of another major: the loader refuses it with its own reason */
      ("{\"abi\":2,\"name\":\"a\",\"version\":\"1\",\"summary\":\"\",\"capabilities\":[],\"mechanisms\":[]}"),
  };
  for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
    sbio__metadata m;
    char reason[256] = "";
    int rc = parse(docs[i], &m, reason, sizeof reason);
    if (rc != 0) print_error("doc %zu: %s\n", i, reason);
    assert_int_equal(rc, 0);
    sbio__metadata_free(&m);
  }
}

static void test_sixteen_mechanisms_accepted(void **state) {
  (void)state;
  char doc[4096];
  int n = snprintf(doc, sizeof doc,
                   "{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"\",\"capabilities\":[],\"mechanisms\":[");
  for (int i = 0; i < 16; i++) {
    n += snprintf(doc + n, sizeof doc - (size_t)n, "%s{\"name\":\"m%d\",\"tier\":\"container\"}", i ? "," : "", i);
  }
  snprintf(doc + n, sizeof doc - (size_t)n, "]}");
  sbio__metadata m;
  assert_int_equal(parse(doc, &m, NULL, 0), 0);
  assert_int_equal(m.n_mechs, 16);
  sbio__metadata_free(&m);
}

/* ----------------------------------------------------------- violations */
typedef struct bad_case {
  const char *json;
  const char *reason; /* substring expected in the reason */
} bad_case;

#define HEAD "{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[]"
#define MECHS(x) HEAD ",\"mechanisms\":[" x "]}"
#define OK_MECH "{\"name\":\"ok\",\"tier\":\"container\"}"
#define CREDS(x) HEAD ",\"mechanisms\":[],\"credentials\":" x "}"

static const bad_case bad_cases[] = {
    /* not JSON, or not only JSON */
    {"", "metadata: empty document"},
    {"{", "invalid JSON at byte"},
    {"{\"abi\":1,}", "invalid JSON"},
    {"[1,2]", "document: not an object"},
    {"\"abi\"", "not an object"},
    {HEAD ",\"mechanisms\":[]} {}", "unexpected data after the JSON document"},
    {HEAD ",\"mechanisms\":[]}x", "unexpected data after the JSON document at byte"},
    /* top level */
    {HEAD ",\"mechanisms\":[],\"extra\":1}", "metadata: unknown key \"extra\""},
    {HEAD ",\"mechanisms\":[],\"Name\":\"a\"}", "unknown key \"Name\""},
    {HEAD ",\"mechanisms\":[],\"abi\":1}", "\"abi\": duplicate key"},
    {"{\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}", "missing \"abi\""},
    {"{\"abi\":1,\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}", "missing \"name\""},
    {HEAD "}", "missing \"mechanisms\""},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"mechanisms\":[]}", "missing \"capabilities\""},
    {"{\"abi\":\"1\",\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"abi\": not an integer"},
    {"{\"abi\":1.5,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"abi\": not an integer"},
    {"{\"abi\":-1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"abi\": not an integer"},
    {"{\"abi\":1e300,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"abi\": not an integer"},
    {"{\"abi\":true,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"abi\": not an integer"},
    {"{\"abi\":1,\"name\":7,\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"name\": not a string"},
    {"{\"abi\":1,\"name\":\"Docker\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"name\": invalid backend name \"Docker\""},
    {"{\"abi\":1,\"name\":\"\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"name\": empty"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"version\": empty"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":null,\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"version\": not a string"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":[],\"capabilities\":[],\"mechanisms\":[]}",
     "\"summary\": not a string"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"a\\u001b[31mred\",\"capabilities\":[],"
     "\"mechanisms\":[]}",
     "\"summary\": contains a control character"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"\\u0085\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"summary\": contains a control character"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"\xc3\x28\",\"capabilities\":[],\"mechanisms\":[]}",
     "\"summary\": is not valid UTF-8"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"\xed\xa0\x80\",\"capabilities\":[],\"mechanisms\":[]}",
     "is not valid UTF-8"},
    {"{\"abi\":1,\"name\":\"a\\u0000b\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}",
     "escaped NUL"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":{},\"mechanisms\":[]}",
     "\"capabilities\": not an array"},
    /* capabilities */
    {HEAD "x", "invalid JSON"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[\"pty\",\"git\",\"telepathy\"],"
     "\"mechanisms\":[]}",
     "metadata: \"capabilities\"[2]: unknown capability \"telepathy\""},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[\"pty\",3],\"mechanisms\":[]}",
     "\"capabilities\"[1]: not a string"},
    {"{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[\"PTY\"],\"mechanisms\":[]}",
     "\"capabilities\"[0]: unknown capability \"PTY\""},
    /* mechanisms */
    {HEAD ",\"mechanisms\":{}}", "\"mechanisms\": not an array"},
    {MECHS(OK_MECH ",3"), "\"mechanisms\"[1]: not an object"},
    {MECHS(OK_MECH ",{\"name\":\"x\",\"tier\":\"vm\"}"), "metadata: \"mechanisms\"[1].\"tier\": unknown tier \"vm\""},
    {MECHS("{\"name\":\"x\",\"tier\":\"\"}"), "\"mechanisms\"[0].\"tier\": unknown tier \"\""},
    {MECHS("{\"name\":\"x\",\"tier\":30}"), "\"mechanisms\"[0].\"tier\": not a string"},
    {MECHS("{\"name\":\"x\"}"), "\"mechanisms\"[0]: missing \"tier\""},
    {MECHS("{\"tier\":\"container\"}"), "\"mechanisms\"[0]: missing \"name\""},
    {MECHS("{\"name\":\"\",\"tier\":\"container\"}"), "\"mechanisms\"[0].\"name\": empty"},
    {MECHS("{\"name\":1,\"tier\":\"container\"}"), "\"mechanisms\"[0].\"name\": not a string"},
    {MECHS("{\"name\":\"1234567890123456789012345678901234567890123456789012345678901234\",\"tier\":\"gvisor\"}"),
     "\"mechanisms\"[0].\"name\": longer than 63 bytes"},
    {MECHS(OK_MECH "," OK_MECH), "\"mechanisms\"[1].\"name\": duplicate mechanism \"ok\""},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"runtime\":\"runsc\"}"), "\"mechanisms\"[0]: unknown key \"runtime\""},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"tier\":\"microvm\"}"), "\"mechanisms\"[0].\"tier\": duplicate key"},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"source\":\"https://x\"}"),
     "\"mechanisms\"[0].\"source\": not an object"},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"source\":{\"url\":1}}"),
     "\"mechanisms\"[0].\"source\".\"url\": not a string"},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"source\":{\"verified_on\":20260101}}"),
     "\"mechanisms\"[0].\"source\".\"verified_on\": not a string"},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"source\":{\"quote\":null}}"),
     "\"mechanisms\"[0].\"source\".\"quote\": not a string"},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"source\":{\"url\":\"https://x\",\"date\":\"2026-01-01\"}}"),
     "\"mechanisms\"[0].\"source\": unknown key \"date\""},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"source\":{\"url\":\"https://x\",\"url\":\"https://y\"}}"),
     "\"mechanisms\"[0].\"source\".\"url\": duplicate key"},
    {MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"unverified\":false}"),
     "\"mechanisms\"[0].\"unverified\": not a string"},
    {MECHS("{\"name\":\"x\",\"tier\":\"unknown\",\"unverified\":\"no\",\"source\":{}}"),
     "\"mechanisms\"[0]: both \"source\" and \"unverified\""},
    /* credentials (ABI 1.4) */
    {CREDS("[]"), "\"credentials\": not an object"},
    {CREDS("{\"env\":\"X\"}"), "\"credentials\".\"env\": not an array"},
    {CREDS("{\"env\":[1]}"), "\"credentials\".\"env\"[0]: not a string"},
    {CREDS("{\"env\":[\"\"]}"), "\"credentials\".\"env\"[0]: empty"},
    {CREDS("{\"env\":[\"A-B\"]}"), "\"credentials\".\"env\"[0]: \"A-B\" is not an environment variable name"},
    {CREDS("{\"env\":[\"1A\"]}"), "is not an environment variable name"},
    {CREDS("{\"env\":[\"A\",\"B\",\"A\"]}"), "\"credentials\".\"env\"[2]: duplicate \"A\""},
    {CREDS("{\"settings\":[\"Api_Key_Env\"]}"),
     "\"credentials\".\"settings\"[0]: \"Api_Key_Env\" is not a setting key"},
    {CREDS("{\"env\":[],\"tokens\":[]}"), "\"credentials\": unknown key \"tokens\""},
    {CREDS("{\"env\":[],\"env\":[]}"), "\"credentials\".\"env\": duplicate key"},
    {CREDS("{\"env\":[\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"]}"),
     "longer than 64 bytes"},
    {CREDS("{\"env\":[\"A\",\"B\",\"C\",\"D\",\"E\",\"F\",\"G\",\"H\",\"I\",\"J\",\"K\",\"L\",\"M\",\"N\",\"O\",\"P\","
           "\"Q\"]}"),
     "17 entries, more than 16"},
};

/* ABI 1.4: the optional credential list, as SBIO_CREDENTIALS writes it;
 * a note without it (every backend before 1.4) is as valid as before. */
static void test_credentials(void **state) {
  (void)state;
  sbio__metadata m;
  char reason[256] = "";
  const char *doc = SBIO_METADATA_JSON_WITH(
      "acme", "1", "s", SBIO_CAP("run_command"), OK_MECH,
      SBIO_CREDENTIALS(SBIO_CRED("ACME_API_KEY") "," SBIO_CRED("acme_token2"), SBIO_CRED("api_key_env")));
  int rc = parse(doc, &m, reason, sizeof reason);
  if (rc != 0) fail_msg("%s", reason);
  assert_int_equal(m.n_cred_env, 2);
  assert_string_equal(m.cred_env[0], "ACME_API_KEY");
  assert_string_equal(m.cred_env[1], "acme_token2");
  assert_int_equal(m.n_cred_settings, 1);
  assert_string_equal(m.cred_settings[0], "api_key_env");
  sbio__metadata_free(&m);
  assert_null(m.cred_env);
  /* Absent, or present and empty. */
  assert_int_equal(parse(DOCKER_DOC, &m, NULL, 0), 0);
  assert_int_equal(m.n_cred_env + m.n_cred_settings, 0);
  sbio__metadata_free(&m);
  assert_int_equal(parse(SBIO_METADATA_JSON_WITH("a", "1", "s", "", "", SBIO_CREDENTIALS("", "")), &m, NULL, 0), 0);
  assert_int_equal(m.n_cred_env + m.n_cred_settings, 0);
  sbio__metadata_free(&m);
  assert_int_equal(parse(CREDS("{}"), &m, NULL, 0), 0);
  sbio__metadata_free(&m);
  /* Sixteen of each is the limit, not an error. */
  assert_int_equal(parse(CREDS("{\"env\":[\"A\",\"B\",\"C\",\"D\",\"E\",\"F\",\"G\",\"H\",\"I\",\"J\",\"K\",\"L\","
                               "\"M\",\"N\",\"O\",\"P\"]}"),
                         &m, NULL, 0),
                   0);
  assert_int_equal(m.n_cred_env, 16);
  sbio__metadata_free(&m);
}

static void test_schema_violations(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
    sbio__metadata m;
    char reason[512] = "";
    int rc = parse(bad_cases[i].json, &m, reason, sizeof reason);
    if (rc != -1 || strstr(reason, bad_cases[i].reason) == NULL || strncmp(reason, "metadata: ", 10) != 0) {
      print_error("case %zu: %s\n  expected reason containing: %s\n  got rc=%d reason: %s\n", i, bad_cases[i].json,
                  bad_cases[i].reason, rc, reason);
      fail();
    }
    /* Nothing is left behind: the struct is empty and safe to free. */
    assert_null(m.name);
    assert_null(m.mechs);
    assert_int_equal(m.n_mechs, 0);
    sbio__metadata_free(&m);
  }
}

static void test_too_many_mechanisms(void **state) {
  (void)state;
  char doc[4096];
  int n = snprintf(doc, sizeof doc, HEAD ",\"mechanisms\":[");
  for (int i = 0; i < 17; i++) {
    n += snprintf(doc + n, sizeof doc - (size_t)n, "%s{\"name\":\"m%d\",\"tier\":\"container\"}", i ? "," : "", i);
  }
  snprintf(doc + n, sizeof doc - (size_t)n, "]}");
  sbio__metadata m;
  char reason[256];
  assert_int_equal(parse(doc, &m, reason, sizeof reason), -1);
  assert_non_null(strstr(reason, "\"mechanisms\": 17 entries, more than 16 mechanisms"));
}

static void test_long_strings(void **state) {
  (void)state;
  size_t size = 4097 + 256;
  char *doc = malloc(size);
  char *text = malloc(4098);
  assert_non_null(doc);
  assert_non_null(text);
  sbio__metadata m;
  char reason[256];

  /* exactly 4096 bytes is fine */
  memset(text, 'x', 4096);
  text[4096] = '\0';
  snprintf(doc, size,
           "{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"%s\",\"capabilities\":[],"
           "\"mechanisms\":[]}",
           text);
  assert_int_equal(parse(doc, &m, reason, sizeof reason), 0);
  sbio__metadata_free(&m);

  memset(text, 'x', 4097);
  text[4097] = '\0';
  snprintf(doc, size,
           "{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"%s\",\"capabilities\":[],"
           "\"mechanisms\":[]}",
           text);
  assert_int_equal(parse(doc, &m, reason, sizeof reason), -1);
  assert_non_null(strstr(reason, "\"summary\": longer than 4096 bytes"));

  snprintf(doc, size, MECHS("{\"name\":\"x\",\"tier\":\"gvisor\",\"source\":{\"quote\":\"%s\"}}"), text);
  assert_int_equal(parse(doc, &m, reason, sizeof reason), -1);
  assert_non_null(strstr(reason, "\"mechanisms\"[0].\"source\".\"quote\": longer than 4096 bytes"));
  free(text);
  free(doc);
}

/* Hostile text in a reason is shown printable and short. */
static void test_reason_quotes_safely(void **state) {
  (void)state;
  const char *doc =
      "{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":["
      "\"\\u001b[2Jxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"],"
      "\"mechanisms\":[]}";
  sbio__metadata m;
  char reason[512];
  assert_int_equal(parse(doc, &m, reason, sizeof reason), -1);
  assert_null(strchr(reason, '\x1b'));
  assert_non_null(strstr(reason, "unknown capability \"?[2Jxxx"));
  assert_non_null(strstr(reason, "...\""));
  assert_true(strlen(reason) < 120);
}

/* The buffer need not be NUL-terminated: only `len` bytes are read. */
static void test_length_bounded(void **state) {
  (void)state;
  const char *doc =
      "{\"abi\":1,\"name\":\"a\",\"version\":\"1\",\"summary\":\"s\",\"capabilities\":[],\"mechanisms\":[]}";
  size_t len = strlen(doc);
  char *copy = malloc(len + 8);
  assert_non_null(copy);
  memcpy(copy, doc, len);
  memcpy(copy + len, "garbage!", 8);
  sbio__metadata m;
  assert_int_equal(sbio__metadata_parse(copy, len, &m, NULL, 0), 0);
  sbio__metadata_free(&m);
  assert_int_equal(sbio__metadata_parse(copy, len - 1, &m, NULL, 0), -1);
  free(copy);
}

static void test_backend_name_valid(void **state) {
  (void)state;
  static const char *const good[] = {"a", "fake", "docker", "e2b", "my_backend_2", "abcdefghijklmnopqrstuvwxyz01234"};
  static const char *const bad[] = {"",    "A",           "1abc",  "_x",   "a-b",  "a.b",
                                    "a b", "caf\xc3\xa9", "fake/", "Fake", "../x", "abcdefghijklmnopqrstuvwxyz012345"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) assert_true(sbio__backend_name_valid(good[i]));
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) assert_false(sbio__backend_name_valid(bad[i]));
  assert_false(sbio__backend_name_valid(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_document),
      cmocka_unit_test(test_tolerated_forms),
      cmocka_unit_test(test_sixteen_mechanisms_accepted),
      cmocka_unit_test(test_credentials),
      cmocka_unit_test(test_schema_violations),
      cmocka_unit_test(test_too_many_mechanisms),
      cmocka_unit_test(test_long_strings),
      cmocka_unit_test(test_reason_quotes_safely),
      cmocka_unit_test(test_length_bounded),
      cmocka_unit_test(test_backend_name_valid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
