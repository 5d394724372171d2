/* SPDX-License-Identifier: MIT */
/* The E2B backend against answers that are well-formed HTTP but whose
 * content is wrong (the emulator's `body`, `patch` and `stream` faults):
 * create answers that are not a sandbox, ids that could steer a request
 * elsewhere, fields of the wrong type, error messages that quote the key
 * back, listings that never end, bodies past the SDK's limit, and envd
 * streams and file answers with bad content. Each must be a clear error
 * naming what was wrong, with no secret in it, and leave no sandbox
 * behind that the backend knew the id of. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2b_support.h"

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (fx_open(f, NULL, NULL, NULL) != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  free(emu_admin(&f->emu, "DELETE", "faults", NULL));
  int violations = emu_violations(&f->emu);
  fx_close(f);
  free(f);
  return violations == 0 ? 0 : -1;
}

static sbio_sandbox *must_create(fx *f) {
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, "e2b://", NULL, &sb, err);
  if (rc != SBIO_OK) fail_msg("create: [%d] %s", rc, sbio_error_message(err));
  sbio_error_free(err);
  return sb;
}

/* The message of a failed create under the fault rule; asserts the code. */
static char *create_fails(fx *f, const char *rule, sbio_code expect) {
  free(emu_admin(&f->emu, "DELETE", "faults", NULL));
  emu_fault(&f->emu, rule);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, "e2b://", NULL, &sb, err);
  if (rc != expect) fail_msg("create under %s: [%d] %s (expected %d)", rule, rc, sbio_error_message(err), expect);
  assert_null(sb);
  char *msg = strdup(sbio_error_message(err));
  sbio_error_free(err);
  return msg;
}

static void assert_has(const char *text, const char *part) {
  if (!strstr(text, part)) fail_msg("'%s' does not contain '%s'", text, part);
}

static void assert_lacks(const char *text, const char *part) {
  if (strstr(text, part)) fail_msg("'%s' contains '%s'", text, part);
}

/* Requests that reached E2B's API or envd (not the emulator's admin). */
static int provider_requests(fx *f) {
  char *text = emu_admin(&f->emu, "GET", "requests", NULL);
  cJSON *doc = text ? cJSON_Parse(text) : NULL;
  free(text);
  int n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "requests")) {
    const cJSON *p = cJSON_GetObjectItem(r, "path");
    if (cJSON_IsString(p) && strncmp(p->valuestring, "/__emu__/", 9) != 0) n++;
  }
  cJSON_Delete(doc);
  return n;
}

/* ---------------------------------------------------- the create answer */
/* Answers the backend cannot take a sandbox id from (E2B's proxy, a
 * gateway or a broken deployment could send them): an error naming the
 * answer, no request anywhere else. */
static void test_create_answer_that_is_not_a_sandbox(void **state) {
  fx *f = *state;
  static const struct {
    const char *payload, *expect;
  } cases[] = {
      {"\"raw\":\"<html>not json</html>\"", "the create answer is not a JSON object"},
      {"\"raw\":\"\"", "the create answer is not a JSON object"},
      {"\"json\":[{\"sandboxID\":\"abc\"}]", "the create answer is not a JSON object"},
      {"\"json\":\"abc\"", "the create answer is not a JSON object"},
      {"\"json\":null", "the create answer is not a JSON object"},
      {"\"json\":{\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":12345,\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":null,\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":\"\",\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":\"../../v2/sandboxes\",\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":\"..\",\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":\"abc/def\",\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":\"abc.evil.example\",\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":\"abc?x=1\",\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
      {"\"json\":{\"sandboxID\":\"ABC\",\"envdVersion\":\"0.6.4\"}", "no valid sandboxID"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rule[400];
    snprintf(rule, sizeof rule,
             "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"body\",%s}",
             cases[i].payload);
    free(emu_admin(&f->emu, "DELETE", "requests", NULL));
    char *msg = create_fails(f, rule, SBIO_E_CREATE);
    assert_has(msg, cases[i].expect);
    free(msg);
    /* nothing was sent after the answer: no kill of a made-up id, no envd */
    assert_int_equal(provider_requests(f), 1);
    assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 1);
  }
  assert_int_equal(emu_live(&f->emu), 0);
}

/* An id of 10 KiB: refused, and the message does not carry it whole. */
static void test_create_answer_with_a_huge_id(void **state) {
  fx *f = *state;
  size_t n = 10 * 1024;
  char *rule = malloc(n + 300);
  int at = snprintf(rule, n + 300,
                    "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"body\","
                    "\"json\":{\"envdVersion\":\"0.6.4\",\"sandboxID\":\"");
  memset(rule + at, 'a', n);
  snprintf(rule + at + n, 300, "\"}}");
  char *msg = create_fails(f, rule, SBIO_E_CREATE);
  assert_has(msg, "no valid sandboxID");
  assert_true(strlen(msg) < 1024);
  free(msg);
  free(rule);
  assert_int_equal(emu_live(&f->emu), 0);
}

/* The sandbox was made and its id is valid, but the rest of the answer is
 * not usable: the backend knew the id, so it must kill it. */
static void test_create_answer_with_bad_fields_kills_what_was_made(void **state) {
  fx *f = *state;
  static const struct {
    const char *patch, *expect;
  } cases[] = {
      {"\"set\":{\"envdVersion\":604}", "has no envdVersion"},
      {"\"set\":{\"envdVersion\":null}", "has no envdVersion"},
      {"\"drop\":[\"envdVersion\"]", "has no envdVersion"},
      {"\"set\":{\"envdVersion\":\"0.0.1\"}", "older than 0.1.0"},
      {"\"set\":{\"envdVersion\":\"garbage\"}", "older than 0.1.0"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rule[300];
    snprintf(rule, sizeof rule,
             "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"patch\",%s}",
             cases[i].patch);
    free(emu_admin(&f->emu, "DELETE", "requests", NULL));
    char *msg = create_fails(f, rule, SBIO_E_CREATE);
    assert_has(msg, cases[i].expect);
    free(msg);
    assert_int_equal(emu_count(&f->emu, "DELETE", "/sandboxes/"), 1);
    assert_int_equal(emu_live(&f->emu), 0);
  }
}

/* Fields the backend does not need, of the wrong type or out of range:
 * ignored, the sandbox works. */
static void test_create_answer_with_odd_optional_fields_still_works(void **state) {
  fx *f = *state;
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"patch\","
                     "\"set\":{\"domain\":{\"nested\":true},\"clientID\":-1,\"alias\":[1,2],"
                     "\"startedAt\":-99999999999,\"endAt\":1e300,\"cpuCount\":\"2\",\"memoryMB\":null}}");
  sbio_sandbox *sb = must_create(f);
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo ok", NULL, &r, err), SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "ok\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  assert_int_equal(emu_live(&f->emu), 0);
}

/* ------------------------------------------------------ error answers */
/* E2B (or a proxy) quoting the key back: the error shows *** instead. */
static void test_error_answers_quoting_the_key_are_redacted(void **state) {
  fx *f = *state;
  static const int statuses[] = {400, 401, 403, 429, 500, 503};
  for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
    char rule[600];
    snprintf(rule, sizeof rule,
             "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"body\",\"status\":%d,"
             "\"times\":10,\"json\":{\"code\":%d,\"message\":\"key %s is not valid for team x\"}}",
             statuses[i], statuses[i], E2B_TEST_KEY);
    free(emu_admin(&f->emu, "DELETE", "faults", NULL));
    emu_fault(&f->emu, rule);
    sbio_error *err = sbio_error_new();
    sbio_sandbox *sb = NULL;
    assert_int_not_equal(sbio_sandbox_create(f->host, "e2b://?timeout=5", NULL, &sb, err), SBIO_OK);
    assert_int_equal(sbio_error_provider_status(err), statuses[i]);
    assert_lacks(sbio_error_message(err), E2B_TEST_KEY);
    assert_lacks(sbio_error_hint(err), E2B_TEST_KEY);
    assert_has(sbio_error_message(err), "key *** is not valid");
    sbio_error_free(err);
  }
  /* not JSON: the body itself is quoted, redacted the same way */
  char rule[600];
  snprintf(rule, sizeof rule,
           "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"body\",\"status\":502,"
           "\"content_type\":\"text/plain\",\"raw\":\"upstream rejected X-API-Key: %s\"}",
           E2B_TEST_KEY);
  char *msg = create_fails(f, rule, SBIO_E_CREATE);
  assert_lacks(msg, E2B_TEST_KEY);
  assert_has(msg, "X-API-Key: ***");
  free(msg);
  for (size_t i = 0; i < f->log.n; i++) assert_lacks(f->log.items[i], E2B_TEST_KEY);
  for (size_t i = 0; i < f->audit.n; i++) assert_lacks(f->audit.items[i], E2B_TEST_KEY);
  assert_int_equal(emu_live(&f->emu), 0);
}

/* The provider's message is cut to a few hundred bytes. A key that the cut
 * falls inside must still go whole: redacted first, cut after, or the
 * first part of the key would be shown. */
static void test_a_key_where_the_message_is_cut_is_still_redacted(void **state) {
  fx *f = *state;
  char pad[300], prefix[9], rule[1200];
  snprintf(prefix, sizeof prefix, "%s", E2B_TEST_KEY); /* e2b_5ca1 */
  /* The backend quotes 299 bytes of a JSON message, 199 of any other body:
   * the key begins 14 bytes before each cut. */
  for (size_t i = 0; i < 2; i++) {
    char body[800];
    size_t n = i == 0 ? 284 : 184;
    memset(pad, 'x', n);
    pad[n] = '\0';
    if (i == 0)
      snprintf(body, sizeof body, "\"json\":{\"code\":401,\"message\":\"%s %s is not valid\"}", pad, E2B_TEST_KEY);
    else
      snprintf(body, sizeof body, "\"content_type\":\"text/plain\",\"raw\":\"%s %s is not valid\"", pad, E2B_TEST_KEY);
    snprintf(rule, sizeof rule,
             "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"body\","
             "\"status\":401,%s}",
             body);
    char *msg = create_fails(f, rule, SBIO_E_AUTH);
    assert_has(msg, "xxxxxxxx ***");
    assert_lacks(msg, prefix);
    free(msg);
  }
  for (size_t i = 0; i < f->log.n; i++) assert_lacks(f->log.items[i], prefix);
  for (size_t i = 0; i < f->audit.n; i++) assert_lacks(f->audit.items[i], prefix);
  assert_int_equal(emu_live(&f->emu), 0);
}

/* A credential-looking env value the caller gave, quoted back by E2B in an
 * error: *** too. */
static void test_error_answer_quoting_a_caller_secret_is_redacted(void **state) {
  fx *f = *state;
  static const char *const value = "ghp_c0ntentFaultSecretValue123456";
  char rule[600];
  snprintf(rule, sizeof rule,
           "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"body\",\"status\":400,"
           "\"json\":{\"code\":400,\"message\":\"envVars.GITHUB_TOKEN=%s is not allowed\"}}",
           value);
  emu_fault(&f->emu, rule);
  sbio_create_options *o = sbio_create_options_new();
  assert_int_equal(sbio_create_options_set_env(o, "GITHUB_TOKEN", value), SBIO_OK);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://", o, &sb, err), SBIO_E_CREATE);
  assert_lacks(sbio_error_message(err), value);
  assert_has(sbio_error_message(err), "GITHUB_TOKEN=***");
  for (size_t i = 0; i < f->log.n; i++) assert_lacks(f->log.items[i], value);
  sbio_create_options_free(o);
  sbio_error_free(err);
  assert_int_equal(emu_live(&f->emu), 0);
}

/* ----------------------------------------------------------- listings */
static void test_listing_with_a_repeated_token_stops(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  free(emu_admin(&f->emu, "DELETE", "requests", NULL));
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"GET\",\"path\":\"^/v2/sandboxes$\",\"action\":\"patch\","
                     "\"times\":100000,\"next_token\":\"same\"}");
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_managed_list_get(f->host, "e2b", NULL, &l, err);
  /* the token came back as it was sent: the listing loops, and says so */
  assert_int_equal(rc, SBIO_E_CONNECT);
  assert_null(l);
  assert_int_equal(emu_count(&f->emu, "GET", "/v2/sandboxes"), 2);
  assert_has(sbio_error_message(err), "GET /v2/sandboxes");
  assert_has(sbio_error_message(err), "does not end");
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

static void test_listing_that_never_ends_is_bounded(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  free(emu_admin(&f->emu, "DELETE", "requests", NULL));
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"GET\",\"path\":\"^/v2/sandboxes$\",\"action\":\"patch\","
                     "\"times\":100000,\"next_token\":\"page{n}\"}");
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_managed_list_get(f->host, "e2b", NULL, &l, err);
  int pages = emu_count(&f->emu, "GET", "/v2/sandboxes");
  assert_int_equal(pages, 1000); /* the backend's bound */
  assert_int_equal(rc, SBIO_E_CONNECT);
  assert_has(sbio_error_message(err), "does not end");
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* List items of the wrong shape: skipped or shown as unknown, no crash. */
static void test_listing_with_odd_items(void **state) {
  fx *f = *state;
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"GET\",\"path\":\"^/v2/sandboxes$\",\"action\":\"body\","
                     "\"json\":[1,\"x\",null,[],{\"sandboxID\":7},{\"sandboxID\":\"good1\",\"state\":\"exploding\","
                     "\"startedAt\":\"-99999-01-01T00:00:00Z\",\"metadata\":null},"
                     "{\"sandboxID\":\"good2\",\"state\":5,\"startedAt\":1e300,\"metadata\":{\"a\":1,\"b\":\"c\"}}]}");
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_managed_list_get(f->host, "e2b", NULL, &l, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(l), 2);
  assert_string_equal(sbio_managed_list_id(l, 0), "good1");
  assert_string_equal(sbio_managed_list_id(l, 1), "good2");
  assert_non_null(sbio_managed_list_state(l, 0));
  assert_int_equal(sbio_managed_list_created_at(l, 1), -1);
  sbio_managed_list_free(l);
  /* not a list at all */
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"GET\",\"path\":\"^/v2/sandboxes$\",\"action\":\"body\","
                     "\"json\":{\"sandboxes\":[]}}");
  assert_int_equal(sbio_managed_list_get(f->host, "e2b", NULL, &l, err), SBIO_E_CONNECT);
  assert_has(sbio_error_message(err), "not a JSON array");
  sbio_error_free(err);
}

/* ------------------------------------------------------------ huge body */
static void test_huge_bodies_hit_the_sdk_limit(void **state) {
  fx *f = *state;
  /* 17 MiB, one more than the SDK's default limit of 16 MiB */
  char *msg = create_fails(f,
                           "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"body\","
                           "\"raw\":\"x\",\"repeat\":17825792}",
                           SBIO_E_CREATE);
  assert_has(msg, "exceeded 16777216 bytes");
  assert_has(msg, "create a sandbox");
  free(msg);
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"GET\",\"path\":\"^/v2/sandboxes$\",\"action\":\"body\","
                     "\"raw\":\"[\",\"repeat\":17825792}");
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_managed_list_get(f->host, "e2b", NULL, &l, err), SBIO_E_CONNECT);
  assert_has(sbio_error_message(err), "exceeded 16777216 bytes");
  sbio_error_free(err);
  assert_int_equal(emu_live(&f->emu), 0);
}

/* ------------------------------------------------------------------ envd */
/* Process/Start streams whose envelopes carry bad content. */
static void test_process_stream_with_bad_content(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  static const struct {
    const char *envelopes, *expect;
  } cases[] = {
      {"{\"raw\":\"{not json\"}", "not a JSON object"},
      {"{\"json\":[1,2]}", "not a JSON object"},
      {"{\"json\":{\"nothing\":1}}", "no event object"},
      {"{\"json\":{\"event\":\"start\"}}", "no event object"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":\"12\"}}}}", "pid"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":-1}}}}", "pid"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":12}}}},{\"json\":{\"event\":{\"data\":{\"stdout\":5}}}}",
       "not a base64 string"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":12}}}},{\"json\":{\"event\":{\"data\":{\"stdout\":\"!!!\"}}}}",
       "not valid base64"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":12}}}},{\"json\":{\"event\":{\"end\":{\"exitCode\":\"3\"}}}}",
       "exitCode is not a number"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":12}}}},{\"json\":{\"event\":{\"end\":{\"exitCode\":null}}}}",
       "exitCode is not a number"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":12}}}},{\"flags\":2,\"json\":{\"error\":\"boom\"}}",
       "end-of-stream error is not an object"},
      {"{\"json\":{\"event\":{\"start\":{\"pid\":12}}}},{\"flags\":2,\"json\":{}}", "ended without the command's end"},
      {"", "broke off"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rule[600];
    snprintf(rule, sizeof rule,
             "{\"server\":\"envd\",\"path\":\"Process/Start\",\"action\":\"stream\",\"envelopes\":[%s]}",
             cases[i].envelopes);
    emu_fault(&f->emu, rule);
    sbio_error *err = sbio_error_new();
    sbio_exec_result *r = NULL;
    sbio_code rc = sbio_sandbox_exec_shell(sb, "echo hi", NULL, &r, err);
    if (rc != SBIO_E_EXEC) fail_msg("case %zu: [%d] %s", i, rc, sbio_error_message(err));
    assert_null(r);
    assert_has(sbio_error_message(err), cases[i].expect);
    sbio_error_free(err);
  }
  /* exit codes out of range: reported, not wrapped into a success */
  static const char *const codes[] = {"1e30", "-1e30", "4294967296", "2.5"};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    char rule[600];
    snprintf(rule, sizeof rule,
             "{\"server\":\"envd\",\"path\":\"Process/Start\",\"action\":\"stream\",\"envelopes\":["
             "{\"json\":{\"event\":{\"start\":{\"pid\":12}}}},{\"json\":{\"event\":{\"end\":{\"exitCode\":%s,"
             "\"status\":\"exit status x\",\"exited\":true}}}},{\"flags\":2,\"json\":{}}]}",
             codes[i]);
    emu_fault(&f->emu, rule);
    sbio_error *err = sbio_error_new();
    sbio_exec_result *r = NULL;
    sbio_code rc = sbio_sandbox_exec_shell(sb, "echo hi", NULL, &r, err);
    if (rc == SBIO_OK) {
      if (sbio_exec_result_exit_code(r) == 0) fail_msg("exit code %s reported as 0", codes[i]);
      sbio_exec_result_free(r);
    } else {
      assert_int_equal(rc, SBIO_E_EXEC);
      assert_has(sbio_error_message(err), "exitCode");
    }
    sbio_error_free(err);
  }
  /* still usable afterwards */
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo fine", NULL, &r, err), SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "fine\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  free(emu_admin(&f->emu, "DELETE", "violations", NULL)); /* SendSignal to the made-up pid */
  assert_int_equal(emu_live(&f->emu), 0);
}

/* File API answers with bad content. */
static void test_file_answers_with_bad_content(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  sbio_error *err = sbio_error_new();
  sbio_file_list *l = NULL;
  static const struct {
    const char *rule;
  } cases[] = {
      {"\"action\":\"body\",\"raw\":\"not json\""},
      {"\"action\":\"body\",\"json\":[]"},
      {"\"action\":\"body\",\"json\":{\"entries\":\"many\"}"},
      {"\"action\":\"body\",\"json\":{\"entries\":[{\"name\":7,\"path\":null}]}"},
      {"\"action\":\"body\",\"json\":{\"entries\":[{\"name\":\"a\",\"path\":\"/a\",\"size\":\"huge\","
       "\"type\":\"FILE_TYPE_FILE\"}]}"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rule[400];
    snprintf(rule, sizeof rule, "{\"server\":\"envd\",\"path\":\"ListDir\",%s}", cases[i].rule);
    emu_fault(&f->emu, rule);
    sbio_code rc = sbio_file_list_dir(sb, "/home/user", &l, err);
    if (rc == SBIO_OK) {
      /* what could be read is listed, nothing made up */
      for (size_t j = 0; j < sbio_file_list_count(l); j++) {
        assert_non_null(sbio_file_list_name(l, j));
        assert_true(sbio_file_list_size(l, j) >= 0);
      }
      sbio_file_list_free(l);
    } else {
      assert_int_equal(rc, SBIO_E_FS);
      assert_has(sbio_error_message(err), "ListDir");
    }
  }
  /* sizes out of range */
  emu_fault(&f->emu,
            "{\"server\":\"envd\",\"path\":\"ListDir\",\"action\":\"body\",\"json\":{\"entries\":["
            "{\"name\":\"a\",\"path\":\"/a\",\"size\":\"-5\",\"type\":\"FILE_TYPE_FILE\"},"
            "{\"name\":\"b\",\"path\":\"/b\",\"size\":\"99999999999999999999999\",\"type\":\"FILE_TYPE_FILE\"},"
            "{\"name\":\"c\",\"path\":\"/c\",\"size\":1e300,\"type\":\"FILE_TYPE_FILE\"}]}}");
  sbio_code rc = sbio_file_list_dir(sb, "/home/user", &l, err);
  if (rc == SBIO_OK) {
    /* not byte counts: shown as 0 (absent), never negative or made up */
    assert_int_equal(sbio_file_list_count(l), 3);
    for (size_t j = 0; j < 3; j++) assert_int_equal(sbio_file_list_size(l, j), 0);
    sbio_file_list_free(l);
  } else {
    assert_int_equal(rc, SBIO_E_FS);
  }
  /* an upload answered with something that is not envd's list */
  emu_fault(&f->emu, "{\"server\":\"envd\",\"method\":\"POST\",\"path\":\"^/files$\",\"action\":\"body\","
                     "\"status\":200,\"raw\":\"<html>\"}");
  rc = sbio_file_write(sb, "x.txt", "abc", 3, err);
  assert_true(rc == SBIO_OK || rc == SBIO_E_FS);
  /* a download past the SDK's limit */
  emu_fault(&f->emu, "{\"server\":\"envd\",\"method\":\"GET\",\"path\":\"^/files$\",\"action\":\"body\","
                     "\"content_type\":\"application/octet-stream\",\"raw\":\"x\",\"repeat\":17825792}");
  unsigned char *data = NULL;
  size_t len = 0;
  rc = sbio_file_read(sb, "x.txt", 0, &data, &len, err);
  if (rc == SBIO_OK) {
    sbio_free(data);
  } else {
    assert_has(sbio_error_message(err), "exceeded");
  }
  /* an error whose message quotes the key */
  char rule[400];
  snprintf(rule, sizeof rule,
           "{\"server\":\"envd\",\"path\":\"ListDir\",\"action\":\"body\",\"status\":500,\"times\":10,"
           "\"json\":{\"code\":\"internal\",\"message\":\"bad key %s\"}}",
           E2B_TEST_KEY);
  emu_fault(&f->emu, rule);
  assert_int_equal(sbio_file_list_dir(sb, "/home/user", &l, err), SBIO_E_FS);
  assert_lacks(sbio_error_message(err), E2B_TEST_KEY);
  assert_has(sbio_error_message(err), "bad key ***");
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  assert_int_equal(emu_live(&f->emu), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_create_answer_that_is_not_a_sandbox),
      T(test_create_answer_with_a_huge_id),
      T(test_create_answer_with_bad_fields_kills_what_was_made),
      T(test_create_answer_with_odd_optional_fields_still_works),
      T(test_error_answers_quoting_the_key_are_redacted),
      T(test_error_answer_quoting_a_caller_secret_is_redacted),
      T(test_a_key_where_the_message_is_cut_is_still_redacted),
      T(test_listing_with_a_repeated_token_stops),
      T(test_listing_that_never_ends_is_bounded),
      T(test_listing_with_odd_items),
      T(test_huge_bodies_hit_the_sdk_limit),
      T(test_process_stream_with_bad_content),
      T(test_file_answers_with_bad_content),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
