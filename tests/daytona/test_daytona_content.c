/* SPDX-License-Identifier: MIT */
/* The Daytona backend against answers that are well-formed HTTP but whose
 * content is wrong (the emulator's content faults: replace, raw, set,
 * drop): create answers that are no sandbox record, ids that could steer a
 * request elsewhere, unknown states, error messages that quote the key,
 * listings that loop, bodies past the API limit, toolbox answers without
 * an exit code or with wrong types. Each is a clear error, no secret in
 * it, and nothing stays provisioned (dtf_close checks). */
#include "dt_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_has(const char *text, const char *part) {
  if (!strstr(text, part)) fail_msg("'%s' does not contain '%s'", text, part);
}

static void assert_lacks(const char *text, const char *part) {
  if (strstr(text, part)) fail_msg("'%s' contains '%s'", text, part);
}

static sbio_code try_create(dtf *f, double timeout_s, sbio_error *err) {
  sbio_create_options *o = sbio_create_options_new();
  if (timeout_s > 0) sbio_create_options_set_timeout(o, timeout_s);
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, "daytona://", o, &sb, err);
  sbio_create_options_free(o);
  if (sb) sbio_sandbox_close(sb, NULL);
  return rc;
}

/* Requests that left for Daytona whose path does not start with one of
 * the expected prefixes. */
static size_t stray_requests(dtf *f) {
  cJSON *reqs = dtf_requests(f);
  size_t n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, reqs) {
    const char *p = cJSON_GetObjectItem(r, "path")->valuestring;
    if (strncmp(p, "/sandbox", 8) != 0 && strncmp(p, "/config", 7) != 0 && strncmp(p, "/process", 8) != 0 &&
        strncmp(p, "/files", 6) != 0)
      n++;
  }
  cJSON_Delete(reqs);
  return n;
}

/* The POST made a sandbox but its answer is no record: the error says so,
 * and the sandbox is found by its name and deleted. */
static void test_create_answer_that_is_not_a_record(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "ctnotrecord", NULL, NULL, NULL);
  static const char *const rules[] = {
      "\"raw\":\"<html>not json</html>\"",
      "\"raw\":\"\"",
      "\"replace\":[{\"id\":\"abc\"}]",
      "\"replace\":\"abc\"",
      "\"replace\":null",
      "\"drop\":[\"id\"]",
      "\"set\":{\"id\":12345}",
      "\"set\":{\"id\":null}",
      "\"set\":{\"id\":\"\"}",
  };
  sbio_error *err = sbio_error_new();
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
    char org[300];
    snprintf(org, sizeof org, "{\"faults\":[{\"match\":\"POST /sandbox\",%s}]}", rules[i]);
    dtf_org(&f, org);
    assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
    assert_has(sbio_error_message(err), "not with a sandbox record");
    assert_has(sbio_error_message(err), "creating a Daytona sandbox");
    if (dtf_alive(&f) != 0) fail_msg("rule %s left a sandbox", rules[i]);
  }
  sbio_error_free(err);
  dtf_close(&f);
}

/* Ids that are too long or could change the path they are put in: refused
 * or escaped, never a request to another route; nothing left behind. */
static void test_create_answer_with_a_hostile_id(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "cthostileid", NULL, NULL, NULL);
  static const char *const ids[] = {"..", ".", "../../config", "a/b", "x?y=1", "x#y", "%2e%2e"};
  sbio_error *err = sbio_error_new();
  for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
    char org[300];
    snprintf(org, sizeof org, "{\"faults\":[{\"match\":\"POST /sandbox\",\"set\":{\"id\":\"%s\"}}]}", ids[i]);
    dtf_org(&f, org);
    assert_int_not_equal(try_create(&f, 10, err), SBIO_OK);
    assert_int_equal(stray_requests(&f), 0);
    /* "." and ".." are refused; the others are escaped into one segment
     * and deleted by that (wrong) id, which Daytona answers 404: the
     * sandbox made under its real id is then deleted by its name. */
    if (dtf_alive(&f) != 0) fail_msg("id %s left a sandbox", ids[i]);
  }
  /* 10 KiB */
  size_t n = 10 * 1024;
  char *org = malloc(n + 200);
  int at = snprintf(org, n + 200, "{\"faults\":[{\"match\":\"POST /sandbox\",\"set\":{\"id\":\"");
  memset(org + at, 'a', n);
  snprintf(org + at + n, 200, "\"}}]}");
  dtf_org(&f, org);
  free(org);
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_has(sbio_error_message(err), "not with a sandbox record");
  assert_true(strlen(sbio_error_message(err)) < 1024);
  assert_int_equal(dtf_alive(&f), 0);
  sbio_error_free(err);
  dtf_close(&f);
}

/* A state Daytona never documented, and fields of the wrong type, on the
 * polls: the create ends (at its deadline at the latest) with the state
 * named, and the sandbox is deleted. */
static void test_unknown_state_and_wrong_types_while_starting(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "ctstate", NULL, NULL, NULL);
  sbio_error *err = sbio_error_new();
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox/*\",\"times\":-1,\"set\":{\"state\":\"exploding\"}}]}");
  double t0 = sbt_now();
  sbio_code rc = try_create(&f, 3, err);
  assert_true(rc == SBIO_E_CREATE || rc == SBIO_E_CREATE_TIMEOUT);
  assert_true(sbt_now() - t0 < 20);
  assert_has(sbio_error_message(err), "exploding");
  assert_int_equal(dtf_alive(&f), 0);
  /* the state of the wrong type, timestamps and labels of the wrong type */
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox/*\",\"times\":-1,\"set\":{\"state\":7,\"createdAt\":-1,"
              "\"labels\":null,\"errorReason\":[1],\"toolboxProxyUrl\":{}}}]}");
  t0 = sbt_now();
  rc = try_create(&f, 3, err);
  assert_true(rc == SBIO_E_CREATE || rc == SBIO_E_CREATE_TIMEOUT);
  assert_true(sbt_now() - t0 < 20);
  assert_int_equal(dtf_alive(&f), 0);
  /* odd optional fields on a good record: ignored, the sandbox works */
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox/*\",\"times\":-1,\"set\":{\"createdAt\":\"-99999-13-45\","
              "\"cpu\":\"2\",\"memory\":-1,\"disk\":1e300,\"labels\":{\"a\":1},\"sandboxClass\":null}}]}");
  assert_int_equal(try_create(&f, 30, err), SBIO_OK);
  sbio_error_free(err);
  dtf_close(&f);
}

/* Daytona (or a proxy) quoting the key back in an error: ***. */
static void test_error_answers_quoting_the_key_are_redacted(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "ctredact", NULL, NULL, NULL);
  static const int statuses[] = {400, 401, 403, 404, 500};
  sbio_error *err = sbio_error_new();
  for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
    char org[400];
    snprintf(org, sizeof org,
             "{\"faults\":[{\"match\":\"POST /sandbox\",\"status\":%d,\"message\":\"key %s is not valid\"}]}",
             statuses[i], f.key);
    dtf_org(&f, org);
    assert_int_not_equal(try_create(&f, 30, err), SBIO_OK);
    assert_int_equal(sbio_error_provider_status(err), statuses[i]);
    assert_lacks(sbio_error_message(err), f.key);
    assert_lacks(sbio_error_hint(err), f.key);
    if (statuses[i] != 401) assert_has(sbio_error_message(err), "key *** is not valid");
  }
  /* a raw body quoting it, and a toolbox error quoting it */
  char org[400];
  snprintf(org, sizeof org, "{\"faults\":[{\"match\":\"POST /sandbox\",\"raw\":\"Bearer %s\"}]}", f.key);
  dtf_org(&f, org);
  assert_int_equal(try_create(&f, 30, err), SBIO_E_CREATE);
  assert_lacks(sbio_error_message(err), f.key);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  snprintf(org, sizeof org,
           "{\"faults\":[{\"match\":\"toolbox POST /process/execute\",\"status\":500,\"message\":\"token %s\"}]}",
           f.key);
  dtf_org(&f, org);
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo hi", NULL, NULL, err), SBIO_E_EXEC);
  assert_lacks(sbio_error_message(err), f.key);
  assert_has(sbio_error_message(err), "token ***");
  sbio_sandbox_close(sb, NULL);
  for (size_t i = 0; i < f.log.n; i++) assert_lacks(f.log.items[i], f.key);
  for (size_t i = 0; i < f.audit.n; i++) assert_lacks(f.audit.items[i], f.key);
  sbio_error_free(err);
  dtf_close(&f);
}

/* A page whose next cursor is the one just sent: the listing loops, and
 * says so instead of listing forever. */
static void test_listing_that_loops_is_an_error(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "ctloop", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  char org[400];
  snprintf(
      org, sizeof org,
      "{\"resetRequests\":true,\"faults\":[{\"match\":\"GET /sandbox\",\"times\":-1,\"set\":{\"nextCursor\":\"%s\"}}]}",
      sbio_sandbox_id(sb));
  dtf_org(&f, org);
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_managed_list_get(f.host, "daytona", NULL, &l, err), SBIO_E_CONNECT);
  assert_null(l);
  assert_has(sbio_error_message(err), "does not end");
  cJSON *reqs = dtf_requests(&f);
  assert_true(dtf_count(reqs, "api", "GET", "/sandbox") <= 3);
  cJSON_Delete(reqs);
  /* items of the wrong shape: skipped, not a failure */
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox\",\"replace\":{\"items\":[1,null,\"x\",{\"id\":5},"
              "{\"id\":\"odd\",\"labels\":[]},{\"id\":\"good\",\"state\":\"exploding\",\"createdAt\":42,"
              "\"labels\":{\"sandboxio.managed\":\"true\",\"n\":1}}],\"nextCursor\":7}}]}");
  assert_int_equal(sbio_managed_list_get(f.host, "daytona", NULL, &l, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(l), 1);
  assert_string_equal(sbio_managed_list_id(l, 0), "good");
  assert_int_equal(sbio_managed_list_created_at(l, 0), -1);
  sbio_managed_list_free(l);
  /* neither a list nor a page */
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox\",\"replace\":{\"items\":\"all\"}}]}");
  assert_int_equal(sbio_managed_list_get(f.host, "daytona", NULL, &l, err), SBIO_E_CONNECT);
  assert_has(sbio_error_message(err), "neither with a list of sandboxes nor with a page");
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

/* A body past the API's limit (64 MiB): the SDK stops reading and says so. */
static void test_huge_body_hits_the_limit(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "cthuge", NULL, NULL, NULL);
  dtf_org(&f, "{\"faults\":[{\"match\":\"GET /sandbox\",\"raw\":\"[\",\"repeat\":68157440}]}");
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_managed_list_get(f.host, "daytona", NULL, &l, err), SBIO_E_CONNECT);
  assert_has(sbio_error_message(err), "larger than this backend accepts");
  assert_has(sbio_error_message(err), "listing");
  sbio_error_free(err);
  dtf_close(&f);
}

/* Toolbox answers with the wrong content. */
static void test_toolbox_answers_with_bad_content(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "cttoolbox", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  sbio_error *err = sbio_error_new();
  static const char *const no_code[] = {
      "\"raw\":\"not json\"",
      "\"replace\":[]",
      "\"replace\":\"x\"",
      "\"drop\":[\"exitCode\"]",
      "\"set\":{\"exitCode\":\"0\"}",
      "\"set\":{\"exitCode\":null}",
      "\"set\":{\"exitCode\":{}}",
  };
  for (size_t i = 0; i < sizeof no_code / sizeof no_code[0]; i++) {
    char org[300];
    snprintf(org, sizeof org, "{\"faults\":[{\"match\":\"toolbox POST /process/execute\",%s}]}", no_code[i]);
    dtf_org(&f, org);
    sbio_exec_result *r = NULL;
    sbio_code rc = sbio_sandbox_exec_shell(sb, "echo hi", NULL, &r, err);
    if (rc != SBIO_E_EXEC) fail_msg("%s: [%d] %s", no_code[i], rc, sbio_error_message(err));
    assert_null(r);
    assert_has(sbio_error_message(err), "has no exit code");
    assert_has(sbio_error_message(err), sbio_sandbox_id(sb));
  }
  /* exit codes out of range and output of the wrong type */
  static const char *const odd[] = {"1e30", "-5", "256", "2.5"};
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
    char org[300];
    snprintf(org, sizeof org,
             "{\"faults\":[{\"match\":\"toolbox POST /process/execute\",\"set\":{\"exitCode\":%s,\"result\":5}}]}",
             odd[i]);
    dtf_org(&f, org);
    sbio_exec_result *r = NULL;
    assert_int_equal(sbio_sandbox_exec_shell(sb, "echo hi", NULL, &r, err), SBIO_OK);
    assert_int_not_equal(sbio_exec_result_exit_code(r), 0);
    sbio_exec_result_free(r);
  }
  /* file listings with bad content */
  dtf_org(&f, "{\"faults\":[{\"match\":\"toolbox GET /files*\",\"replace\":{\"files\":[]}}]}");
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, ".", &l, err), SBIO_E_FS);
  assert_has(sbio_error_message(err), "not a list of files");
  dtf_org(&f, "{\"faults\":[{\"match\":\"toolbox GET /files*\",\"replace\":[1,null,{\"name\":5},{\"name\":\"../x\"},"
              "{\"name\":\"a\",\"size\":-5},{\"name\":\"b\",\"size\":1e300},{\"name\":\"c\",\"size\":\"12\"},"
              "{\"name\":\"d\",\"size\":7,\"isDir\":\"yes\"}]}]}");
  assert_int_equal(sbio_file_list_dir(sb, ".", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 4);
  for (size_t j = 0; j < 4; j++) {
    assert_null(strchr(sbio_file_list_name(l, j), '/'));
    assert_true(sbio_file_list_size(l, j) >= 0);
  }
  assert_int_equal(sbio_file_list_size(l, 3), 7);
  sbio_file_list_free(l);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_answer_that_is_not_a_record),
      cmocka_unit_test(test_create_answer_with_a_hostile_id),
      cmocka_unit_test(test_unknown_state_and_wrong_types_while_starting),
      cmocka_unit_test(test_error_answers_quoting_the_key_are_redacted),
      cmocka_unit_test(test_listing_that_loops_is_an_error),
      cmocka_unit_test(test_huge_body_hits_the_limit),
      cmocka_unit_test(test_toolbox_answers_with_bad_content),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
