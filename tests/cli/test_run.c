/* SPDX-License-Identifier: MIT */
/* sbio run: output streaming, exit statuses, the fake-backend notice,
 * isolation requirements enforced before anything is created, deadlines,
 * signals, and secrets that never leak into messages or audit events. */
#include "harness.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FAKE_NOTICE                                                                                                    \
  "sbio: no backend chosen; using the built-in fake backend, which executes nothing (choose one with --backend "       \
  "docker://IMAGE or default_backend in the config)\n"
#define CANARY "s3cr3t-canary"

/* A config with the fake's call log and an audit file, and scripts:
 * "hang-here" runs until its deadline. Paths are returned malloc'd. */
typedef struct logged_config {
  char *config, *calls, *audit;
} logged_config;

static logged_config make_logged_config(const char *tag) {
  logged_config c;
  char name[128], yaml[4096];
  snprintf(name, sizeof name, "%s-calls.log", tag);
  c.calls = h_path(name);
  snprintf(name, sizeof name, "%s-audit.log", tag);
  c.audit = h_path(name);
  snprintf(yaml, sizeof yaml,
           "backends:\n"
           "  fake:\n"
           "    settings:\n"
           "      call_log: %s\n"
           "      scripts:\n"
           "        - match: hang-here\n"
           "          hang: true\n"
           "audit:\n"
           "  path: %s\n",
           c.calls, c.audit);
  snprintf(name, sizeof name, "%s.yaml", tag);
  c.config = h_write(name, yaml);
  return c;
}

static void free_logged_config(logged_config *c) {
  free(c->config);
  free(c->calls);
  free(c->audit);
}

static char *empty_config(void) {
  return h_write("empty.yaml", "");
}

/* Whether some line of `text` is `op` or starts with "op ". */
static int has_op_line(const char *text, const char *op) {
  size_t n = strlen(op);
  for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, op, n) == 0 && (line[n] == ' ' || line[n] == '\n' || line[n] == '\0')) return 1;
  }
  return 0;
}

static void test_run_echo_streams_stdout_and_says_fake_once(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "echo", "hello");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "hello\n");
  assert_string_equal(r.err, FAKE_NOTICE);
  h_result_free(&r);
  free(cfg);
}

/* Nothing in `sbio version` or a run on the fake needs HTTP, so neither
 * maps libcurl (and the libraries it brings): the dynamic linker's own
 * report of what it loaded says so. */
static void test_version_and_fake_run_load_no_libcurl(void **state) {
  (void)state;
  char *cfg = empty_config();
  const char *env[] = {"LD_DEBUG=libs", NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "--config", cfg, "version");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.err, r.err_len, "libsandboxio.so")); /* the report is there */
  assert_false(h_contains(r.err, r.err_len, "libcurl"));
  h_result_free(&r);
  H_RUN(&r, &o, "--config", cfg, "run", "--", "true");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.err, r.err_len, "sbio-backend-fake.so"));
  assert_false(h_contains(r.err, r.err_len, "libcurl"));
  h_result_free(&r);
  free(cfg);
}

/* A teardown that fails does not replace the command's status: the run
 * exits with it, and stderr names the sandbox for `sbio reap --kill`. */
static void test_failed_teardown_keeps_the_status_and_names_the_sandbox(void **state) {
  (void)state;
  char *cfg = h_write("kill-fails.yaml", "backends:\n"
                                         "  fake:\n"
                                         "    settings:\n"
                                         "      simulate: {kill_fails: provider said 500}\n");
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "sh", "-c", "echo done; exit 4");
  H_ASSERT_STATUS(&r, 4);
  assert_string_equal(r.out, "done\n");
  assert_true(h_contains(r.err, r.err_len, "may still exist"));
  assert_true(h_contains(r.err, r.err_len, "sbio reap --kill"));
  h_result_free(&r);
  free(cfg);
}

static void test_run_passes_the_exit_status_through(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "sh", "-c", "exit 3");
  H_ASSERT_STATUS(&r, 3);
  assert_string_equal(r.out, "");
  assert_string_equal(r.err, FAKE_NOTICE);
  h_result_free(&r);
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "false");
  H_ASSERT_STATUS(&r, 1);
  h_result_free(&r);
  free(cfg);
}

static void test_run_passes_stderr_through(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "sh", "-c", "echo out; echo oops >&2");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "out\n");
  assert_string_equal(r.err, FAKE_NOTICE "oops\n");
  h_result_free(&r);
  free(cfg);
}

static void test_run_shell_runs_one_script(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--shell", "--", "echo a; echo b");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "a\nb\n");
  h_result_free(&r);
  H_RUN(&r, NULL, "--config", cfg, "run", "--shell", "--", "echo", "a");
  H_ASSERT_STATUS(&r, 64);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "--shell takes exactly one"));
  h_result_free(&r);
  free(cfg);
}

static void test_run_env_reaches_the_command(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "-e", "FOO=bar", "--env=EMPTY=", "--", "printenv", "FOO");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "bar\n");
  h_result_free(&r);
  free(cfg);
}

static void test_run_stdin_reaches_the_command(void **state) {
  (void)state;
  char *cfg = empty_config();
  char *input = h_write("stdin.txt", "line one\nline two\n");
  h_opts o = {.stdin_file = input};
  h_result r;
  H_RUN(&r, &o, "--config", cfg, "run", "--stdin", "--", "cat");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "line one\nline two\n");
  h_result_free(&r);
  free(input);
  free(cfg);
}

static void test_run_require_microvm_fails_before_create(void **state) {
  (void)state;
  logged_config c = make_logged_config("microvm");
  h_result r;
  H_RUN(&r, NULL, "--config", c.config, "run", "--require-isolation", "microvm", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 78);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "error: [SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, "MICROVM"));
  assert_true(h_contains(r.err, r.err_len, "CONTAINER"));
  assert_true(h_contains(r.err, r.err_len, "fake"));
  char *calls = h_read(c.calls);
  char *audit = h_read(c.audit);
  assert_false(has_op_line(calls, "create"));
  assert_false(has_op_line(calls, "exec"));
  assert_non_null(strstr(audit, "\"event\":\"create_denied\""));
  assert_null(strstr(audit, "\"event\":\"created\""));
  free(calls);
  free(audit);
  h_result_free(&r);
  free_logged_config(&c);
}

static void test_run_require_container_is_met_by_fake(void **state) {
  (void)state;
  logged_config c = make_logged_config("container");
  h_result r;
  H_RUN(&r, NULL, "--config", c.config, "run", "--require-isolation", "CONTAINER", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "hi\n");
  assert_string_equal(r.err, FAKE_NOTICE);
  char *calls = h_read(c.calls);
  char *audit = h_read(c.audit);
  assert_true(has_op_line(calls, "create"));
  assert_true(has_op_line(calls, "kill")); /* the sandbox was destroyed */
  assert_non_null(strstr(audit, "\"event\":\"created\""));
  free(calls);
  free(audit);
  h_result_free(&r);
  free_logged_config(&c);
}

static void test_run_rejects_an_unknown_tier_as_usage(void **state) {
  (void)state;
  char *cfg = empty_config();
  static const char *const bad[] = {"bogus", "unknown", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    h_result r;
    H_RUN(&r, NULL, "--config", cfg, "run", "--require-isolation", bad[i], "--", "echo", "hi");
    H_ASSERT_STATUS(&r, 64);
    assert_string_equal(r.out, "");
    assert_true(h_contains(r.err, r.err_len, "container, gvisor, microvm"));
    h_result_free(&r);
  }
  free(cfg);
}

static void test_run_usage_errors_exit_64(void **state) {
  (void)state;
  char *cfg = empty_config();
  const char *const *const cases[] = {
      (const char *const[]){"run", NULL},
      (const char *const[]){"run", "--", NULL},
      (const char *const[]){"run", "echo", "hi", NULL},
      (const char *const[]){"run", "-e", "NOEQUALS", "--", "true", NULL},
      (const char *const[]){"run", "-e", "=v", "--", "true", NULL},
      (const char *const[]){"run", "--label", "x", "--", "true", NULL},
      (const char *const[]){"run", "--timeout", "0", "--", "true", NULL},
      (const char *const[]){"run", "--timeout", "abc", "--", "true", NULL},
      (const char *const[]){"run", "--timeout", "nan", "--", "true", NULL},
      (const char *const[]){"run", "--timeout", NULL},
      (const char *const[]){"run", "--secret", "TOKEN=SBIO_TEST_NOT_SET", "--", "true", NULL},
      (const char *const[]){"run", "--secret", "TOKEN", "--", "true", NULL},
      (const char *const[]){"run", "--bogus", "--", "true", NULL},
      (const char *const[]){"run", "--shell=yes", "--", "true", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n = 0;
    while (cases[i][n]) n++;
    const char **argv = calloc(n + 3, sizeof *argv);
    argv[0] = "--config";
    argv[1] = cfg;
    for (size_t j = 0; j < n; j++) argv[j + 2] = cases[i][j];
    h_result r;
    h_run(&r, NULL, argv);
    if (r.status != 64) fail_msg("case %zu (%s ...): status %d, stderr: %s", i, cases[i][1], r.status, r.err);
    assert_string_equal(r.out, "");
    assert_true(h_contains(r.err, r.err_len, "usage: sbio run"));
    h_result_free(&r);
    free(argv);
  }
  free(cfg);
}

static void test_run_backend_option_skips_the_notice(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--backend", "fake://", "--", "echo", "x");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "x\n");
  assert_string_equal(r.err, "");
  h_result_free(&r);
  /* A bare name means NAME:// */
  H_RUN(&r, NULL, "--config", cfg, "run", "-b", "fake", "--", "echo", "y");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "y\n");
  assert_string_equal(r.err, "");
  h_result_free(&r);
  free(cfg);
}

static void test_run_default_backend_from_config_skips_the_notice(void **state) {
  (void)state;
  char *cfg = h_write("default-fake.yaml", "default_backend: fake://\n");
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "echo", "x");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "x\n");
  assert_string_equal(r.err, "");
  h_result_free(&r);
  free(cfg);
}

static void test_run_unknown_backend_is_unavailable(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--backend", "nosuch://", "--", "echo", "x");
  H_ASSERT_STATUS(&r, 69);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "error: [SBX_E1001]"));
  h_result_free(&r);
  free(cfg);
}

/* A timeout above the one maximum (SBIO_MAX_TIMEOUT_S, 24 h) is refused
 * with SBX_E1000 and exit 78, from --timeout and from the target's
 * ?timeout=, and the backend never hears of it. Before, the core took
 * 99999999999999999999 and passed it on. */
static void test_run_timeout_above_the_maximum_exits_78(void **state) {
  (void)state;
  logged_config c = make_logged_config("maxtimeout");
  h_result r;
  H_RUN(&r, NULL, "--config", c.config, "run", "--backend", "fake://", "--timeout", "99999999999999999999", "--",
        "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, "above the maximum of 86400 seconds"));
  h_result_free(&r);
  H_RUN(&r, NULL, "--config", c.config, "run", "--backend", "fake://?timeout=86401", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, "above the maximum of 86400 seconds"));
  h_result_free(&r);
  /* and from the configuration: a default_backend URI is checked the same way */
  char yaml[4600];
  snprintf(yaml, sizeof yaml,
           "default_backend: fake://?timeout=99999999999999999999\nbackends: {fake: {settings: {call_log: %s}}}\n",
           c.calls);
  char *cfg = h_write("maxtimeout-default.yaml", yaml);
  H_RUN(&r, NULL, "--config", cfg, "run", "--", "true");
  H_ASSERT_STATUS(&r, 78);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1000]"));
  assert_true(h_contains(r.err, r.err_len, "above the maximum of 86400 seconds"));
  h_result_free(&r);
  free(cfg);
  char *calls = h_read(c.calls);
  assert_false(has_op_line(calls, "create"));
  free(calls);
  /* the maximum itself is accepted */
  H_RUN(&r, NULL, "--config", c.config, "run", "--backend", "fake://", "--timeout", "86400", "--", "echo", "ok");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "ok\n");
  h_result_free(&r);
  free_logged_config(&c);
}

/* Reads `fd` (one of p's streams; what it gives is kept in buf when buf
 * is not NULL) until sbio exits, for at most limit_s seconds, bounded by
 * time rather than by a count of reads: a message written in many pieces
 * once used up a count of 300 in milliseconds. The exit status (128+N for
 * signal N), or -1 when sbio was still running: then it is killed. */
static int read_until_exit(h_proc *p, int fd, char *buf, size_t cap, size_t *len, int limit_s) {
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int status = -1, open_ = 1;
  char scratch[4096];
  for (now = t0; status < 0 && now.tv_sec - t0.tv_sec < limit_s; clock_gettime(CLOCK_MONOTONIC, &now)) {
    struct pollfd pfd = {fd, POLLIN, 0};
    if (open_ && poll(&pfd, 1, 100) > 0) {
      ssize_t n = buf ? read(fd, buf + *len, cap - 1 - *len) : read(fd, scratch, sizeof scratch);
      if (n > 0 && buf) *len += (size_t)n;
      if (n <= 0) open_ = 0;
    } else if (!open_) {
      nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    int ws;
    if (waitpid(p->pid, &ws, WNOHANG) == p->pid) status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  }
  if (status < 0) {
    kill(p->pid, SIGKILL);
    waitpid(p->pid, NULL, 0);
  }
  return status;
}

/* sbio's own stdout is a pipe nobody reads: --timeout still ends the run
 * (exit 124, SBX_E1302 on stderr), well before the harness would give up.
 * Before, the output callback blocked the exec's thread in write() and the
 * deadline was never enforced: sbio hung for as long as the pipe did. */
static void test_run_deadline_holds_when_stdout_is_never_read(void **state) {
  (void)state;
  char *cfg = empty_config();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  h_proc p;
  H_START(&p, NULL, "--config", cfg, "run", "--backend", "fake://", "--timeout", "2", "--", "seq", "1", "2000000");
  /* Read stderr only; stdout's pipe fills and stays full. */
  char err[65536];
  size_t err_len = 0;
  int status = read_until_exit(&p, p.err_fd, err, sizeof err, &err_len, 30);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (status < 0) fail_msg("sbio run --timeout 2 did not end within 30 s while its stdout was not read");
  for (ssize_t n; (n = read(p.err_fd, err + err_len, sizeof err - 1 - err_len)) > 0;) err_len += (size_t)n;
  err[err_len] = '\0';
  close(p.out_fd);
  close(p.err_fd);
  if (status != 124) fail_msg("status %d, stderr: %s", status, err);
  assert_non_null(strstr(err, "[SBX_E1302]"));
  double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(elapsed < 20.0); /* not a tight bound: the point is that it ends */
  free(cfg);
}

/* The same with stderr: the command fills the pipe, nobody reads it, and
 * sbio's own "deadline passed" line has nowhere to go. It used to block in
 * that write for ever after the run had ended; now a stalled stderr is
 * given up on and sbio exits 124 all the same. */
static void test_run_deadline_holds_when_stderr_is_never_read(void **state) {
  (void)state;
  char *cfg = empty_config();
  h_proc p;
  H_START(&p, NULL, "--config", cfg, "run", "--backend", "fake://", "--timeout", "2", "--", "sh", "-c",
          "seq 1 2000000 >&2");
  /* Read stdout only; stderr's pipe fills and stays full. */
  int status = read_until_exit(&p, p.out_fd, NULL, 0, NULL, 60);
  if (status < 0) fail_msg("sbio run --timeout 2 did not end within 60 s while its stderr was not read");
  close(p.out_fd);
  close(p.err_fd);
  assert_int_equal(status, 124);
  free(cfg);
}

/* Ctrl-C while stderr is full: the watcher's "interrupted" note used to
 * block it before it started the kill, so the run went on to its far
 * deadline. The note is dropped now, and the signal ends the run. */
static void test_run_sigint_ends_the_run_when_stderr_is_never_read(void **state) {
  (void)state;
  char *cfg = empty_config();
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  h_proc p;
  H_START(&p, NULL, "--config", cfg, "run", "--backend", "fake://", "--timeout", "600", "--", "sh", "-c",
          "seq 1 2000000 >&2; sleep 600");
  int status = -1, signalled = 0;
  for (struct timespec now = t0; status < 0 && now.tv_sec - t0.tv_sec < 120; clock_gettime(CLOCK_MONOTONIC, &now)) {
    nanosleep(&(struct timespec){0, 100000000}, NULL);
    /* By 3 s the command's stderr has long filled the pipe. */
    if (!signalled && now.tv_sec - t0.tv_sec >= 3) signalled = kill(p.pid, SIGINT) == 0;
    int ws;
    if (waitpid(p.pid, &ws, WNOHANG) == p.pid) status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  }
  if (status < 0) {
    kill(p.pid, SIGKILL);
    waitpid(p.pid, NULL, 0);
    fail_msg("sbio run did not end within 120 s of a SIGINT while its stderr was not read");
  }
  close(p.out_fd);
  close(p.err_fd);
  assert_true(signalled);
  assert_int_equal(status, 130);
  free(cfg);
}

static void test_run_deadline_exits_124(void **state) {
  (void)state;
  logged_config c = make_logged_config("deadline");
  h_result r;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* 3 s, not less: the timeout is also create's deadline, which a busy
   * machine must not miss for this test to see the exec's. */
  H_RUN(&r, NULL, "--config", c.config, "run", "--timeout", "3", "--", "hang-here");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  H_ASSERT_STATUS(&r, 124);
  assert_string_equal(r.out, "");
  assert_true(h_contains(r.err, r.err_len, "error: [SBX_E1302]"));
  double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(elapsed < 60.0); /* hang-here never ends: only the deadline ended it */
  char *calls = h_read(c.calls);
  assert_true(has_op_line(calls, "kill"));
  free(calls);
  h_result_free(&r);
  free_logged_config(&c);
}

/* A signal during the command destroys the sandbox and exits 128+N. */
static void interrupt_with(int signo, int expected_status, const char *tag) {
  logged_config c = make_logged_config(tag);
  h_proc p;
  h_result r;
  H_START(&p, NULL, "--config", c.config, "run", "--timeout", "60", "--", "hang-here");
  assert_true(h_wait_for(c.calls, "exec", 20.0));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(kill(p.pid, signo), 0);
  h_finish(&p, &r);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  H_ASSERT_STATUS(&r, expected_status);
  assert_true(h_contains(r.err, r.err_len, "sbio: interrupted; destroying the sandbox"));
  /* The kill ended the command; its 60 s deadline did not. */
  assert_true((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 < 30.0);
  char *calls = h_read(c.calls);
  assert_true(has_op_line(calls, "kill"));
  free(calls);
  h_result_free(&r);
  free_logged_config(&c);
}

static void test_run_sigint_destroys_the_sandbox(void **state) {
  (void)state;
  interrupt_with(SIGINT, 130, "sigint");
}

static void test_run_sigterm_destroys_the_sandbox(void **state) {
  (void)state;
  interrupt_with(SIGTERM, 143, "sigterm");
}

/* When the kill itself hangs, a second signal still gets the user out. */
static void test_run_second_signal_exits_at_once(void **state) {
  (void)state;
  char *calls = h_path("hung-kill-calls.log");
  char yaml[4096];
  snprintf(yaml, sizeof yaml,
           "backends:\n"
           "  fake:\n"
           "    settings:\n"
           "      call_log: %s\n"
           "      simulate: {kill_hangs: true}\n"
           "      scripts: [{match: hang-here, hang: true}]\n",
           calls);
  char *cfg = h_write("hung-kill.yaml", yaml);
  h_proc p;
  h_result r;
  H_START(&p, NULL, "--config", cfg, "run", "--timeout", "60", "--", "hang-here");
  assert_true(h_wait_for(calls, "exec", 20.0));
  assert_int_equal(kill(p.pid, SIGINT), 0);
  struct timespec pause = {0, 300 * 1000 * 1000}, t0, t1;
  nanosleep(&pause, NULL);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(kill(p.pid, SIGINT), 0);
  h_finish(&p, &r);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  H_ASSERT_STATUS(&r, 130);
  assert_true(h_contains(r.err, r.err_len, "sbio: interrupted; destroying the sandbox"));
  assert_true(h_contains(r.err, r.err_len, "sbio: second signal;"));
  /* Below the 10 s teardown grace the hung kill would have taken (the
   * messages above say which path ran; this only catches waiting it out). */
  double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  assert_true(elapsed < 8.0);
  h_result_free(&r);
  free(cfg);
  free(calls);
}

static void test_run_secret_reaches_only_the_command(void **state) {
  (void)state;
  logged_config c = make_logged_config("secret");
  const char *const env[] = {"MY_SECRET_ENV=" CANARY, NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", c.config, "run", "--secret", "TOKEN=MY_SECRET_ENV", "--", "printenv", "TOKEN");
  H_ASSERT_STATUS(&r, 0);
  /* The command asked for it: that is the command's own output. */
  assert_string_equal(r.out, CANARY "\n");
  assert_false(h_contains(r.err, r.err_len, CANARY));
  char *audit = h_read(c.audit);
  char *calls = h_read(c.calls);
  assert_non_null(strstr(audit, "\"event\":\"created\""));
  assert_null(strstr(audit, CANARY));
  assert_null(strstr(calls, CANARY));
  free(audit);
  free(calls);
  h_result_free(&r);
  free_logged_config(&c);
}

static void test_run_secret_stays_out_of_failures(void **state) {
  (void)state;
  logged_config c = make_logged_config("secret-fail");
  const char *const env[] = {"MY_SECRET_ENV=" CANARY, NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", c.config, "run", "--secret", "TOKEN=MY_SECRET_ENV", "--require-isolation", "microvm",
        "--", "printenv", "TOKEN");
  H_ASSERT_STATUS(&r, 78);
  assert_string_equal(r.out, "");
  assert_false(h_contains(r.err, r.err_len, CANARY));
  char *audit = h_read(c.audit);
  assert_non_null(strstr(audit, "\"event\":\"create_denied\""));
  assert_null(strstr(audit, CANARY));
  free(audit);
  h_result_free(&r);
  /* The command fails inside the sandbox, its error names the key. */
  H_RUN(&r, &o, "--config", c.config, "run", "--secret", "TOKEN=MY_SECRET_ENV", "--timeout", "0.3", "--", "hang-here",
        CANARY);
  H_ASSERT_STATUS(&r, 124);
  assert_false(h_contains(r.err, r.err_len, CANARY));
  audit = h_read(c.audit);
  assert_null(strstr(audit, CANARY));
  free(audit);
  h_result_free(&r);
  free_logged_config(&c);
}

/* Userinfo in a target is refused (78) before anything happens: no call
 * reaches the backend, nothing of it is audited or printed. */
static void test_run_userinfo_in_the_target_is_refused_before_anything(void **state) {
  (void)state;
  logged_config c = make_logged_config("userinfo");
  static const char *const targets[] = {"fake://user:" CANARY "@tpl", "fake://" CANARY "@tpl",
                                        "fake://u:" CANARY "@tpl?timeout=5"};
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    h_result r;
    H_RUN(&r, NULL, "-vv", "--config", c.config, "run", "--backend", targets[i], "--", "echo", "hi");
    H_ASSERT_STATUS(&r, 78);
    assert_string_equal(r.out, "");
    assert_true(h_contains(r.err, r.err_len, "SBX_E1000"));
    assert_true(h_contains(r.err, r.err_len, "userinfo"));
    assert_false(h_contains(r.err, r.err_len, CANARY));
    char *calls = h_read(c.calls), *audit = h_read(c.audit);
    assert_string_equal(calls, "");
    assert_null(strstr(audit, CANARY));
    assert_null(strstr(audit, "\"event\":\"created\""));
    free(calls);
    free(audit);
    h_result_free(&r);
  }
  free_logged_config(&c);
}

/* A --secret argument that is not K=ENVVAR is refused without repeating
 * it: what follows '=' (or the whole argument) may be the value itself. */
static void test_run_secret_argument_is_never_echoed(void **state) {
  (void)state;
  char *cfg = empty_config();
  static const char *const args[] = {"DB_PASSWORD=Hunter2Canary",
                                     "DB_PASSWORD=hunter2-canary!",
                                     "Hunter2Canary",
                                     "=Hunter2Canary",
                                     "hunter2-canary!=X",
                                     "DB_PASSWORD="};
  for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
    h_result r;
    H_RUN(&r, NULL, "--config", cfg, "run", "--secret", args[i], "--", "true");
    H_ASSERT_STATUS(&r, 64);
    assert_true(h_contains(r.err, r.err_len, "--secret"));
    if (h_contains(r.err, r.err_len, "unter2") || h_contains(r.err, r.err_len, "canary"))
      fail_msg("--secret %s: the refusal echoes the value: %s", args[i], r.err);
    h_result_free(&r);
  }
  /* The name in the sandbox is safe to repeat, and is. */
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--secret", "DB_PASSWORD=Hunter2Canary", "--", "true");
  assert_true(h_contains(r.err, r.err_len, "--secret DB_PASSWORD"));
  h_result_free(&r);
  free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_echo_streams_stdout_and_says_fake_once),
      cmocka_unit_test(test_run_passes_the_exit_status_through),
      cmocka_unit_test(test_version_and_fake_run_load_no_libcurl),
      cmocka_unit_test(test_failed_teardown_keeps_the_status_and_names_the_sandbox),
      cmocka_unit_test(test_run_passes_stderr_through),
      cmocka_unit_test(test_run_shell_runs_one_script),
      cmocka_unit_test(test_run_env_reaches_the_command),
      cmocka_unit_test(test_run_stdin_reaches_the_command),
      cmocka_unit_test(test_run_require_microvm_fails_before_create),
      cmocka_unit_test(test_run_require_container_is_met_by_fake),
      cmocka_unit_test(test_run_rejects_an_unknown_tier_as_usage),
      cmocka_unit_test(test_run_usage_errors_exit_64),
      cmocka_unit_test(test_run_backend_option_skips_the_notice),
      cmocka_unit_test(test_run_default_backend_from_config_skips_the_notice),
      cmocka_unit_test(test_run_unknown_backend_is_unavailable),
      cmocka_unit_test(test_run_timeout_above_the_maximum_exits_78),
      cmocka_unit_test(test_run_deadline_holds_when_stdout_is_never_read),
      cmocka_unit_test(test_run_deadline_holds_when_stderr_is_never_read),
      cmocka_unit_test(test_run_sigint_ends_the_run_when_stderr_is_never_read),
      cmocka_unit_test(test_run_deadline_exits_124),
      cmocka_unit_test(test_run_sigint_destroys_the_sandbox),
      cmocka_unit_test(test_run_sigterm_destroys_the_sandbox),
      cmocka_unit_test(test_run_second_signal_exits_at_once),
      cmocka_unit_test(test_run_secret_reaches_only_the_command),
      cmocka_unit_test(test_run_secret_stays_out_of_failures),
      cmocka_unit_test(test_run_userinfo_in_the_target_is_refused_before_anything),
      cmocka_unit_test(test_run_secret_argument_is_never_echoed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
