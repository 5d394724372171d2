/* SPDX-License-Identifier: MIT */
/* The E2B backend against the emulator's injected faults: rate limits with
 * Retry-After (a create refused with 429 is sent again after the wait,
 * within its deadline), 5xx, slow answers, streams cut mid-envelope or split byte by
 * byte, keepalives, a sandbox vanishing mid-exec, end-of-stream errors,
 * a full disk, an old envd. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "e2b_support.h"

static sbio_sandbox *must_create(fx *f) {
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, "e2b://", NULL, &sb, err);
  if (rc != SBIO_OK) fail_msg("create: [%d] %s", rc, sbio_error_message(err));
  sbio_error_free(err);
  return sb;
}

static sbio_exec_result *shell(sbio_sandbox *sb, const char *script, sbio_code expect) {
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  sbio_code rc = sbio_sandbox_exec_shell(sb, script, NULL, &r, err);
  if (rc != expect) fail_msg("exec %s: [%d] %s (expected %d)", script, rc, sbio_error_message(err), expect);
  sbio_error_free(err);
  return r;
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (fx_open(f, NULL, NULL, NULL) != 0) return -1;
  *state = f;
  return 0;
}

static int setup_old_envd(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (fx_open(f, "0.3.5", NULL, NULL) != 0) return -1;
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

static void sleep_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* ------------------------------------------------------- control plane */
/* Seconds between the first two requests the emulator saw for method and
 * path (on its own clock), or -1. */
static double gap_between_first_two(fx *f, const char *method, const char *path) {
  char *text = emu_admin(&f->emu, "GET", "requests", NULL);
  cJSON *doc = text ? cJSON_Parse(text) : NULL;
  free(text);
  double at[2];
  int n = 0;
  const cJSON *r;
  cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "requests")) {
    const cJSON *m = cJSON_GetObjectItem(r, "method"), *p = cJSON_GetObjectItem(r, "path");
    if (n < 2 && cJSON_IsString(m) && cJSON_IsString(p) && !strcmp(m->valuestring, method) &&
        !strcmp(p->valuestring, path))
      at[n++] = cJSON_GetObjectItem(r, "at")->valuedouble;
  }
  cJSON_Delete(doc);
  return n == 2 ? at[1] - at[0] : -1;
}

/* E2B refused the create before doing anything: waiting what it asked and
 * asking again is what a user expects, within the create's deadline. */
static void test_429_on_create_is_retried_after_retry_after(void **state) {
  fx *f = *state;
  free(emu_admin(&f->emu, "DELETE", "requests", NULL));
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"status\","
                     "\"status\":429,\"retry_after\":\"1\",\"times\":1,\"message\":\"rate limit exceeded\"}");
  sbio_sandbox *sb = must_create(f);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 2);
  assert_true(gap_between_first_two(f, "POST", "/sandboxes") >= 0.95); /* it waited what E2B asked */
  assert_int_equal(emu_live(&f->emu), 1);
  sbio_sandbox_close(sb, NULL);
  /* The other form of Retry-After: an HTTP date. */
  free(emu_admin(&f->emu, "DELETE", "requests", NULL));
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"status\","
                     "\"status\":429,\"retry_after_in\":1,\"times\":1}");
  sb = must_create(f);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 2);
  assert_true(gap_between_first_two(f, "POST", "/sandboxes") > 0);
  sbio_sandbox_close(sb, NULL);
  assert_int_equal(emu_live(&f->emu), 0);
}

/* A wait the deadline cannot absorb is not made: the rate limit is the
 * answer, at once, not a timeout at the deadline. */
static void test_429_past_the_deadline_fails_in_time(void **state) {
  fx *f = *state;
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"status\","
                     "\"status\":429,\"retry_after\":\"60\",\"times\":100,\"message\":\"rate limit exceeded\"}");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://?timeout=5", NULL, &sb, err), SBIO_E_RATE_LIMIT);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1502"); /* not SBX_E1203, the deadline */
  assert_non_null(strstr(sbio_error_message(err), "Retry-After 60"));
  assert_int_equal(sbio_error_provider_status(err), 429);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 1);
  /* Refused every time: bounded, 1 + max_retries attempts. */
  free(emu_admin(&f->emu, "DELETE", "faults", NULL));
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"status\","
                     "\"status\":429,\"retry_after\":\"0\",\"times\":100}");
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://", NULL, &sb, err), SBIO_E_RATE_LIMIT);
  assert_non_null(strstr(sbio_error_message(err), "(after 4 attempts)"));
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 1 + 4);
  assert_int_equal(emu_live(&f->emu), 0);
  sbio_error_free(err);
}

static void test_5xx_on_create_is_not_retried(void **state) {
  fx *f = *state;
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"status\","
                     "\"status\":503,\"message\":\"no capacity\"}");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://", NULL, &sb, err), SBIO_E_CREATE);
  assert_non_null(strstr(sbio_error_message(err), "503"));
  assert_int_equal(sbio_error_provider_status(err), 503);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 1);
  sbio_error_free(err);
}

static void test_429_with_retry_after_on_kill_is_retried(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"DELETE\",\"path\":\"^/sandboxes/\",\"action\":\"status\","
                     "\"status\":429,\"retry_after\":\"1\",\"times\":1}");
  double t0 = sbt_now();
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  assert_true(sbt_now() - t0 >= 0.9); /* waited what Retry-After said */
  assert_int_equal(emu_count(&f->emu, "DELETE", "/sandboxes/"), 2);
  assert_int_equal(emu_live(&f->emu), 0);
  sbio_sandbox_close(sb, NULL);
}

static void test_5xx_on_listing_is_retried_with_backoff(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"GET\",\"path\":\"^/v2/sandboxes$\",\"action\":\"status\","
                     "\"status\":502,\"times\":2}");
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_managed_list_get(f->host, "e2b", NULL, &l, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(l), 1);
  sbio_managed_list_free(l);
  assert_int_equal(emu_count(&f->emu, "GET", "/v2/sandboxes"), 3);
  /* persistent failure: bounded attempts (1 + max_retries 3), then an error */
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"GET\",\"path\":\"^/v2/sandboxes$\",\"action\":\"status\","
                     "\"status\":500,\"times\":100}");
  assert_int_equal(sbio_managed_list_get(f->host, "e2b", NULL, &l, err), SBIO_E_CONNECT);
  assert_non_null(strstr(sbio_error_message(err), "500"));
  assert_int_equal(emu_count(&f->emu, "GET", "/v2/sandboxes"), 3 + 4);
  free(emu_admin(&f->emu, "DELETE", "faults", NULL));
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

static void test_connection_reset_on_an_idempotent_call_is_retried(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"envd\",\"path\":\"ListDir\",\"action\":\"reset\",\"times\":1}");
  sbio_file_list *l = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_list_dir(sb, "/home/user", &l, err), SBIO_OK);
  sbio_file_list_free(l);
  assert_int_equal(emu_count(&f->emu, "POST", "ListDir"), 2);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

static void test_slow_create_past_the_deadline_times_out(void **state) {
  fx *f = *state;
  emu_fault(&f->emu, "{\"server\":\"api\",\"method\":\"POST\",\"path\":\"^/sandboxes$\",\"action\":\"delay\","
                     "\"delay_ms\":8000}");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  double t0 = sbt_now();
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://?timeout=1", NULL, &sb, err), SBIO_E_CREATE_TIMEOUT);
  assert_true(sbt_now() - t0 < 6); /* the 1 s deadline, not the server's answer at 8 s, ended it */
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1203");
  sbio_error_free(err);
  /* E2B finished creating it after we gave up: its lifetime (1 s) reclaims it */
  double left = t0 + 9.5 - sbt_now();
  if (left > 0) sleep_s(left);
  for (int i = 0; i < 100 && emu_live(&f->emu) != 0; i++) sleep_s(0.1);
  assert_int_equal(emu_live(&f->emu), 0);
}

static void test_slow_answer_within_the_deadline(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_write(sb, "a.txt", "abc", 3, err), SBIO_OK);
  emu_fault(&f->emu, "{\"server\":\"envd\",\"method\":\"GET\",\"path\":\"^/files$\",\"action\":\"delay\","
                     "\"delay_ms\":300}");
  unsigned char *data = NULL;
  size_t len;
  assert_int_equal(sbio_file_read(sb, "a.txt", 0, &data, &len, err), SBIO_OK);
  assert_int_equal(len, 3);
  sbio_free(data);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* ---------------------------------------------------------- the stream */
static void test_stream_split_byte_by_byte(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"envd\",\"path\":\"Process/Start\",\"action\":\"split\"}");
  sbio_exec_result *r = shell(sb, "echo one; echo two >&2; exit 5", SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "one\n");
  assert_string_equal(sbio_exec_result_stderr(r, NULL), "two\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 5);
  sbio_exec_result_free(r);
  sbio_sandbox_close(sb, NULL);
}

static void test_several_envelopes_in_one_read(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"envd\",\"path\":\"Process/Start\",\"action\":\"coalesce\"}");
  sbio_exec_result *r = shell(sb, "for i in 1 2 3 4 5; do echo $i; sleep 0.05; done", SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "1\n2\n3\n4\n5\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  sbio_sandbox_close(sb, NULL);
}

static void test_keepalives_are_ignored(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_config(&f->emu, "{\"keepalive_ms\": 50}");
  sbio_exec_result *r = shell(sb, "sleep 0.6; echo done", SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "done\n");
  sbio_exec_result_free(r);
  emu_config(&f->emu, "{\"keepalive_ms\": 0}");
  sbio_sandbox_close(sb, NULL);
}

static void test_stream_cut_mid_envelope(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"envd\",\"path\":\"Process/Start\",\"action\":\"cut\",\"after_events\":1}");
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo a; sleep 0.2; echo b; sleep 30", NULL, &r, err), SBIO_E_EXEC);
  assert_non_null(strstr(sbio_error_message(err), "broke off"));
  assert_null(r);
  /* the orphaned command was killed, the sandbox still works */
  assert_int_equal(emu_count(&f->emu, "POST", "SendSignal"), 1);
  r = shell(sb, "echo fine", SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "fine\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

static void test_sandbox_vanishing_mid_exec_is_gone(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"envd\",\"path\":\"Process/Start\",\"action\":\"vanish\",\"after_events\":1}");
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo a; sleep 0.2; echo b; sleep 30", NULL, &r, err), SBIO_E_GONE);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1204");
  assert_non_null(strstr(sbio_error_message(err), sbio_sandbox_id(sb)));
  /* what the proxy says afterwards: 502, sandbox not found */
  assert_int_equal(sbio_sandbox_exec_shell(sb, "true", NULL, &r, err), SBIO_E_GONE);
  assert_int_equal(sbio_error_provider_status(err), 502);
  unsigned char *data;
  size_t len;
  assert_int_equal(sbio_file_read(sb, "/etc/hostname", 0, &data, &len, err), SBIO_E_GONE);
  sbio_error_free(err);
  assert_int_equal(sbio_sandbox_close(sb, NULL), SBIO_OK); /* kill: 404 means already gone */
}

static void test_end_of_stream_error(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_fault(&f->emu, "{\"server\":\"envd\",\"path\":\"Process/Start\",\"action\":\"end_error\",\"code\":\"internal\","
                     "\"message\":\"envd fell over\"}");
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo x", NULL, &r, err), SBIO_E_EXEC);
  assert_non_null(strstr(sbio_error_message(err), "envd fell over"));
  assert_non_null(strstr(sbio_error_message(err), "internal"));
  /* a command envd cannot start: the stream's end carries the error */
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_cwd(o, "/no/such/dir");
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("true"), o, &r, err), SBIO_E_EXEC);
  assert_non_null(strstr(sbio_error_message(err), "could not start"));
  sbio_exec_options_free(o);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  free(emu_admin(&f->emu, "DELETE", "violations", NULL)); /* the missing cwd was on purpose */
}

/* ---------------------------------------------------------------- files */
static void test_out_of_disk_is_a_resource_limit(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  emu_config(&f->emu, "{\"disk_free_bytes\": 1000}");
  static char big[5000];
  memset(big, 'x', sizeof big);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_write(sb, "big.bin", big, sizeof big, err), SBIO_E_RESOURCE_LIMIT);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1402");
  assert_int_equal(sbio_error_provider_status(err), 507);
  assert_int_equal(sbio_file_write(sb, "small.bin", big, 10, err), SBIO_OK);
  emu_config(&f->emu, "{\"disk_free_bytes\": null}");
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

static void test_expired_sandbox_is_gone(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  char path[200];
  snprintf(path, sizeof path, "vanish/%s", sbio_sandbox_id(sb));
  free(emu_admin(&f->emu, "POST", path, NULL));
  sbio_error *err = sbio_error_new();
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, "/", &l, err), SBIO_E_GONE);
  assert_int_equal(sbio_file_write(sb, "x", "x", 1, err), SBIO_E_GONE);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* ------------------------------------------------------------ old envd */
static void test_old_envd_multipart_upload_and_no_stdin(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f);
  static unsigned char blob[5000];
  for (size_t i = 0; i < sizeof blob; i++) blob[i] = (unsigned char)(255 - i % 256);
  sbio_error *err = sbio_error_new();
  /* envd < 0.5.7 takes multipart uploads only */
  assert_int_equal(sbio_file_write(sb, "/tmp/m.bin", blob, sizeof blob, err), SBIO_OK);
  unsigned char *data = NULL;
  size_t len;
  assert_int_equal(sbio_file_read(sb, "/tmp/m.bin", 0, &data, &len, err), SBIO_OK);
  assert_int_equal(len, sizeof blob);
  assert_memory_equal(data, blob, len);
  sbio_free(data);
  /* envd < 0.5.2 cannot close stdin: refused, not hung */
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_stdin(o, "x", 1);
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("cat"), o, &r, err), SBIO_E_CAPABILITY);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1101");
  sbio_exec_options_free(o);
  r = shell(sb, "echo ok", SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "ok\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_429_on_create_is_retried_after_retry_after),
      T(test_429_past_the_deadline_fails_in_time),
      T(test_5xx_on_create_is_not_retried),
      T(test_429_with_retry_after_on_kill_is_retried),
      T(test_5xx_on_listing_is_retried_with_backoff),
      T(test_connection_reset_on_an_idempotent_call_is_retried),
      T(test_slow_create_past_the_deadline_times_out),
      T(test_slow_answer_within_the_deadline),
      T(test_stream_split_byte_by_byte),
      T(test_several_envelopes_in_one_read),
      T(test_keepalives_are_ignored),
      T(test_stream_cut_mid_envelope),
      T(test_sandbox_vanishing_mid_exec_is_gone),
      T(test_end_of_stream_error),
      T(test_out_of_disk_is_a_resource_limit),
      T(test_expired_sandbox_is_gone),
      cmocka_unit_test_setup_teardown(test_old_envd_multipart_upload_and_no_stdin, setup_old_envd, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
