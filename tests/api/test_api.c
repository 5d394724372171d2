/* SPDX-License-Identifier: MIT */
/* Behaviour of the client API, end to end through the shared library and
 * the fake backend: lifecycle, exec semantics, deadlines, files, isolation
 * requirements, policy, secrets, audit. Nothing here special-cases the
 * fake; the same assertions are meant for every backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api_support.h"

static sbio_sandbox *must_create(fixture *f, const char *uri, sbio_create_options *o) {
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, uri, o, &sb, err);
  if (rc != SBIO_OK) fail_msg("create %s: [%d] %s", uri ? uri : "(default)", rc, sbio_error_message(err));
  sbio_error_free(err);
  return sb;
}

static sbio_exec_result *must_exec(sbio_sandbox *sb, const char *const *argv, sbio_exec_options *o) {
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  sbio_code rc = sbio_sandbox_exec(sb, argv, o, &r, err);
  if (rc != SBIO_OK) fail_msg("exec %s: [%d] %s", argv[0], rc, sbio_error_message(err));
  sbio_error_free(err);
  return r;
}

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (fixture_open(f, NULL, NULL) != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture_close(*state);
  free(*state);
  return 0;
}

/* --------------------------------------------------------------- lifecycle */
static void test_create_run_kill_and_kill_again(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  assert_true(strlen(sbio_sandbox_id(sb)) > 0);
  assert_string_equal(sbio_sandbox_backend(sb), "fake");
  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_CONTAINER);
  char desc[256];
  sbio_sandbox_describe(sb, desc, sizeof desc);
  assert_non_null(strstr(desc, "CONTAINER"));
  assert_non_null(strstr(desc, sbio_sandbox_id(sb)));
  sbio_exec_result *r = must_exec(sb, ARGV("echo", "hi"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "hi\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  assert_false(sbio_sandbox_alive(sb));
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("echo", "x"), NULL, NULL, err), SBIO_E_GONE);
  sbio_error_free(err);
  assert_int_equal(sbio_sandbox_close(sb, NULL), SBIO_OK);
  assert_int_equal(sbt_file_count(f->call_log, "kill "), 1);
}

static void test_host_close_tears_down_what_the_caller_left(void **state) {
  fixture *f = *state;
  must_create(f, "fake://", NULL);
  must_create(f, "fake://", NULL);
  sbio_host_close(f->host);
  f->host = NULL;
  assert_int_equal(sbt_file_count(f->call_log, "kill "), 2);
}

/* ------------------------------------------------------------ exec */
static void test_exit_codes_and_streams(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  sbio_exec_result *r = must_exec(sb, ARGV("sh", "-c", "exit 3"), NULL);
  assert_int_equal(sbio_exec_result_exit_code(r), 3);
  sbio_exec_result_free(r);
  r = must_exec(sb, ARGV("sh", "-c", "echo out; echo err >&2"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "out\n");
  assert_string_equal(sbio_exec_result_stderr(r, NULL), "err\n");
  sbio_exec_result_free(r);
  /* A missing program (exit 127, named on stderr) is the conformance kit's
   * exec.missing_program_exits_127, run against every backend. */
  sbio_sandbox_close(sb, NULL);
}

static void test_env_and_no_shell_for_argv(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_env(co, "FROM_CREATE", "c1");
  sbio_sandbox *sb = must_create(f, "fake://", co);
  sbio_create_options_free(co);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_env(o, "SBX_CONTRACT_VAR", "v1");
  sbio_exec_result *r = must_exec(sb, ARGV("printenv", "SBX_CONTRACT_VAR"), o);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "v1\n");
  sbio_exec_result_free(r);
  r = must_exec(sb, ARGV("printenv", "FROM_CREATE"), o);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "c1\n");
  sbio_exec_result_free(r);
  r = must_exec(sb, ARGV("echo", "$SBX_CONTRACT_VAR"), o);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "$SBX_CONTRACT_VAR\n");
  sbio_exec_result_free(r);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo $SBX_CONTRACT_VAR", o, &r, err), SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "v1\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

static void test_stdin_is_delivered(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_stdin(o, "piped\n", 6);
  sbio_exec_result *r = must_exec(sb, ARGV("cat"), o);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "piped\n");
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

typedef struct {
  char out[4096];
  size_t out_len;
  int calls;
  int stderr_calls;
} stream_capture;

static void on_output(sbio_stream stream, const char *data, size_t len, void *user) {
  stream_capture *c = user;
  c->calls++;
  if (stream == SBIO_STDERR) {
    c->stderr_calls++;
    return;
  }
  if (c->out_len + len < sizeof c->out) {
    memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
  }
}

static void test_streaming_preserves_order(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  stream_capture cap = {0};
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_output_callback(o, on_output, &cap);
  sbio_exec_result *r = must_exec(sb, ARGV("seq", "1", "20"), o);
  char expected[256] = "";
  for (int i = 1; i <= 20; i++) snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%d\n", i);
  assert_int_equal(cap.out_len, strlen(expected));
  assert_memory_equal(cap.out, expected, cap.out_len);
  assert_true(cap.calls >= 2); /* streamed, not one final blob */
  assert_string_equal(sbio_exec_result_stdout(r, NULL), expected);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

static void test_output_cap_truncates_buffer_not_stream(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  stream_capture cap = {0};
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_output_callback(o, on_output, &cap);
  sbio_exec_options_set_output_cap(o, 10);
  sbio_exec_result *r = must_exec(sb, ARGV("seq", "1", "100"), o);
  size_t len;
  sbio_exec_result_stdout(r, &len);
  assert_int_equal(len, 10);
  assert_true(sbio_exec_result_truncated(r));
  assert_int_equal(cap.out_len, 292); /* every byte of 1..100 reached the callback */
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

/* -------------------------------------------------------------- deadlines */
static void test_exec_deadline_kills_and_sandbox_survives(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 1); /* "started" must come out before it, on a busy machine too */
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  double t0 = sbt_now();
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("sh", "-c", "echo started; sleep 3600000"), o, &r, err),
                   SBIO_E_EXEC_TIMEOUT);
  assert_true(sbt_now() - t0 < 30.0); /* bounded, not a hang; not a timing assertion on speed */
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1302");
  assert_non_null(r);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "started\n");
  sbio_exec_result_free(r);
  r = must_exec(sb, ARGV("echo", "still-usable"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "still-usable\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

static void test_exec_inherits_the_sandbox_timeout(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://?timeout=1.5", NULL); /* also create's deadline: not tiny */
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("sleep", "3600000"), NULL, NULL, err), SBIO_E_EXEC_TIMEOUT);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* Out-of-range timeouts (not positive, or above SBIO_MAX_TIMEOUT_S) are
 * refused; none reaches the backend. */
static void test_non_positive_timeouts_are_refused(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_set_timeout(co, 0), SBIO_E_CONFIG);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  /* Ignoring the setter's status still fails closed. */
  assert_int_equal(sbio_sandbox_create(f->host, "fake://", co, &sb, err), SBIO_E_CONFIG);
  assert_null(sb);
  sbio_create_options_free(co);
  assert_int_equal(sbio_sandbox_create(f->host, "fake://?timeout=-1", NULL, &sb, err), SBIO_E_CONFIG);
  sb = must_create(f, "fake://", NULL);
  sbio_exec_options *o = sbio_exec_options_new();
  assert_int_equal(sbio_exec_options_set_timeout(o, -1), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("true"), o, NULL, err), SBIO_E_CONFIG);
  sbio_exec_options_free(o);
  /* Above the one maximum (24 h): refused by both setters and the URI,
   * and the create fails closed even when the setter's status is ignored. */
  sbio_sandbox *none = NULL;
  co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_set_timeout(co, SBIO_MAX_TIMEOUT_S), SBIO_OK);
  assert_int_equal(sbio_create_options_set_timeout(co, 1e20), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_create(f->host, "fake://", co, &none, err), SBIO_E_CONFIG);
  assert_null(none);
  assert_non_null(strstr(sbio_error_message(err), "above the maximum of 86400 seconds"));
  sbio_create_options_free(co);
  assert_int_equal(sbio_sandbox_create(f->host, "fake://?timeout=86401", NULL, &none, err), SBIO_E_CONFIG);
  assert_null(none);
  o = sbio_exec_options_new();
  assert_int_equal(sbio_exec_options_set_timeout(o, SBIO_MAX_TIMEOUT_S + 1), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("true"), o, NULL, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "above the maximum of 86400 seconds"));
  sbio_exec_options_free(o);
  co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_set_memory_mb(co, 0), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_create(f->host, "fake://", co, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "never unset"));
  sbio_create_options_free(co);
  sbio_error_free(err);
  assert_int_equal(sbt_file_count(f->call_log, "create "), 1);
}

/* A kill from another thread ending an exec (exit 137) is the conformance
 * kit's lifecycle.kill_during_exec, run against the fake and every other
 * backend (tests/conformance). */

/* Per-exec cancellation: the canceller thread waits until the command has
 * printed "started" (so the cancel lands mid-run, without timing), then
 * cancels; the exec ends with SBIO_E_CANCELLED and the sandbox lives on. */
typedef struct cancel_race {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int started;
  sbio_cancel *token;
} cancel_race;

static void on_started(sbio_stream stream, const char *data, size_t len, void *user) {
  cancel_race *c = user;
  (void)stream;
  if (len >= 7 && memcmp(data, "started", 7) == 0) {
    pthread_mutex_lock(&c->mu);
    c->started = 1;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
  }
}

static void *canceller(void *p) {
  cancel_race *c = p;
  pthread_mutex_lock(&c->mu);
  while (!c->started) pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
  sbio_cancel_request(c->token);
  return NULL;
}

static void test_cancel_one_exec_from_another_thread_keeps_the_sandbox(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  assert_true(sbio_sandbox_exec_cancellable(sb));
  sbio_exec_result *r = must_exec(sb, ARGV("sh", "-c", "echo kept > /work/state"), NULL);
  sbio_exec_result_free(r);

  cancel_race c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, sbio_cancel_new()};
  assert_non_null(c.token);
  sbio_exec_options *o = sbio_exec_options_new();
  assert_int_equal(sbio_exec_options_set_cancel(o, c.token), SBIO_OK);
  assert_int_equal(sbio_exec_options_set_output_callback(o, on_started, &c), SBIO_OK);
  assert_int_equal(sbio_exec_options_set_timeout(o, 120), SBIO_OK);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, canceller, &c), 0);
  sbio_error *err = sbio_error_new();
  r = NULL;
  double t0 = sbt_now();
  sbio_code rc = sbio_sandbox_exec(sb, ARGV("sh", "-c", "echo started; sleep 100000000; echo never"), o, &r, err);
  pthread_join(t, NULL);
  assert_int_equal(rc, SBIO_E_CANCELLED);
  assert_true(sbt_now() - t0 < 60.0); /* not the 120 s deadline */
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1902");
  assert_string_equal(sbio_error_sandbox_id(err), sbio_sandbox_id(sb));
  assert_non_null(r); /* the output so far */
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "started\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 137);
  sbio_exec_result_free(r);
  /* audited as a cancelled exec, with the tier */
  const char *last = f->audit.items[f->audit.n - 1];
  assert_non_null(strstr(last, "\"event\":\"exec\""));
  assert_non_null(strstr(last, "\"error_code\":\"SBX_E1902\""));
  assert_non_null(strstr(last, "\"tier\":\"CONTAINER\""));

  /* the sandbox and its files are still there */
  assert_true(sbio_sandbox_alive(sb));
  r = must_exec(sb, ARGV("cat", "/work/state"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "kept\n");
  sbio_exec_result_free(r);

  /* a requested token stays requested: the next exec with it never runs */
  size_t execs = sbt_file_count(f->call_log, "exec ");
  r = NULL;
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("echo", "no"), o, &r, err), SBIO_E_CANCELLED);
  assert_non_null(r); /* empty: nothing ran */
  assert_int_equal(sbio_exec_result_exit_code(r), -1);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "");
  sbio_exec_result_free(r);
  assert_int_equal(sbt_file_count(f->call_log, "exec "), execs);
  assert_int_equal(sbt_file_count(f->call_log, "kill "), 0);

  sbio_exec_options_free(o);
  sbio_cancel_free(c.token);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* A backend without per-exec cancellation refuses a token up front rather
 * than leaving the process running after a "cancel". */
static void test_cancel_token_on_a_backend_that_cannot_is_refused(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "liar://", NULL);
  assert_false(sbio_sandbox_exec_cancellable(sb));
  sbio_cancel *token = sbio_cancel_new();
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_cancel(o, token);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("echo", "x"), o, NULL, err), SBIO_E_CAPABILITY);
  assert_non_null(strstr(sbio_error_message(err), "cannot cancel one exec"));
  assert_non_null(strstr(sbio_error_hint(err), "without a cancellation token"));
  /* without the token the same exec runs */
  sbio_exec_options_set_cancel(o, NULL);
  sbio_exec_result *r = must_exec(sb, ARGV("echo", "x"), o);
  sbio_exec_result_free(r);
  assert_false(sbio_cancel_requested(token));
  sbio_cancel_request(token);
  sbio_cancel_request(token);
  assert_true(sbio_cancel_requested(token));
  assert_false(sbio_cancel_requested(NULL));
  sbio_cancel_free(token);
  sbio_exec_options_free(o);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* ------------------------------------------------------------------ files */
static void test_files_round_trip_and_relative_paths(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  unsigned char blob[1024];
  for (size_t i = 0; i < sizeof blob; i++) blob[i] = (unsigned char)(i % 256);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_write(sb, "/tmp/blob.bin", blob, sizeof blob, err), SBIO_OK);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(sb, "/tmp/blob.bin", 0, &data, &len, err), SBIO_OK);
  assert_int_equal(len, sizeof blob);
  assert_memory_equal(data, blob, len);
  sbio_free(data);

  assert_int_equal(sbio_file_write(sb, "relative.txt", "h\xc3\xa9llo\n", 7, err), SBIO_OK);
  sbio_exec_result *r = must_exec(sb, ARGV("cat", "relative.txt"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "h\xc3\xa9llo\n");
  sbio_exec_result_free(r);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, ".", &l, err), SBIO_OK);
  int found = 0;
  for (size_t i = 0; i < sbio_file_list_count(l); i++)
    if (strcmp(sbio_file_list_name(l, i), "relative.txt") == 0) found = 1;
  assert_true(found);
  sbio_file_list_free(l);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

static void test_files_mkdir_list_remove_and_missing(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_mkdir(sb, "/work/d1/d2", 0, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_mkdir(sb, "/work/d1/d2", 1, err), SBIO_OK);
  assert_int_equal(sbio_file_write(sb, "/work/d1/d2/f", "x", 1, err), SBIO_OK);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, "/work/d1/d2", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 1);
  assert_string_equal(sbio_file_list_name(l, 0), "f");
  assert_string_equal(sbio_file_list_path(l, 0), "/work/d1/d2/f");
  assert_int_equal(sbio_file_list_size(l, 0), 1);
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_list_dir(sb, "/work/d1", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 1);
  assert_true(sbio_file_list_is_dir(l, 0));
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_remove(sb, "/work/d1/d2/f", err), SBIO_OK);
  assert_int_equal(sbio_file_list_dir(sb, "/work/d1/d2", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 0);
  sbio_file_list_free(l);
  unsigned char *data = NULL;
  size_t len;
  assert_int_equal(sbio_file_read(sb, "/work/missing", 0, &data, &len, err), SBIO_E_PATH_NOT_FOUND);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1701");
  assert_int_equal(sbio_file_remove(sb, "/work/missing", err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_write(sb, "/nope/dir/f", "x", 1, err), SBIO_E_PATH_NOT_FOUND);
  /* Reads beyond the cap fail rather than truncate silently. */
  assert_int_equal(sbio_file_write(sb, "/work/big", "0123456789", 10, err), SBIO_OK);
  assert_int_equal(sbio_file_read(sb, "/work/big", 4, &data, &len, err), SBIO_E_FS);
  assert_null(data);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* ------------------------------------------------------- isolation tiers */
static void test_require_isolation_above_tier_fails_before_provisioning(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_MICROVM);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "fake://", co, &sb, err), SBIO_E_CONFIG);
  assert_null(sb);
  const char *msg = sbio_error_message(err);
  assert_non_null(strstr(msg, "MICROVM"));
  assert_non_null(strstr(msg, "CONTAINER"));
  assert_non_null(strstr(msg, "fake"));
  assert_string_equal(sbio_error_backend(err), "fake");
  /* Nothing was provisioned: the fake's create never ran, not even plan. */
  assert_int_equal(sbt_file_count(f->call_log, "create"), 0);
  assert_int_equal(sbt_file_count(f->audit_path, "\"event\":\"create_denied\""), 1);
  assert_int_equal(sbt_file_count(f->audit_path, "\"event\":\"created\""), 0);
  sbio_create_options_free(co);
  sbio_error_free(err);
}

static void test_require_isolation_at_tier_passes(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_CONTAINER);
  sbio_sandbox *sb = must_create(f, "fake://", co);
  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_CONTAINER);
  sbio_sandbox_close(sb, NULL);
  sbio_create_options_free(co);
  assert_int_equal(sbt_file_count(f->audit_path, "\"event\":\"created\""), 1);
}

static void test_requiring_unknown_is_a_configuration_error(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_require_isolation(co, SBIO_TIER_UNKNOWN), SBIO_E_CONFIG);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "fake://", co, &sb, err), SBIO_E_CONFIG);
  sbio_create_options_free(co);
  sbio_error_free(err);
  assert_int_equal(sbt_file_count(f->call_log, "create"), 0);
}

static void test_unknown_backend_satisfies_nothing_and_warns_once(void **state) {
  fixture *f = *state;
  const sbio_backend_info *b = sbio_host_backend_find(f->host, "vague");
  assert_non_null(b);
  assert_int_equal(sbio_backend_info_tier(b), SBIO_TIER_UNKNOWN);
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_CONTAINER);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "vague://", co, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "UNKNOWN"));
  sbio_create_options_free(co);
  sb = must_create(f, "vague://", NULL);
  sbio_sandbox_close(sb, NULL);
  sb = must_create(f, "vague://", NULL);
  sbio_sandbox_close(sb, NULL);
  assert_int_equal(sbt_lines_count(&f->log, "vague has no verified isolation tier"), 1);
  sbio_error_free(err);
}

static void test_http_source_makes_the_claim_unknown(void **state) {
  fixture *f = *state;
  const sbio_backend_info *b = sbio_host_backend_find(f->host, "plainhttp");
  assert_non_null(b);
  assert_int_equal(sbio_mechanism_claimed_tier(b, 0), SBIO_TIER_MICROVM);
  assert_int_equal(sbio_mechanism_tier(b, 0), SBIO_TIER_UNKNOWN);
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_MICROVM);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "plainhttp://", co, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "https"));
  char path[512];
  snprintf(path, sizeof path, "%s/create", f->dir);
  assert_int_equal(access(path, F_OK), -1);
  sbio_create_options_free(co);
  sbio_error_free(err);
}

static void test_observed_mechanism_mismatch_destroys_the_sandbox(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_GVISOR);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "liar://", co, &sb, err), SBIO_E_CREATE);
  assert_null(sb);
  assert_non_null(strstr(sbio_error_message(err), "runc"));
  char path[512];
  snprintf(path, sizeof path, "%s/create", f->dir);
  assert_int_equal(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/kill", f->dir);
  assert_int_equal(access(path, F_OK), 0); /* destroyed, not leaked */
  snprintf(path, sizeof path, "%s/release", f->dir);
  assert_int_equal(access(path, F_OK), 0);
  assert_int_equal(sbt_file_count(f->audit_path, "\"event\":\"create_failed\""), 1);
  sbio_create_options_free(co);
  sbio_error_free(err);
}

/* sbio_sandbox_check: what a create decides before it provisions anything,
 * and nothing more. */
static int testbk_ran(const fixture *f, const char *op) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", f->dir, op);
  return access(path, F_OK) == 0;
}

static void test_check_decides_like_create_and_provisions_nothing(void **state) {
  fixture *f = *state;
  sbio_error *err = sbio_error_new();
  sbio_tier planned = SBIO_TIER_MICROVM;
  /* No requirement: the plan's tier, nothing created, nothing audited. */
  assert_int_equal(sbio_sandbox_check(f->host, "fake://", NULL, &planned, err), SBIO_OK);
  assert_int_equal(planned, SBIO_TIER_CONTAINER);
  assert_int_equal(sbt_file_count(f->call_log, "plan"), 1);
  assert_int_equal(sbt_file_count(f->call_log, "create"), 0);
  assert_false(sbt_lines_contain(&f->audit, "\"event\":\"create"));
  /* Refused from metadata: the create's own error, audited as its
   * create_denied (marked a check), and the backend never asked. */
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_MICROVM);
  assert_int_equal(sbio_sandbox_check(f->host, "fake://", co, &planned, err), SBIO_E_CONFIG);
  assert_int_equal(planned, SBIO_TIER_UNKNOWN);
  char check_msg[512];
  snprintf(check_msg, sizeof check_msg, "%s", sbio_error_message(err));
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "fake://", co, &sb, err), SBIO_E_CONFIG);
  assert_string_equal(check_msg, sbio_error_message(err));
  assert_int_equal(sbt_file_count(f->call_log, "plan"), 1);
  assert_int_equal(sbt_lines_count(&f->audit, "\"check\":1"), 1);
  assert_true(sbt_lines_contain(&f->audit, "\"event\":\"create_denied\""));
  sbio_create_options_free(co);
  /* Metadata could meet GVISOR (runsc is declared), the plan would not
   * (runc): only the plan tells, and check asks it. */
  co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_GVISOR);
  assert_int_equal(sbio_sandbox_check(f->host, "planrunc://", co, &planned, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "mechanism \"runc\""));
  assert_true(testbk_ran(f, "plan"));
  assert_false(testbk_ran(f, "create"));
  /* A plan that meets it passes; the create still checks what it observes
   * (the liar plans runsc and creates with runc: see the test above). */
  assert_int_equal(sbio_sandbox_check(f->host, "liar://", co, &planned, err), SBIO_OK);
  assert_int_equal(planned, SBIO_TIER_GVISOR);
  assert_false(testbk_ran(f, "create"));
  sbio_create_options_free(co);
  /* Bad input fails as for a create. */
  assert_int_equal(sbio_sandbox_check(f->host, "no-scheme", NULL, NULL, err), SBIO_E_CONFIG);
  assert_int_equal(sbio_sandbox_check(f->host, "nosuch://", NULL, NULL, err), SBIO_E_BACKEND_NOT_FOUND);
  assert_int_equal(sbio_sandbox_check(NULL, "fake://", NULL, NULL, err), SBIO_E_INVALID_ARGUMENT);
  sbio_error_free(err);
}

static void test_fleet_floor_cannot_be_lowered(void **state) {
  (void)state;
  fixture f;
  assert_int_equal(fixture_open(&f, "require_isolation: gvisor\n", NULL), 0);
  assert_int_equal(sbio_host_isolation_floor(f.host), SBIO_TIER_GVISOR);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f.host, "fake://", NULL, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "GVISOR"));
  assert_non_null(strstr(sbio_error_hint(err), "configuration"));
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_CONTAINER);
  assert_int_equal(sbio_sandbox_create(f.host, "fake://", co, &sb, err), SBIO_E_CONFIG);
  sbio_create_options_free(co);
  sbio_error_free(err);
  assert_int_equal(sbt_file_count(f.call_log, "create"), 0);
  fixture_close(&f);
}

/* ----------------------------------------------------------------- policy */
static void test_deny_actually_denies_and_allowlist_allows(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  sbio_exec_result *r = must_exec(sb, ARGV("curl", "-sS", "--max-time", "5", "http://example.com/"), NULL);
  assert_int_not_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  sbio_sandbox_close(sb, NULL);
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_allow_host(co, "example.com");
  sb = must_create(f, "fake://", co);
  r = must_exec(sb, ARGV("curl", "-sS", "http://example.com/"), NULL);
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  r = must_exec(sb, ARGV("curl", "-sS", "http://other.invalid/"), NULL);
  assert_int_not_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  sbio_sandbox_close(sb, NULL);
  sbio_create_options_free(co);
}

static void test_undeclared_capability_is_refused_naming_who_has_it(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_gpu(co, "T4");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "fake://", co, &sb, err), SBIO_E_CAPABILITY);
  assert_non_null(strstr(sbio_error_message(err), "gpu"));
  assert_int_equal(sbt_file_count(f->call_log, "create"), 0);
  sbio_create_options_free(co);
  /* vague declares no stdin: the hint names a backend that does. */
  sb = must_create(f, "vague://", NULL);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_stdin(o, "x", 1);
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("cat"), o, NULL, err), SBIO_E_CAPABILITY);
  assert_non_null(strstr(sbio_error_hint(err), "fake"));
  unsigned char *data;
  size_t len;
  assert_int_equal(sbio_file_read(sb, "/x", 0, &data, &len, err), SBIO_E_CAPABILITY);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
  sbio_error_free(err);
}

/* -------------------------------------------------------- secrets, audit */
static void test_secrets_reach_no_sink_description_or_error(void **state) {
  fixture *f = *state;
  const char *canary = "sk-canary-5f3e9b";
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_secret(co, "API_TOKEN", canary);
  sbio_create_options_set_env(co, "DB_PASSWORD", "pw-canary-77a1");
  sbio_create_options_set_label(co, "tenant_id", "acme");
  sbio_sandbox *sb = must_create(f, "fake://", co);
  sbio_create_options_free(co);
  /* The command's own output may contain it: it asked for it. */
  sbio_exec_result *r = must_exec(sb, ARGV("printenv", "API_TOKEN"), NULL);
  assert_non_null(strstr(sbio_exec_result_stdout(r, NULL), canary));
  sbio_exec_result_free(r);
  r = must_exec(sb, ARGV("echo", canary, "pw-canary-77a1"), NULL);
  sbio_exec_result_free(r);
  sbio_error *err = sbio_error_new();
  sbio_sandbox_exec(sb, ARGV("cat", canary), NULL, NULL, err);
  unsigned char *data;
  size_t len;
  assert_int_equal(sbio_file_read(sb, canary, 0, &data, &len, err), SBIO_E_PATH_NOT_FOUND);
  assert_null(strstr(sbio_error_message(err), canary));
  char desc[256];
  sbio_sandbox_describe(sb, desc, sizeof desc);
  assert_null(strstr(desc, canary));
  sbio_sandbox_close(sb, NULL);
  sbio_error_free(err);
  assert_true(f->audit.n > 3);
  assert_false(sbt_lines_contain(&f->audit, canary));
  assert_false(sbt_lines_contain(&f->audit, "pw-canary-77a1"));
  assert_false(sbt_lines_contain(&f->log, canary));
  assert_int_equal(sbt_file_count(f->audit_path, canary), 0);
  assert_int_equal(sbt_file_count(f->call_log, canary), 0);
  assert_true(sbt_lines_contain(&f->audit, "\"argv\":[\"echo\",\"***\",\"***\"]"));
  assert_true(sbt_lines_contain(&f->audit, "\"tenant_id\":\"acme\""));
}

/* A credential given to one exec (its env) is as secret as a create's. */
static void test_exec_env_credentials_reach_no_event_or_error(void **state) {
  fixture *f = *state;
  const char *canary = "gh-canary-91c2d4";
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_env(o, "GITHUB_TOKEN", canary);
  sbio_exec_options_set_env(o, "LANG", "C.UTF-8");
  sbio_exec_result *r = must_exec(sb, ARGV("printenv", "GITHUB_TOKEN"), o);
  assert_non_null(strstr(sbio_exec_result_stdout(r, NULL), canary));
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  r = must_exec(sb, ARGV("echo", canary, "C.UTF-8"), NULL);
  sbio_exec_result_free(r);
  sbio_error *err = sbio_error_new();
  unsigned char *data;
  size_t len;
  assert_int_equal(sbio_file_read(sb, canary, 0, &data, &len, err), SBIO_E_PATH_NOT_FOUND);
  assert_null(strstr(sbio_error_message(err), canary));
  sbio_sandbox_close(sb, NULL);
  sbio_error_free(err);
  assert_false(sbt_lines_contain(&f->audit, canary));
  assert_false(sbt_lines_contain(&f->log, canary));
  assert_int_equal(sbt_file_count(f->audit_path, canary), 0);
  /* Only the credential-looking key's value is hidden. */
  assert_true(sbt_lines_contain(&f->audit, "\"argv\":[\"echo\",\"***\",\"C.UTF-8\"]"));
}

static void test_one_audit_event_per_exec_with_the_tier(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  size_t before = sbt_lines_count(&f->audit, "\"event\":\"exec\"");
  sbio_exec_result *r = must_exec(sb, ARGV("echo", "one"), NULL);
  sbio_exec_result_free(r);
  assert_int_equal(sbt_lines_count(&f->audit, "\"event\":\"exec\""), before + 1);
  const char *last = f->audit.items[f->audit.n - 1];
  assert_non_null(strstr(last, "\"argv\":[\"echo\",\"one\"]"));
  assert_non_null(strstr(last, "\"exit_code\":0"));
  assert_non_null(strstr(last, "\"tier\":\"CONTAINER\""));
  assert_non_null(strstr(last, "\"mechanism\":\"none\""));
  assert_non_null(strstr(last, "\"source_url\":\"https://"));
  assert_non_null(strstr(last, sbio_sandbox_id(sb)));
  sbio_sandbox_close(sb, NULL);
}

/* Opens a host on a config holding an unwritable audit path; its log
 * lines go to `log`. */
static sbio_host *host_with_broken_audit(const char *dir, const char *on_failure, const char *call_log,
                                         sbt_lines *log) {
  char yaml[1024], path[512];
  snprintf(yaml, sizeof yaml,
           "audit:\n  path: /nonexistent-dir/sub/audit.jsonl\n  on_failure: %s\n"
           "backends:\n  fake:\n    settings:\n      call_log: %s\n",
           on_failure, call_log);
  assert_int_equal(sbt_write_file(dir, "broken-audit.yaml", yaml, path, sizeof path), 0);
  sbio_host *host = NULL;
  assert_int_equal(sbt_host_open(path, log, NULL, &host, NULL), SBIO_OK);
  return host;
}

static void test_audit_sink_failure_fail_and_warn(void **state) {
  fixture *f = *state;
  sbt_lines log = {0};
  sbio_host *host = host_with_broken_audit(f->dir, "fail", f->call_log, &log);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  /* Under fail, an operation that cannot be audited does not happen. */
  assert_int_equal(sbio_sandbox_create(host, "fake://", NULL, &sb, err), SBIO_E_AUDIT_SINK);
  assert_null(sb);
  assert_non_null(strstr(sbio_error_message(err), "/nonexistent-dir/sub/audit.jsonl"));
  assert_int_equal(sbt_file_count(f->call_log, "create "), 0);
  sbio_host_close(host);

  sbt_lines_free(&log);
  host = host_with_broken_audit(f->dir, "warn", f->call_log, &log);
  assert_int_equal(sbio_sandbox_create(host, "fake://", NULL, &sb, err), SBIO_OK);
  /* create_requested and created both failed to reach the file: one
   * warning, the second failure is counted ... */
  assert_int_equal(sbt_lines_count(&log, "audit sink failed"), 1);
  sbio_sandbox_close(sb, NULL);
  sbio_host_close(host);
  /* ... and reported with the kill's at close, in one more warning. */
  assert_int_equal(sbt_lines_count(&log, "audit sink failed"), 2);
  sbt_lines_free(&log);
  sbio_error_free(err);
}

/* ------------------------------------------------------ connect and reap */
static void test_connect_and_managed_listing(void **state) {
  fixture *f = *state;
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_label(co, "tenant_id", "t-1");
  sbio_sandbox *sb = must_create(f, "fake://", co);
  sbio_create_options_free(co);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *again = NULL;
  assert_int_equal(sbio_sandbox_connect(f->host, "fake", sbio_sandbox_id(sb), &again, err), SBIO_OK);
  assert_string_equal(sbio_sandbox_id(again), sbio_sandbox_id(sb));
  sbio_exec_result *r = must_exec(again, ARGV("echo", "via-connect"), NULL);
  sbio_exec_result_free(r);
  assert_int_equal(sbio_sandbox_connect(f->host, "fake", "fake-9999", &again, err) == SBIO_OK, 0);
  assert_int_equal(sbio_error_code(err), SBIO_E_CONNECT);

  sbio_managed_list *l = NULL;
  assert_int_equal(sbio_managed_list_get(f->host, "fake", ARGV("tenant_id=t-1"), &l, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(l), 1);
  assert_string_equal(sbio_managed_list_id(l, 0), sbio_sandbox_id(sb));
  sbio_managed_list_free(l);
  assert_int_equal(sbio_managed_list_get(f->host, "fake", ARGV("tenant_id=other"), &l, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(l), 0);
  sbio_managed_list_free(l);
  int killed = 0;
  assert_int_equal(sbio_managed_kill(f->host, "fake", sbio_sandbox_id(sb), &killed, err), SBIO_OK);
  assert_int_equal(killed, 1);
  assert_int_equal(sbio_managed_kill(f->host, "fake", sbio_sandbox_id(sb), &killed, err), SBIO_OK);
  assert_int_equal(killed, 0);
  sbio_error_free(err);
}

static void test_unknown_backend_and_bad_uri(void **state) {
  fixture *f = *state;
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "nosuch://", NULL, &sb, err), SBIO_E_BACKEND_NOT_FOUND);
  assert_non_null(strstr(sbio_error_hint(err), "fake"));
  assert_int_equal(sbio_sandbox_create(f->host, "fake://?token=abc", NULL, &sb, err), SBIO_E_CONFIG);
  assert_null(strstr(sbio_error_message(err), "abc"));
  assert_int_equal(sbio_sandbox_create(f->host, "fake://a?timeout=30", NULL, &sb, err), SBIO_OK);
  sbio_sandbox_close(sb, NULL);
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_template(co, "b");
  assert_int_equal(sbio_sandbox_create(f->host, "fake://a", co, &sb, err), SBIO_E_CONFIG);
  sbio_create_options_free(co);
  sbio_error_free(err);
}

static void test_cwd_and_host_description(void **state) {
  fixture *f = *state;
  sbio_sandbox *sb = must_create(f, "fake://", NULL);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_mkdir(sb, "/work/sub", 0, err), SBIO_OK);
  assert_int_equal(sbio_file_write(sb, "/work/sub/here.txt", "in sub\n", 7, err), SBIO_OK);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_cwd(o, "/work/sub");
  sbio_exec_result *r = must_exec(sb, ARGV("cat", "here.txt"), o);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "in sub\n");
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  char desc[512];
  sbio_host_describe(f->host, desc, sizeof desc);
  assert_non_null(strstr(desc, "fake CONTAINER"));
  assert_non_null(strstr(desc, "vague UNKNOWN"));
  assert_non_null(strstr(desc, "floor none"));
}

static void test_default_backend_is_the_fake(void **state) {
  fixture *f = *state;
  assert_null(sbio_host_default_backend(f->host));
  sbio_sandbox *sb = must_create(f, NULL, NULL);
  assert_string_equal(sbio_sandbox_backend(sb), "fake");
  sbio_sandbox_close(sb, NULL);
}

/* sbio_run on a backend without a one-shot operation (the fake): create,
 * exec, close in one call, audited as the four events of that sequence,
 * and nothing left behind. */
static void test_run_is_create_exec_close(void **state) {
  fixture *f = *state;
  size_t before = f->audit.n;
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(
      sbio_run(f->host, "fake://", NULL, ARGV("sh", "-c", "echo out; echo err >&2; exit 3"), NULL, &r, err), SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "out\n");
  assert_string_equal(sbio_exec_result_stderr(r, NULL), "err\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 3);
  sbio_exec_result_free(r);
  /* (Loading the backend on first use adds backend_loaded first.) */
  const char *expect[] = {"create_requested", "created", "exec", "kill"};
  size_t seen = 0;
  for (size_t i = before; i < f->audit.n; i++) {
    if (strstr(f->audit.items[i], "\"event\":\"backend_")) continue;
    char needle[64];
    snprintf(needle, sizeof needle, "\"event\":\"%s\"", seen < 4 ? expect[seen] : "none");
    if (!strstr(f->audit.items[i], needle)) fail_msg("event %zu: %s", seen, f->audit.items[i]);
    seen++;
  }
  assert_int_equal(seen, 4);
  assert_int_equal(sbt_file_count(f->call_log, "create "), 1);
  assert_int_equal(sbt_file_count(f->call_log, "kill "), 1);
  /* A shell script, no result asked for. */
  assert_int_equal(sbio_run_shell(f->host, "fake://", NULL, "exit 0", NULL, NULL, err), SBIO_OK);
  /* Refused before anything exists: the gate, and a bad command. */
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_MICROVM);
  assert_int_not_equal(sbio_run(f->host, "fake://", co, ARGV("true"), NULL, NULL, err), SBIO_OK);
  sbio_create_options_free(co);
  assert_int_equal(sbio_run(f->host, "fake://", NULL, (const char *const[]){NULL}, NULL, NULL, err),
                   SBIO_E_INVALID_ARGUMENT);
  assert_int_equal(sbt_file_count(f->call_log, "create "), 2);
  assert_int_equal(sbt_file_count(f->call_log, "kill "), 2);
  sbio_error_free(err);
}

/* The exec options' token ends the whole run from another thread: the
 * command stops, the sandbox is destroyed, SBIO_E_CANCELLED with the output
 * so far. */
static void test_run_cancelled_from_another_thread(void **state) {
  fixture *f = *state;
  cancel_race c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, sbio_cancel_new()};
  assert_non_null(c.token);
  sbio_exec_options *o = sbio_exec_options_new();
  assert_int_equal(sbio_exec_options_set_cancel(o, c.token), SBIO_OK);
  assert_int_equal(sbio_exec_options_set_output_callback(o, on_started, &c), SBIO_OK);
  assert_int_equal(sbio_exec_options_set_timeout(o, 120), SBIO_OK);
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, canceller, &c), 0);
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  double t0 = sbt_now();
  sbio_code rc = sbio_run(f->host, "fake://", NULL, ARGV("sh", "-c", "echo started; sleep 100000000"), o, &r, err);
  pthread_join(t, NULL);
  assert_int_equal(rc, SBIO_E_CANCELLED);
  assert_true(sbt_now() - t0 < 60.0);
  assert_non_null(r);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "started\n");
  sbio_exec_result_free(r);
  assert_int_equal(sbt_file_count(f->call_log, "kill "), 1);
  /* A token already requested: nothing is created. */
  assert_int_equal(sbio_run(f->host, "fake://", NULL, ARGV("true"), o, NULL, err), SBIO_E_CANCELLED);
  assert_int_equal(sbt_file_count(f->call_log, "create "), 1);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  sbio_cancel_free(c.token);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_create_run_kill_and_kill_again),
      T(test_host_close_tears_down_what_the_caller_left),
      T(test_exit_codes_and_streams),
      T(test_env_and_no_shell_for_argv),
      T(test_stdin_is_delivered),
      T(test_streaming_preserves_order),
      T(test_output_cap_truncates_buffer_not_stream),
      T(test_exec_deadline_kills_and_sandbox_survives),
      T(test_exec_inherits_the_sandbox_timeout),
      T(test_non_positive_timeouts_are_refused),
      T(test_cancel_one_exec_from_another_thread_keeps_the_sandbox),
      T(test_cancel_token_on_a_backend_that_cannot_is_refused),
      T(test_run_is_create_exec_close),
      T(test_run_cancelled_from_another_thread),
      T(test_files_round_trip_and_relative_paths),
      T(test_files_mkdir_list_remove_and_missing),
      T(test_require_isolation_above_tier_fails_before_provisioning),
      T(test_require_isolation_at_tier_passes),
      T(test_requiring_unknown_is_a_configuration_error),
      T(test_unknown_backend_satisfies_nothing_and_warns_once),
      T(test_http_source_makes_the_claim_unknown),
      T(test_observed_mechanism_mismatch_destroys_the_sandbox),
      T(test_check_decides_like_create_and_provisions_nothing),
      cmocka_unit_test(test_fleet_floor_cannot_be_lowered),
      T(test_deny_actually_denies_and_allowlist_allows),
      T(test_undeclared_capability_is_refused_naming_who_has_it),
      T(test_secrets_reach_no_sink_description_or_error),
      T(test_exec_env_credentials_reach_no_event_or_error),
      T(test_one_audit_event_per_exec_with_the_tier),
      T(test_audit_sink_failure_fail_and_warn),
      T(test_connect_and_managed_listing),
      T(test_unknown_backend_and_bad_uri),
      T(test_cwd_and_host_description),
      T(test_default_backend_is_the_fake),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
