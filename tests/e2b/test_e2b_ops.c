/* SPDX-License-Identifier: MIT */
/* The E2B backend against the emulator, through the public API: the whole
 * operation set (create, exec, files, connect, managed listing, kill), the
 * request E2B receives, isolation tiers, and the API key's hygiene. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "e2b_support.h"

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

static sbio_sandbox *must_create(fx *f, const char *uri, sbio_create_options *o) {
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(f->host, uri, o, &sb, err);
  if (rc != SBIO_OK) fail_msg("create %s: [%d] %s", uri, rc, sbio_error_message(err));
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

static sbio_exec_result *must_shell(sbio_sandbox *sb, const char *script, sbio_exec_options *o) {
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  sbio_code rc = sbio_sandbox_exec_shell(sb, script, o, &r, err);
  if (rc != SBIO_OK) fail_msg("exec %s: [%d] %s", script, rc, sbio_error_message(err));
  sbio_error_free(err);
  return r;
}

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (fx_open(f, NULL, NULL, NULL) != 0) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  int violations = emu_violations(&f->emu);
  fx_close(f);
  free(f);
  return violations == 0 ? 0 : -1;
}

/* The sandbox's entry in the emulator's admin view. */
static cJSON *emu_sandbox(const fx *f, const char *id) {
  char *text = emu_admin(&f->emu, "GET", "state", NULL);
  cJSON *root = text ? cJSON_Parse(text) : NULL;
  free(text);
  cJSON *found = NULL, *s;
  cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(root, "sandboxes")) {
    const cJSON *sid = cJSON_GetObjectItemCaseSensitive(s, "id");
    if (cJSON_IsString(sid) && strcmp(sid->valuestring, id) == 0) found = cJSON_Duplicate(s, 1);
  }
  cJSON_Delete(root);
  return found;
}

/* ------------------------------------------------------------ lifecycle */
static void test_create_exec_kill_is_microvm(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  assert_string_equal(sbio_sandbox_backend(sb), "e2b");
  assert_string_equal(sbio_sandbox_mechanism(sb), "firecracker");
  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_MICROVM);
  assert_int_equal(emu_live(&f->emu), 1);
  sbio_exec_result *r = must_exec(sb, ARGV("echo", "hi"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "hi\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  char desc[256];
  sbio_sandbox_describe(sb, desc, sizeof desc);
  assert_non_null(strstr(desc, "MICROVM"));
  assert_non_null(strstr(desc, sbio_sandbox_id(sb)));
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK); /* idempotent */
  assert_int_equal(emu_live(&f->emu), 0);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec(sb, ARGV("true"), NULL, NULL, err), SBIO_E_GONE);
  sbio_error_free(err);
  assert_int_equal(sbio_sandbox_close(sb, NULL), SBIO_OK);
  assert_int_equal(emu_count(&f->emu, "DELETE", "/sandboxes/"), 1);
}

static void test_create_request_as_e2b_sees_it(void **state) {
  fx *f = *state;
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_set_label(o, "tenant_id", "acme");
  sbio_create_options_set_env(o, "FROM_CREATE", "c1");
  sbio_create_options_set_secret(o, "API_TOKEN", "sk-secret-value");
  sbio_create_options_set_timeout(o, 90.2);
  sbio_sandbox *sb = must_create(f, "e2b://code-interpreter-v1", o);
  sbio_create_options_free(o);
  cJSON *s = emu_sandbox(f, sbio_sandbox_id(sb));
  assert_non_null(s);
  assert_string_equal(cJSON_GetObjectItem(s, "template")->valuestring, "code-interpreter-v1");
  const cJSON *meta = cJSON_GetObjectItem(s, "metadata");
  assert_string_equal(cJSON_GetObjectItem(meta, "tenant_id")->valuestring, "acme");
  assert_string_equal(cJSON_GetObjectItem(meta, "sandboxio_managed")->valuestring, "true");
  assert_non_null(cJSON_GetObjectItem(meta, "sandboxio_session"));
  /* deny by default: no internet */
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(s, "allowInternetAccess")));
  cJSON_Delete(s);
  sbio_exec_result *r = must_shell(sb, "printf '%s %s' \"$FROM_CREATE\" \"$API_TOKEN\"", NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "c1 sk-secret-value");
  sbio_exec_result_free(r);
  sbio_sandbox_close(sb, NULL);
}

static void test_network_policy_reaches_e2b(void **state) {
  fx *f = *state;
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_allow_host(o, "example.com");
  sbio_create_options_allow_host(o, "10.0.0.0/8");
  sbio_sandbox *sb = must_create(f, "e2b://", o);
  sbio_create_options_free(o);
  cJSON *s = emu_sandbox(f, sbio_sandbox_id(sb));
  const cJSON *net = cJSON_GetObjectItem(s, "network");
  assert_non_null(net);
  assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(net, "denyOut"), 0)->valuestring, "0.0.0.0/0");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(net, "allowOut")), 2);
  cJSON_Delete(s);
  sbio_sandbox_close(sb, NULL);

  o = sbio_create_options_new();
  sbio_create_options_set_egress(o, SBIO_EGRESS_ALLOW);
  sb = must_create(f, "e2b://", o);
  sbio_create_options_free(o);
  s = emu_sandbox(f, sbio_sandbox_id(sb));
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(s, "allowInternetAccess")));
  cJSON_Delete(s);
  sbio_sandbox_close(sb, NULL);

  o = sbio_create_options_new();
  sbio_create_options_allow_host(o, "https://example.com/path");
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://", o, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "allow-list"));
  sbio_error_free(err);
  sbio_create_options_free(o);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 2);
}

static void test_resources_belong_to_the_template(void **state) {
  fx *f = *state;
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_set_memory_mb(o, 2048);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://mytemplate", o, &sb, err), SBIO_E_CONFIG);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1000");
  assert_non_null(strstr(sbio_error_message(err), "mytemplate"));
  assert_null(sb);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 0); /* refused before anything exists */
  sbio_error_free(err);
  sbio_create_options_free(o);
}

/* ----------------------------------------------------------------- exec */
static void test_exit_codes_streams_env_and_argv(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  sbio_exec_result *r = must_exec(sb, ARGV("sh", "-c", "echo out; echo err >&2; exit 3"), NULL);
  assert_int_equal(sbio_exec_result_exit_code(r), 3);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "out\n");
  assert_string_equal(sbio_exec_result_stderr(r, NULL), "err\n");
  sbio_exec_result_free(r);
  r = must_exec(sb, ARGV("no-such-command-xyz"), NULL);
  assert_int_equal(sbio_exec_result_exit_code(r), 127);
  sbio_exec_result_free(r);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_env(o, "SBX_VAR", "v1");
  /* argv never goes through a shell: $SBX_VAR, ;, * stay as they are */
  r = must_exec(sb, ARGV("echo", "$SBX_VAR", "a;b", "*", "it's"), o);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "$SBX_VAR a;b * it's\n");
  sbio_exec_result_free(r);
  r = must_shell(sb, "echo $SBX_VAR; pwd", o);
  /* commands start in the work directory (the emulator runs them under a
   * per-sandbox host directory, hence only the suffix) */
  assert_true(ends_with(sbio_exec_result_stdout(r, NULL), "/home/user\n"));
  assert_memory_equal(sbio_exec_result_stdout(r, NULL), "v1\n", 3);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

static void test_stdin_binary_output_and_cwd(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  sbio_exec_options *o = sbio_exec_options_new();
  static unsigned char in[200000];
  for (size_t i = 0; i < sizeof in; i++) in[i] = (unsigned char)(i * 31 + 7);
  sbio_exec_options_set_stdin(o, in, sizeof in);
  sbio_exec_result *r = must_exec(sb, ARGV("cat"), o);
  size_t len = 0;
  const char *out = sbio_exec_result_stdout(r, &len);
  assert_int_equal(len, sizeof in); /* several SendInput chunks, then CloseStdin */
  assert_memory_equal(out, in, len);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  assert_true(emu_count(&f->emu, "POST", "SendInput") >= 2);
  assert_int_equal(emu_count(&f->emu, "POST", "CloseStdin"), 1);

  o = sbio_exec_options_new();
  sbio_exec_options_set_stdin(o, "", 0);
  r = must_exec(sb, ARGV("wc", "-c"), o); /* EOF at once, no hang */
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "0\n");
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);

  r = must_shell(sb, "head -c 100000 /dev/zero | tr '\\0' 'z'; printf '\\000\\377\\200'", NULL);
  out = sbio_exec_result_stdout(r, &len);
  assert_int_equal(len, 100003);
  assert_memory_equal(out + 100000, "\x00\xff\x80", 3);
  sbio_exec_result_free(r);

  r = must_shell(sb, "mkdir -p sub/dir", NULL);
  sbio_exec_result_free(r);
  o = sbio_exec_options_new();
  sbio_exec_options_set_cwd(o, "sub/dir");
  r = must_shell(sb, "pwd", o);
  assert_true(ends_with(sbio_exec_result_stdout(r, NULL), "/home/user/sub/dir\n"));
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

typedef struct {
  char out[4096];
  size_t out_len;
  int calls;
  double first_at;
} capture;

static void on_output(sbio_stream stream, const char *data, size_t len, void *user) {
  capture *c = user;
  if (!c->calls++) c->first_at = sbt_now();
  if (stream == SBIO_STDOUT && c->out_len + len < sizeof c->out) {
    memcpy(c->out + c->out_len, data, len);
    c->out_len += len;
  }
}

static void test_output_streams_as_it_comes(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  capture cap = {0};
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_output_callback(o, on_output, &cap);
  double t0 = sbt_now();
  sbio_exec_result *r = must_shell(sb, "echo first; sleep 4; echo second", o);
  double t1 = sbt_now();
  assert_string_equal(cap.out, "first\nsecond\n");
  assert_true(cap.calls >= 2);
  /* The first line arrived before the command ended: the command sleeps
   * 4 s after it, so even a first line delayed by a busy machine is well
   * ahead of the end. */
  assert_true(cap.first_at - t0 < t1 - t0 - 2.0);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

static void test_deadline_kills_with_sendsignal(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  sbio_exec_options *o = sbio_exec_options_new();
  /* 2 s, not less: "started" must come out before the deadline, however
   * slowly a busy machine starts the process. */
  sbio_exec_options_set_timeout(o, 2);
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  double t0 = sbt_now();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo started; sleep 600", o, &r, err), SBIO_E_EXEC_TIMEOUT);
  assert_true(sbt_now() - t0 < 120.0); /* the deadline ended it, not the 600 s sleep */
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1302");
  assert_non_null(r);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "started\n");
  sbio_exec_result_free(r);
  assert_int_equal(emu_count(&f->emu, "POST", "SendSignal"), 1);
  r = must_exec(sb, ARGV("echo", "still-usable"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "still-usable\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  sbio_sandbox_close(sb, NULL);
}

typedef struct {
  sbio_sandbox *sb;
  double delay;
} killer_args;

static void *killer(void *p) {
  killer_args *a = p;
  usleep((useconds_t)(a->delay * 1e6));
  sbio_sandbox_kill(a->sb, NULL);
  return NULL;
}

static void test_kill_from_another_thread_ends_the_exec(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  killer_args a = {sb, 0.5};
  pthread_t t;
  pthread_create(&t, NULL, killer, &a);
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  double t0 = sbt_now();
  sbio_code rc = sbio_sandbox_exec(sb, ARGV("sleep", "600"), NULL, &r, err);
  pthread_join(t, NULL);
  assert_true(sbt_now() - t0 < 120.0); /* the kill ended it, not the 600 s sleep */
  if (rc == SBIO_OK)
    assert_int_equal(sbio_exec_result_exit_code(r), 137);
  else
    assert_int_equal(rc, SBIO_E_GONE);
  sbio_exec_result_free(r);
  sbio_error_free(err);
  assert_int_equal(emu_live(&f->emu), 0);
  sbio_sandbox_close(sb, NULL);
}

/* Per-exec cancellation (ABI 1.3): the token is set from another thread
 * once the command printed (so it runs); envd gets a SIGKILL for it, the
 * exec returns SBX_E1902, and the sandbox keeps its files and runs the next
 * command. */
typedef struct {
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

static void test_cancel_one_exec_with_sendsignal(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  assert_true(sbio_sandbox_exec_cancellable(sb));
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_write(sb, "marker", "kept", 4, err), SBIO_OK);
  cancel_race c = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, sbio_cancel_new()};
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 120);
  sbio_exec_options_set_cancel(o, c.token);
  sbio_exec_options_set_output_callback(o, on_started, &c);
  pthread_t t;
  pthread_create(&t, NULL, canceller, &c);
  sbio_exec_result *r = NULL;
  double t0 = sbt_now();
  sbio_code rc = sbio_sandbox_exec_shell(sb, "echo started; sleep 600", o, &r, err);
  pthread_join(t, NULL);
  assert_int_equal(rc, SBIO_E_CANCELLED);
  assert_true(sbt_now() - t0 < 60.0); /* not the 120 s deadline */
  assert_non_null(strstr(sbio_error_message(err), "killed (SIGKILL)"));
  assert_non_null(r);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "started\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 137);
  sbio_exec_result_free(r);
  assert_int_equal(emu_count(&f->emu, "POST", "SendSignal"), 1);
  assert_int_equal(emu_count(&f->emu, "DELETE", "/sandboxes/"), 0); /* the sandbox was not killed */
  r = must_exec(sb, ARGV("cat", "marker"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "kept");
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_cancel_free(c.token);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* ---------------------------------------------------------------- files */
static void test_files_binary_round_trip_and_relative_paths(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  static unsigned char blob[300000];
  for (size_t i = 0; i < sizeof blob; i++) blob[i] = (unsigned char)(i % 251);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_write(sb, "/tmp/blob.bin", blob, sizeof blob, err), SBIO_OK);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(sb, "/tmp/blob.bin", 0, &data, &len, err), SBIO_OK);
  assert_int_equal(len, sizeof blob);
  assert_memory_equal(data, blob, len);
  sbio_free(data);
  assert_int_equal(sbio_file_write(sb, "empty", "", 0, err), SBIO_OK);
  assert_int_equal(sbio_file_read(sb, "empty", 0, &data, &len, err), SBIO_OK);
  assert_int_equal(len, 0);
  sbio_free(data);

  assert_int_equal(sbio_file_write(sb, "relative.txt", "h\xc3\xa9llo\n", 7, err), SBIO_OK);
  sbio_exec_result *r = must_exec(sb, ARGV("cat", "relative.txt"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "h\xc3\xa9llo\n");
  sbio_exec_result_free(r);
  assert_int_equal(sbio_file_read(sb, "./sub/../relative.txt", 0, &data, &len, err), SBIO_OK);
  assert_int_equal(len, 7);
  sbio_free(data);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, ".", &l, err), SBIO_OK);
  int found = 0;
  for (size_t i = 0; i < sbio_file_list_count(l); i++)
    if (strcmp(sbio_file_list_name(l, i), "relative.txt") == 0) {
      found = 1;
      assert_string_equal(sbio_file_list_path(l, i), "/home/user/relative.txt");
      assert_int_equal(sbio_file_list_size(l, i), 7);
    }
  assert_true(found);
  sbio_file_list_free(l);
  /* a read beyond the caller's cap fails rather than truncates */
  assert_int_equal(sbio_file_read(sb, "/tmp/blob.bin", 1000, &data, &len, err), SBIO_E_FS);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

static void test_files_mkdir_list_remove_and_missing(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_file_mkdir(sb, "/home/user/d1/d2", 0, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_mkdir(sb, "/home/user/d1/d2", 1, err), SBIO_OK);
  assert_int_equal(sbio_file_mkdir(sb, "/home/user/d1/d2", 1, err), SBIO_OK); /* like mkdir -p */
  assert_int_equal(sbio_file_write(sb, "/home/user/d1/d2/f", "x", 1, err), SBIO_OK);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, "/home/user/d1/d2", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 1);
  assert_string_equal(sbio_file_list_name(l, 0), "f");
  assert_string_equal(sbio_file_list_path(l, 0), "/home/user/d1/d2/f");
  assert_int_equal(sbio_file_list_size(l, 0), 1);
  assert_false(sbio_file_list_is_dir(l, 0));
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_list_dir(sb, "/home/user/d1", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 1);
  assert_true(sbio_file_list_is_dir(l, 0));
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_remove(sb, "/home/user/d1/d2/f", err), SBIO_OK);
  assert_int_equal(sbio_file_list_dir(sb, "/home/user/d1/d2", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 0);
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_remove(sb, "/home/user/d1", err), SBIO_OK); /* a tree */
  unsigned char *data = NULL;
  size_t len;
  assert_int_equal(sbio_file_read(sb, "/home/user/missing", 0, &data, &len, err), SBIO_E_PATH_NOT_FOUND);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1701");
  assert_int_equal(sbio_file_remove(sb, "/home/user/missing", err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_list_dir(sb, "/home/user/missing", &l, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_write(sb, "/nope/dir/f", "x", 1, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_read(sb, "/home/user", 0, &data, &len, err), SBIO_E_FS); /* a directory */
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
}

/* -------------------------------------------------------- connect, reap */
static void test_connect_and_managed_listing_with_pagination(void **state) {
  fx *f = *state;
  emu_config(&f->emu, "{\"page_size\": 2}"); /* the listing needs several pages */
  sbio_sandbox *boxes[5];
  for (int i = 0; i < 5; i++) {
    sbio_create_options *o = sbio_create_options_new();
    sbio_create_options_set_label(o, "tenant_id", i < 4 ? "t-1" : "t-2");
    boxes[i] = must_create(f, "e2b://", o);
    sbio_create_options_free(o);
  }
  sbio_error *err = sbio_error_new();
  sbio_sandbox *again = NULL;
  assert_int_equal(sbio_sandbox_connect(f->host, "e2b", sbio_sandbox_id(boxes[0]), &again, err), SBIO_OK);
  assert_string_equal(sbio_sandbox_id(again), sbio_sandbox_id(boxes[0]));
  assert_int_equal(sbio_sandbox_tier(again), SBIO_TIER_MICROVM);
  sbio_exec_result *r = must_exec(again, ARGV("echo", "via-connect"), NULL);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "via-connect\n");
  sbio_exec_result_free(r);
  sbio_sandbox *none = NULL;
  assert_int_not_equal(sbio_sandbox_connect(f->host, "e2b", "nosuchsandbox0", &none, err), SBIO_OK);
  assert_int_equal(sbio_error_code(err), SBIO_E_CONNECT);
  assert_int_not_equal(sbio_sandbox_connect(f->host, "e2b", "Not-An-Id", &none, err), SBIO_OK);

  emu_clear_log(&f->emu);
  sbio_managed_list *l = NULL;
  assert_int_equal(sbio_managed_list_get(f->host, "e2b", ARGV("tenant_id=t-1"), &l, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(l), 4);
  assert_true(emu_count(&f->emu, "GET", "/v2/sandboxes") >= 2);
  for (size_t i = 0; i < sbio_managed_list_count(l); i++) {
    assert_string_equal(sbio_managed_list_state(l, i), "running");
    assert_true(sbio_managed_list_created_at(l, i) > 1700000000);
    assert_int_equal(sbio_managed_list_label_count(l, i), 1); /* caller labels only */
    assert_string_equal(sbio_managed_list_label_key(l, i, 0), "tenant_id");
  }
  sbio_managed_list_free(l);
  assert_int_equal(sbio_managed_list_get(f->host, "e2b", NULL, &l, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(l), 5);
  sbio_managed_list_free(l);
  int killed = 0;
  assert_int_equal(sbio_managed_kill(f->host, "e2b", sbio_sandbox_id(boxes[4]), &killed, err), SBIO_OK);
  assert_int_equal(killed, 1);
  assert_int_equal(sbio_managed_kill(f->host, "e2b", sbio_sandbox_id(boxes[4]), &killed, err), SBIO_OK);
  assert_int_equal(killed, 0); /* 404: already gone */
  sbio_error_free(err);
  sbio_sandbox_close(again, NULL);
  for (int i = 0; i < 5; i++) sbio_sandbox_close(boxes[i], NULL);
}

/* ------------------------------------------------------ isolation tiers */
static void test_isolation_requirements(void **state) {
  fx *f = *state;
  const sbio_tier tiers[] = {SBIO_TIER_MICROVM, SBIO_TIER_GVISOR, SBIO_TIER_CONTAINER};
  for (size_t i = 0; i < 3; i++) {
    sbio_create_options *o = sbio_create_options_new();
    sbio_create_options_require_isolation(o, tiers[i]);
    sbio_sandbox *sb = must_create(f, "e2b://", o);
    assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_MICROVM);
    sbio_sandbox_close(sb, NULL);
    sbio_create_options_free(o);
  }
  assert_int_equal(sbt_file_count(f->audit_path, "\"event\":\"created\""), 3);
  assert_int_equal(sbt_file_count(f->audit_path, "\"event\":\"create_denied\""), 0);
}

static void test_stale_source_becomes_unknown_and_is_refused(void **state) {
  fx *f = *state;
  char cfg[1024];
  snprintf(cfg, sizeof cfg,
           "metadata:\n  max_age_days: 30\n  stale: unknown\nbackends:\n  e2b:\n    settings:\n"
           "      api_url: %s\n      sandbox_url: %s\n",
           f->emu.api_url, f->emu.sandbox_url);
  char path[400];
  snprintf(path, sizeof path, "%s/stale.yaml", f->emu.dir);
  FILE *fp = fopen(path, "w");
  assert_non_null(fp);
  fputs(cfg, fp);
  fclose(fp);
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_config_file(o, path);
  sbio_host_options_set_now(o, 1893456000); /* 2030-01-01: the 2026 source is stale */
  sbio_host *host = NULL;
  assert_int_equal(sbio_host_open(o, &host, NULL), SBIO_OK);
  sbio_host_options_free(o);
  const sbio_backend_info *b = sbio_host_backend_find(host, "e2b");
  assert_non_null(b);
  assert_int_equal(sbio_mechanism_claimed_tier(b, 0), SBIO_TIER_MICROVM);
  assert_int_equal(sbio_mechanism_tier(b, 0), SBIO_TIER_UNKNOWN);
  assert_true(sbio_mechanism_stale(b, 0));
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_MICROVM);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(host, "e2b://", co, &sb, err), SBIO_E_CONFIG);
  assert_null(sb);
  assert_non_null(strstr(sbio_error_message(err), "UNKNOWN"));
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 0);
  sbio_error_free(err);
  sbio_create_options_free(co);
  sbio_host_close(host);
}

/* A copy of the real plugin whose source URL is made plain http, i.e. a
 * broken source: the same length, so the ELF stays intact. */
static int broken_copy(const char *dir) {
  FILE *in = fopen(E2B_PLUGIN_PATH, "rb");
  if (!in) return -1;
  fseek(in, 0, SEEK_END);
  long n = ftell(in);
  fseek(in, 0, SEEK_SET);
  char *data = malloc((size_t)n);
  if (!data || fread(data, 1, (size_t)n, in) != (size_t)n) n = -1;
  fclose(in);
  const char *from = "https://raw.githubusercontent.com/e2b-dev", *to = "http://xraw.githubusercontent.com/e2b-dev";
  int patched = 0;
  for (long i = 0; n > 0 && i + (long)strlen(from) <= n; i++)
    if (memcmp(data + i, from, strlen(from)) == 0) {
      memcpy(data + i, to, strlen(to));
      patched++;
    }
  char path[400];
  snprintf(path, sizeof path, "%s/sbio-backend-e2b.so", dir);
  FILE *out = n > 0 ? fopen(path, "wb") : NULL;
  int ok = out && patched > 0 && fwrite(data, 1, (size_t)n, out) == (size_t)n;
  if (out) fclose(out);
  free(data);
  return ok ? 0 : -1;
}

static void test_broken_source_becomes_unknown_and_is_refused(void **state) {
  fx *f = *state;
  char dir[300];
  snprintf(dir, sizeof dir, "%s/broken", f->emu.dir);
  assert_int_equal(mkdir(dir, 0755), 0);
  assert_int_equal(chmod(f->emu.dir, 0755), 0); /* mkdtemp's 0700 is fine, group-writable is not */
  assert_int_equal(broken_copy(dir), 0);
  char cfg[1024];
  snprintf(cfg, sizeof cfg,
           "backend_path: [%s]\nbackends:\n  e2b:\n    settings:\n      api_url: %s\n      sandbox_url: %s\n", dir,
           f->emu.api_url, f->emu.sandbox_url);
  sbt_lines log = {0};
  sbio_host *host = fx_host(f, "broken.yaml", cfg, &log);
  assert_non_null(host);
  const sbio_backend_info *b = sbio_host_backend_find(host, "e2b");
  assert_non_null(b);
  assert_non_null(strstr(sbio_backend_info_path(b), "/broken/"));
  assert_int_equal(sbio_mechanism_claimed_tier(b, 0), SBIO_TIER_MICROVM);
  assert_int_equal(sbio_mechanism_tier(b, 0), SBIO_TIER_UNKNOWN);
  assert_non_null(strstr(sbio_mechanism_reason(b, 0), "https"));
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_require_isolation(co, SBIO_TIER_CONTAINER);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(host, "e2b://", co, &sb, err), SBIO_E_CONFIG);
  assert_int_equal(emu_count(&f->emu, "POST", "/sandboxes"), 0);
  sbio_error_free(err);
  sbio_create_options_free(co);
  sbio_host_close(host);
  sbt_lines_free(&log);
}

/* ------------------------------------------------------------ the key */
static void test_api_key_appears_nowhere(void **state) {
  fx *f = *state;
  sbio_sandbox *sb = must_create(f, "e2b://", NULL);
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = must_exec(sb, ARGV("echo", "x"), NULL);
  sbio_exec_result_free(r);
  unsigned char *data;
  size_t len;
  sbio_file_read(sb, "/nope", 0, &data, &len, err);
  assert_null(strstr(sbio_error_message(err), E2B_TEST_KEY));
  char desc[512];
  sbio_sandbox_describe(sb, desc, sizeof desc);
  assert_null(strstr(desc, E2B_TEST_KEY));
  /* the sandbox's processes do not get it either */
  r = must_shell(sb, "env", NULL);
  assert_null(strstr(sbio_exec_result_stdout(r, NULL), E2B_TEST_KEY));
  sbio_exec_result_free(r);
  sbio_sandbox_close(sb, NULL);
  /* a rejected key: the error names the variable, never the value */
  setenv("E2B_API_KEY", "e2b_0000wrongwrongwrong", 1);
  sb = NULL;
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://", NULL, &sb, err), SBIO_E_AUTH);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1501");
  assert_non_null(strstr(sbio_error_message(err), "E2B_API_KEY"));
  assert_null(strstr(sbio_error_message(err), "wrongwrong"));
  assert_int_equal(sbio_error_provider_status(err), 401);
  /* no key at all */
  unsetenv("E2B_API_KEY");
  assert_int_equal(sbio_sandbox_create(f->host, "e2b://", NULL, &sb, err), SBIO_E_AUTH);
  assert_non_null(strstr(sbio_error_message(err), "E2B_API_KEY"));
  setenv("E2B_API_KEY", E2B_TEST_KEY, 1);
  sbio_error_free(err);
  for (size_t i = 0; i < f->audit.n; i++) assert_null(strstr(f->audit.items[i], E2B_TEST_KEY));
  for (size_t i = 0; i < f->log.n; i++) assert_null(strstr(f->log.items[i], E2B_TEST_KEY));
  assert_int_equal(sbt_file_count(f->audit_path, E2B_TEST_KEY), 0);
  assert_true(f->audit.n > 3);
}

static void test_key_from_the_variable_the_settings_name(void **state) {
  fx *f = *state;
  char cfg[1024];
  snprintf(cfg, sizeof cfg,
           "backends:\n  e2b:\n    settings:\n      api_url: %s\n      sandbox_url: %s\n"
           "      api_key_env: MY_E2B_KEY\n",
           f->emu.api_url, f->emu.sandbox_url);
  sbio_host *host = fx_host(f, "keyenv.yaml", cfg, NULL);
  assert_non_null(host);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  unsetenv("MY_E2B_KEY");
  assert_int_equal(sbio_sandbox_create(host, "e2b://", NULL, &sb, err), SBIO_E_AUTH);
  /* Unset, the configured name may be the key itself: the setting is named. */
  assert_null(strstr(sbio_error_message(err), "MY_E2B_KEY"));
  assert_non_null(strstr(sbio_error_message(err), "settings.api_key_env"));
  setenv("MY_E2B_KEY", E2B_TEST_KEY, 1);
  assert_int_equal(sbio_sandbox_create(host, "e2b://", NULL, &sb, err), SBIO_OK);
  sbio_sandbox_close(sb, NULL);
  unsetenv("MY_E2B_KEY");
  sbio_error_free(err);
  sbio_host_close(host);
}

static void test_plain_http_only_to_loopback(void **state) {
  fx *f = *state;
  const char *cfg = "backends:\n  e2b:\n    settings:\n      api_url: http://api.e2b.app\n";
  sbio_host *host = fx_host(f, "http.yaml", cfg, NULL);
  assert_non_null(host);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(host, "e2b://", NULL, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "api.e2b.app"));
  assert_non_null(strstr(sbio_error_message(err), "https"));
  sbio_host_close(host);
  cfg = "backends:\n  e2b:\n    settings:\n      sandbox_url: https://user:pw@sandbox.e2b.app\n";
  host = fx_host(f, "cred.yaml", cfg, NULL);
  assert_int_equal(sbio_sandbox_create(host, "e2b://", NULL, &sb, err), SBIO_E_CONFIG);
  assert_null(strstr(sbio_error_message(err), "pw@"));
  sbio_host_close(host);
  /* the SDK's variables are read too, and checked the same way */
  setenv("E2B_API_URL", "http://example.com:8080", 1);
  host = fx_host(f, "env.yaml", "backends: {}\n", NULL);
  assert_int_equal(sbio_sandbox_create(host, "e2b://", NULL, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "E2B_API_URL"));
  unsetenv("E2B_API_URL");
  sbio_host_close(host);
  sbio_error_free(err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_create_exec_kill_is_microvm),
      T(test_create_request_as_e2b_sees_it),
      T(test_network_policy_reaches_e2b),
      T(test_resources_belong_to_the_template),
      T(test_exit_codes_streams_env_and_argv),
      T(test_stdin_binary_output_and_cwd),
      T(test_output_streams_as_it_comes),
      T(test_deadline_kills_with_sendsignal),
      T(test_kill_from_another_thread_ends_the_exec),
      T(test_cancel_one_exec_with_sendsignal),
      T(test_files_binary_round_trip_and_relative_paths),
      T(test_files_mkdir_list_remove_and_missing),
      T(test_connect_and_managed_listing_with_pagination),
      T(test_isolation_requirements),
      T(test_stale_source_becomes_unknown_and_is_refused),
      T(test_broken_source_becomes_unknown_and_is_refused),
      T(test_api_key_appears_nowhere),
      T(test_key_from_the_variable_the_settings_name),
      T(test_plain_http_only_to_loopback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
