/* SPDX-License-Identifier: MIT */
/* Exec on a real engine (runc): streams, stdin, exit codes, env and cwd,
 * large output, deadlines that kill, kill from another thread, one exec
 * cancelled while the sandbox lives on, and a container removed behind the
 * sandbox's back. */
#include "docker_support.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

static dx_env env;

typedef struct fx {
  dx_host h;
  sbio_sandbox *sb;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f || dx_open(&f->h, &env, "runc", NULL) != 0) return -1;
  f->sb = dx_create(&f->h, NULL);
  if (!f->sb) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  sbio_sandbox_close(f->sb, NULL);
  dx_close(&f->h);
  free(f);
  return 0;
}

static sbio_exec_result *run_argv(sbio_sandbox *sb, const char *const *argv, sbio_exec_options *o, sbio_code want) {
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  sbio_code rc = sbio_sandbox_exec(sb, argv, o, &r, err);
  if (rc != want) fprintf(stderr, "exec: [%s] %s\n", sbio_code_name(rc), sbio_error_message(err));
  assert_int_equal(rc, want);
  sbio_error_free(err);
  return r;
}

static void test_create_exec_destroy(void **state) {
  fx *f = *state;
  assert_string_equal(sbio_sandbox_mechanism(f->sb), "runc");
  assert_int_equal(sbio_sandbox_tier(f->sb), SBIO_TIER_CONTAINER);
  const char *argv[] = {"echo", "hello", "world", NULL};
  sbio_exec_result *r = run_argv(f->sb, argv, NULL, SBIO_OK);
  size_t len;
  assert_string_equal(sbio_exec_result_stdout(r, &len), "hello world\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  /* Destroy: the container is gone from the engine. */
  char id[64];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(f->sb));
  cJSON *before = dx_inspect(&env, id);
  assert_non_null(before);
  cJSON_Delete(before);
  assert_int_equal(sbio_sandbox_kill(f->sb, NULL), SBIO_OK);
  assert_int_equal(sbio_sandbox_kill(f->sb, NULL), SBIO_OK); /* idempotent */
  assert_null(dx_inspect(&env, id));
}

static void test_argv_never_through_a_shell(void **state) {
  fx *f = *state;
  const char *argv[] = {"echo", "$HOME", "a;b", "`id`", "*", NULL};
  sbio_exec_result *r = run_argv(f->sb, argv, NULL, SBIO_OK);
  size_t len;
  assert_string_equal(sbio_exec_result_stdout(r, &len), "$HOME a;b `id` *\n");
  sbio_exec_result_free(r);
}

/* Each stream keeps its own order; stdout and stderr never mix. */
static void test_streams_separated_and_ordered(void **state) {
  fx *f = *state;
  dx_out out = {0};
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_output_callback(o, dx_out_cb, &out);
  sbio_exec_result *r = NULL;
  assert_int_equal(
      sbio_sandbox_exec_shell(f->sb, "i=0; while [ $i -lt 2000 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done", o,
                              &r, NULL),
      SBIO_OK);
  char expect[32];
  char *p = out.data[1], *q = out.data[2];
  assert_non_null(p);
  assert_non_null(q);
  for (int i = 0; i < 2000; i++) {
    snprintf(expect, sizeof expect, "out%d\n", i);
    assert_memory_equal(p, expect, strlen(expect));
    p += strlen(expect);
    snprintf(expect, sizeof expect, "err%d\n", i);
    assert_memory_equal(q, expect, strlen(expect));
    q += strlen(expect);
  }
  assert_int_equal(*p, '\0');
  assert_int_equal(*q, '\0');
  size_t len;
  assert_int_equal(strlen(sbio_exec_result_stderr(r, &len)), out.len[2]);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  dx_out_free(&out);
}

static void test_exit_codes(void **state) {
  fx *f = *state;
  static const int codes[] = {0, 1, 42, 255};
  for (size_t i = 0; i < 4; i++) {
    char script[32];
    snprintf(script, sizeof script, "exit %d", codes[i]);
    int code = -1;
    assert_int_equal(dx_sh(f->sb, script, 30, &code, NULL, NULL), SBIO_OK);
    assert_int_equal(code, codes[i]);
  }
}

/* A program the runtime cannot start is what a shell makes of it: a
 * message on stderr naming the program, nothing on stdout, exit code 127
 * when it does not exist (a path or a name not on PATH), 126 when it is not
 * executable. A command that prints the engine's words itself and exits
 * 126 is passed through untouched (a process ran). */
static void test_missing_program_is_127_on_stderr(void **state) {
  fx *f = *state;
  static const struct {
    const char *program;
    int code;
    const char *says;
  } cases[] = {
      {"/no/such/program", 127, "command not found"},
      {"no-such-command-on-path", 127, "command not found"},
      {"/etc/passwd", 126, "cannot run"},
      {"/etc", 126, "cannot run"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *argv[] = {cases[i].program, NULL};
    sbio_exec_result *r = run_argv(f->sb, argv, NULL, SBIO_OK);
    size_t out_len = 0, err_len = 0;
    sbio_exec_result_stdout(r, &out_len);
    const char *said = sbio_exec_result_stderr(r, &err_len);
    fprintf(stderr, "%s -> %d: %s", cases[i].program, sbio_exec_result_exit_code(r), said);
    assert_int_equal(sbio_exec_result_exit_code(r), cases[i].code);
    assert_int_equal(out_len, 0);
    assert_non_null(strstr(said, cases[i].program));
    assert_non_null(strstr(said, cases[i].says));
    sbio_exec_result_free(r);
  }
  /* A missing working directory: the program is there, it cannot run. */
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_cwd(o, "/no/such/dir");
  const char *t[] = {"true", NULL};
  sbio_exec_result *r = run_argv(f->sb, t, o, SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 126);
  assert_non_null(strstr(sbio_exec_result_stderr(r, NULL), "/no/such/dir"));
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  /* The same words from a process that ran are its own output. */
  const char *lookalike[] = {"sh", "-c", "printf 'OCI runtime exec failed: no such file or directory'; exit 126", NULL};
  r = run_argv(f->sb, lookalike, NULL, SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 126);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "OCI runtime exec failed: no such file or directory");
  size_t err_len = 1;
  sbio_exec_result_stderr(r, &err_len);
  assert_int_equal(err_len, 0);
  sbio_exec_result_free(r);
}

/* The CLI, exactly as a user types it: `sbio run -b docker://IMG -- /no/such`
 * says so on stderr and exits 127, like a shell. */
static void test_cli_missing_program_exits_127(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s --config %s run -b docker://%s -- /no/such 2>%s/stderr.txt", DX_SBIO, h.config,
           env.image, h.dir);
  FILE *p = popen(cmd, "r");
  assert_non_null(p);
  char out[256];
  size_t n = fread(out, 1, sizeof out, p);
  int status = pclose(p);
  assert_int_equal(n, 0); /* nothing on stdout */
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 127);
  char path[400], said[4096];
  snprintf(path, sizeof path, "%s/stderr.txt", h.dir);
  FILE *fp = fopen(path, "r");
  assert_non_null(fp);
  size_t m = fread(said, 1, sizeof said - 1, fp);
  fclose(fp);
  said[m] = '\0';
  fprintf(stderr, "sbio run said: %s", said);
  assert_non_null(strstr(said, "/no/such: command not found"));
  dx_close(&h);
}

static void test_stdin(void **state) {
  fx *f = *state;
  size_t n = 3 * 1024 * 1024 + 17;
  unsigned char *in = malloc(n);
  for (size_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 7 + (i >> 9));
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_stdin(o, in, n);
  const char *cat[] = {"cat", NULL};
  sbio_exec_result *r = run_argv(f->sb, cat, o, SBIO_OK);
  size_t len = 0;
  const char *got = sbio_exec_result_stdout(r, &len);
  assert_int_equal(len, n);
  assert_memory_equal(got, in, n);
  sbio_exec_result_free(r);
  /* A process that never reads its stdin still ends. */
  const char *t[] = {"true", NULL};
  r = run_argv(f->sb, t, o, SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  sbio_exec_result_free(r);
  /* Empty stdin is an immediate EOF. */
  sbio_exec_options_set_stdin(o, "", 0);
  const char *wc[] = {"wc", "-c", NULL};
  r = run_argv(f->sb, wc, o, SBIO_OK);
  assert_int_equal(atoi(sbio_exec_result_stdout(r, &len)), 0);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  free(in);
}

static void test_env_and_cwd(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_env(co, "SANDBOX_VAR", "from-create");
  sbio_create_options_set_env(co, "OVERRIDDEN", "create");
  sbio_sandbox *sb = dx_create(&h, co);
  assert_non_null(sb);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_env(o, "EXEC_VAR", "from exec; with $pecial chars");
  sbio_exec_options_set_env(o, "OVERRIDDEN", "exec");
  const char *envp[] = {"env", NULL};
  sbio_exec_result *r = run_argv(sb, envp, o, SBIO_OK);
  size_t len;
  const char *out = sbio_exec_result_stdout(r, &len);
  assert_non_null(strstr(out, "SANDBOX_VAR=from-create\n"));
  assert_non_null(strstr(out, "EXEC_VAR=from exec; with $pecial chars\n"));
  assert_non_null(strstr(out, "OVERRIDDEN=exec\n"));
  sbio_exec_result_free(r);
  /* Default cwd is the work dir; relative cwd is under it. */
  const char *pwd[] = {"pwd", NULL};
  r = run_argv(sb, pwd, NULL, SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, &len), "/work\n");
  sbio_exec_result_free(r);
  assert_int_equal(sbio_file_mkdir(sb, "sub/dir", 1, NULL), SBIO_OK);
  sbio_exec_options_set_cwd(o, "sub/dir");
  r = run_argv(sb, pwd, o, SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, &len), "/work/sub/dir\n");
  sbio_exec_result_free(r);
  sbio_exec_options_set_cwd(o, "/tmp");
  r = run_argv(sb, pwd, o, SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, &len), "/tmp\n");
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_create_options_free(co);
  sbio_sandbox_close(sb, NULL);
  dx_close(&h);
}

static long max_rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

/* 64 MiB through the callback with a 1 MiB buffer cap: memory stays flat. */
static void test_large_output_streams(void **state) {
  fx *f = *state;
  dx_out out = {.keep = 4096};
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_output_callback(o, dx_out_cb, &out);
  sbio_exec_options_set_output_cap(o, 1 << 20);
  long before = max_rss_kb();
  sbio_exec_result *r = NULL;
  double t0 = dx_now();
  assert_int_equal(sbio_sandbox_exec_shell(f->sb, "head -c 67108864 /dev/zero; echo done >&2", o, &r, NULL), SBIO_OK);
  double dt = dx_now() - t0;
  long after = max_rss_kb();
  assert_int_equal(out.total[1], 64u << 20);
  assert_string_equal(out.data[2], "done\n");
  assert_true(sbio_exec_result_truncated(r));
  fprintf(stderr, "64 MiB streamed in %.2f s; peak RSS grew by %ld KiB\n", dt, after - before);
  assert_true(after - before < 24 * 1024);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  dx_out_free(&out);
}

static int count_processes(sbio_sandbox *sb, const char *needle) {
  char script[256], *out = NULL;
  snprintf(script, sizeof script, "ps -o args | grep -c '^%s' || true", needle);
  int code = -1;
  assert_int_equal(dx_sh(sb, script, 30, &code, &out, NULL), SBIO_OK);
  int n = atoi(out);
  free(out);
  return n;
}

/* A deadline kills the process and everything it started; the sandbox
 * stays usable. (PID 1 is `sleep 301` here, so the test uses other
 * numbers.) */
static void test_deadline_kills_the_process(void **state) {
  fx *f = *state;
  dx_out out = {0};
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 1.5);
  sbio_exec_options_set_output_callback(o, dx_out_cb, &out);
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  double t0 = dx_now();
  sbio_code rc = sbio_sandbox_exec_shell(f->sb, "echo started; sleep 401 & sleep 402", o, &r, err);
  double dt = dx_now() - t0;
  assert_int_equal(rc, SBIO_E_EXEC_TIMEOUT);
  fprintf(stderr, "deadline 1.5 s -> returned after %.2f s: %s\n", dt, sbio_error_message(err));
  assert_true(dt >= 1.4);  /* not before the deadline ... */
  assert_true(dt < 120.0); /* ... and the deadline ended it (with its kill step), not the 402 s sleep */
  assert_string_equal(out.data[1], "started\n");
  if (r) assert_int_equal(sbio_exec_result_exit_code(r), 137);
  sbio_exec_result_free(r);
  /* Gone: neither the process nor its background child is left. */
  assert_int_equal(count_processes(f->sb, "sleep 40[12]"), 0);
  int code = -1;
  char *text = NULL;
  assert_int_equal(dx_sh(f->sb, "echo still-usable", 30, &code, &text, NULL), SBIO_OK);
  assert_string_equal(text, "still-usable\n");
  free(text);
  /* The count is real: a background process that is left alone is seen. */
  assert_int_equal(dx_sh(f->sb, "sleep 403 >/dev/null 2>&1 &", 30, &code, NULL, NULL), SBIO_OK);
  assert_int_equal(count_processes(f->sb, "sleep 403"), 1);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  dx_out_free(&out);
}

typedef struct killer_args {
  sbio_sandbox *sb;
  double after;
} killer_args;

static void *killer(void *p) {
  killer_args *a = p;
  struct timespec ts = {0, (long)(a->after * 1e9)};
  nanosleep(&ts, NULL);
  sbio_sandbox_kill(a->sb, NULL);
  return NULL;
}

static void test_kill_from_another_thread_ends_exec(void **state) {
  fx *f = *state;
  char id[64];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(f->sb));
  killer_args a = {f->sb, 0.5};
  pthread_t t;
  pthread_create(&t, NULL, killer, &a);
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 60);
  sbio_exec_result *r = NULL;
  double t0 = dx_now();
  sbio_code rc = sbio_sandbox_exec_shell(f->sb, "sleep 300", o, &r, NULL);
  double dt = dx_now() - t0;
  pthread_join(t, NULL);
  fprintf(stderr, "exec ended %.2f s after start (kill at 0.5 s), rc %d\n", dt, rc);
  assert_true(dt < 30); /* the kill ended it, not the 60 s deadline */
  assert_true(rc == SBIO_OK || rc == SBIO_E_GONE);
  if (rc == SBIO_OK) assert_int_equal(sbio_exec_result_exit_code(r), 137);
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  assert_null(dx_inspect(&env, id));
}

/* Per-exec cancellation (ABI 1.3): a token set from another thread once the
 * command has printed, and only that command dies: its background child
 * too, but not another process of the sandbox, nor its files, nor the
 * container. */
static void test_cancel_one_exec_keeps_the_sandbox(void **state) {
  fx *f = *state;
  assert_true(sbio_sandbox_exec_cancellable(f->sb));
  char id[80];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(f->sb));
  int code = -1;
  assert_int_equal(dx_sh(f->sb, "echo kept > /work/marker; sleep 404 >/dev/null 2>&1 &", 30, &code, NULL, NULL),
                   SBIO_OK);
  char started_at[64] = "";
  cJSON *before = dx_inspect(&env, id);
  assert_non_null(before);
  snprintf(
      started_at, sizeof started_at, "%s",
      cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(before, "State"), "StartedAt")->valuestring);
  cJSON_Delete(before);
  assert_int_equal(count_processes(f->sb, "sleep 404"), 1);

  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 120);
  /* Bounded at 30 s: the sandbox already runs, the exec prints at once. */
  dx_canceller t;
  assert_int_equal(dx_canceller_start(&t, o, 30), 0);
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  double t0 = dx_now();
  sbio_code rc = sbio_sandbox_exec_shell(f->sb, "echo started; sleep 405 & sleep 406", o, &r, err);
  double dt = dx_now() - t0;
  int saw_output = dx_canceller_join(&t);
  fprintf(stderr, "cancelled exec returned after %.2f s: [%s] %s\n", dt, sbio_code_name(rc), sbio_error_message(err));
  assert_true(saw_output);
  assert_int_equal(rc, SBIO_E_CANCELLED);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1902");
  assert_non_null(strstr(sbio_error_message(err), "still usable"));
  assert_true(dt < 60); /* far from the 120 s deadline */
  assert_non_null(r);
  assert_int_equal(sbio_exec_result_exit_code(r), 137);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "started\n");
  sbio_exec_result_free(r);
  /* The command and its child are gone; the other process, the files and
   * the container are not. */
  assert_int_equal(count_processes(f->sb, "sleep 40[56]"), 0);
  assert_int_equal(count_processes(f->sb, "sleep 404"), 1);
  char *text = NULL;
  assert_int_equal(dx_sh(f->sb, "cat /work/marker", 30, &code, &text, NULL), SBIO_OK);
  assert_string_equal(text, "kept\n");
  free(text);
  assert_true(sbio_sandbox_alive(f->sb));
  assert_string_equal(sbio_sandbox_id(f->sb), id);
  cJSON *c = dx_inspect(&env, id);
  assert_non_null(c);
  const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "State");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "Running")));
  /* Not restarted (the fallback when the processes cannot be killed one by one). */
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(st, "StartedAt")->valuestring, started_at);
  cJSON_Delete(c);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  dx_canceller_free(&t);
}

/* Removed behind our back: SBX_E1204 for exec and files. */
static void test_container_removed_externally_is_gone(void **state) {
  fx *f = *state;
  char path[200];
  long status;
  snprintf(path, sizeof path, "/containers/%s?force=true", sbio_sandbox_id(f->sb));
  free(dx_api(&env, "DELETE", path, NULL, &status));
  assert_int_equal(status, 204);
  sbio_error *err = sbio_error_new();
  const char *argv[] = {"true", NULL};
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec(f->sb, argv, NULL, &r, err), SBIO_E_GONE);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1204");
  sbio_exec_result_free(r);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(f->sb, "x.txt", 0, &data, &len, err), SBIO_E_GONE);
  assert_int_equal(sbio_file_write(f->sb, "x.txt", "x", 1, err), SBIO_E_GONE);
  assert_int_equal(sbio_file_mkdir(f->sb, "d", 1, err), SBIO_E_GONE);
  sbio_error_free(err);
}

int main(void) {
  int rc = dx_env_load(&env);
  if (rc) return rc;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_create_exec_destroy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_argv_never_through_a_shell, setup, teardown),
      cmocka_unit_test_setup_teardown(test_streams_separated_and_ordered, setup, teardown),
      cmocka_unit_test_setup_teardown(test_exit_codes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stdin, setup, teardown),
      cmocka_unit_test(test_env_and_cwd),
      cmocka_unit_test_setup_teardown(test_missing_program_is_127_on_stderr, setup, teardown),
      cmocka_unit_test(test_cli_missing_program_exits_127),
      cmocka_unit_test_setup_teardown(test_large_output_streams, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deadline_kills_the_process, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kill_from_another_thread_ends_exec, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cancel_one_exec_keeps_the_sandbox, setup, teardown),
      cmocka_unit_test_setup_teardown(test_container_removed_externally_is_gone, setup, teardown),
  };
  return cmocka_run_group_tests_name("docker_exec", tests, NULL, NULL);
}
