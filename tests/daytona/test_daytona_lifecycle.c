/* SPDX-License-Identifier: MIT */
/* The daytona backend's lifecycle through the public API, against the
 * emulator: what create sends (and that it waits until started), exec in
 * argv and shell form, env, cwd, deadlines, kill (also during an exec),
 * cancelling one exec, connect, and the toolbox URL fallbacks for older deployments. */
#include "dt_support.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *str(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *exec_body(cJSON *reqs, size_t n) {
  return cJSON_GetObjectItem(dtf_find(reqs, "toolbox", "POST", "/process/execute", n), "json");
}

static void test_create_sends_the_spec_body_and_waits_until_started(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "createbody", NULL, NULL, NULL);
  dtf_org(&f, "{\"settings\":{\"startDelay\":0.4}}");
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_set_env(o, "GREETING", "hi");
  sbio_create_options_set_secret(o, "TOKEN", "s3cr3t-value");
  sbio_create_options_set_label(o, "tenant_id", "t-1");
  sbio_create_options_set_timeout(o, 150);
  double t0 = sbt_now();
  sbio_sandbox *sb = dtf_create(&f, "daytona://daytona-small", o);
  assert_true(sbt_now() - t0 >= 0.4); /* it waited for "started" */
  sbio_create_options_free(o);

  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_UNKNOWN);
  assert_string_equal(sbio_sandbox_mechanism(sb), "daytona");
  char desc[300];
  sbio_sandbox_describe(sb, desc, sizeof desc);
  assert_non_null(strstr(desc, "UNKNOWN/daytona running"));

  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "POST", "/sandbox"), 1);
  const cJSON *post = dtf_find(reqs, "api", "POST", "/sandbox", 0);
  assert_int_equal(cJSON_GetObjectItem(post, "status")->valueint, 200);
  const cJSON *body = cJSON_GetObjectItem(post, "json");
  assert_string_equal(str(body, "snapshot"), "daytona-small");
  assert_true(strncmp(str(body, "name"), "sbio-", 5) == 0);
  const cJSON *env = cJSON_GetObjectItem(body, "env"), *labels = cJSON_GetObjectItem(body, "labels");
  assert_string_equal(str(env, "GREETING"), "hi");
  assert_string_equal(str(env, "TOKEN"), "s3cr3t-value");
  assert_string_equal(str(labels, "tenant_id"), "t-1");
  assert_string_equal(str(labels, "sandboxio.managed"), "true");
  assert_int_equal(strlen(str(labels, "sandboxio.session")), 32);
  assert_string_equal(str(labels, "sandboxio.timeout"), "150");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(body, "networkBlockAll"))); /* egress deny by default */
  assert_null(cJSON_GetObjectItem(body, "networkAllowList"));
  assert_int_equal(cJSON_GetObjectItem(body, "autoStopInterval")->valueint, 3); /* ceil(150 s / 60) */
  assert_int_equal(cJSON_GetObjectItem(body, "autoDeleteInterval")->valueint, 0);
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(body, "public")));
  /* Polled until started, with the Bearer key on every request. */
  assert_true(dtf_count(reqs, "api", "GET", "/sandbox/") >= 1);
  const cJSON *r;
  cJSON_ArrayForEach(r, reqs) assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "bearer")));
  cJSON_Delete(reqs);

  assert_int_equal(sbio_sandbox_close(sb, NULL), SBIO_OK);
  reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 1);
  cJSON_Delete(reqs);
  /* The secret never reached the audit trail or the log. */
  for (size_t i = 0; i < f.audit.n; i++) assert_null(strstr(f.audit.items[i], "s3cr3t-value"));
  for (size_t i = 0; i < f.log.n; i++) assert_null(strstr(f.log.items[i], "s3cr3t-value"));
  dtf_close(&f);
}

static void test_exec_argv_is_quoted_and_never_interpreted(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "argv", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  const char *argv[] = {"printf", "%s|", "a b", "$HOME", "it's", "*", ";", "A=b", "", NULL};
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec(sb, argv, NULL, &r, NULL), SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "a b|$HOME|it's|*|;|A=b||");
  sbio_exec_result_free(r);

  cJSON *reqs = dtf_requests(&f);
  assert_string_equal(str(exec_body(reqs, 0), "command"), "printf '%s|' 'a b' '$HOME' 'it'\\''s' '*' ';' 'A=b' ''");
  cJSON_Delete(reqs);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

static void test_exec_shell_runs_the_script_and_merges_stderr(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "shell", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  const char *script = "echo out; echo err >&2; for i in 1 2; do echo $i; done | tr '\\n' ,; exit 7";
  sbio_exec_result *r = dtf_sh(sb, script);
  assert_int_equal(sbio_exec_result_exit_code(r), 7);
  /* Daytona returns one combined text: it all arrives as stdout. */
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "out\nerr\n1,2,");
  assert_string_equal(sbio_exec_result_stderr(r, NULL), "");
  sbio_exec_result_free(r);
  cJSON *reqs = dtf_requests(&f);
  assert_string_equal(str(exec_body(reqs, 0), "command"), script);
  cJSON_Delete(reqs);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

static void test_exec_env_cwd_and_create_env(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "envcwd", NULL, NULL, NULL);
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_set_env(o, "FROM_CREATE", "c");
  sbio_sandbox *sb = dtf_create(&f, NULL, o);
  sbio_create_options_free(o);
  assert_int_equal(sbio_file_mkdir(sb, "sub/dir", 1, NULL), SBIO_OK);
  sbio_exec_options *eo = sbio_exec_options_new();
  sbio_exec_options_set_env(eo, "X", "y z");
  sbio_exec_options_set_cwd(eo, "sub/dir");
  sbio_exec_result *r = NULL;
  assert_int_equal(
      sbio_sandbox_exec_shell(sb, "printf '%s/%s/%s' \"$X\" \"$FROM_CREATE\" \"$(basename \"$PWD\")\"", eo, &r, NULL),
      SBIO_OK);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "y z/c/dir");
  sbio_exec_result_free(r);
  cJSON *reqs = dtf_requests(&f);
  const cJSON *body = exec_body(reqs, 0);
  assert_string_equal(str(body, "cwd"), "/home/daytona/sub/dir"); /* relative to the work directory */
  assert_string_equal(str(cJSON_GetObjectItem(body, "envs"), "X"), "y z");
  cJSON_Delete(reqs);

  /* Names Daytona cannot take are refused before anything is sent. */
  sbio_exec_options_free(eo);
  eo = sbio_exec_options_new();
  sbio_exec_options_set_env(eo, "BAD NAME", "1");
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "true", eo, NULL, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "BAD NAME"));
  /* No stdin on Daytona's process/execute: the capability is not declared. */
  sbio_exec_options_free(eo);
  eo = sbio_exec_options_new();
  sbio_exec_options_set_stdin(eo, "x", 1);
  assert_int_equal(sbio_sandbox_exec_shell(sb, "cat", eo, NULL, err), SBIO_E_CAPABILITY);
  /* A working directory that does not exist: Daytona cannot start it. */
  sbio_exec_options_free(eo);
  eo = sbio_exec_options_new();
  sbio_exec_options_set_cwd(eo, "/no/such/dir");
  assert_int_equal(sbio_sandbox_exec_shell(sb, "true", eo, NULL, err), SBIO_E_EXEC);
  assert_non_null(strstr(sbio_error_message(err), "could not start"));
  sbio_error_free(err);
  sbio_exec_options_free(eo);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

/* The emulator runs commands as real processes of this machine: the pid
 * of the one whose command line is exactly `argv` (NUL-separated), or 0. */
static pid_t host_process(const char *argv, size_t len) {
  DIR *d = opendir("/proc");
  pid_t found = 0;
  struct dirent *e;
  while (d && !found && (e = readdir(d))) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    char path[300], buf[256];
    snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
    FILE *fp = fopen(path, "r");
    if (!fp) continue;
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    if (n == len && memcmp(buf, argv, len) == 0) found = (pid_t)atoi(e->d_name);
  }
  if (d) closedir(d);
  return found;
}

/* Gone, or a zombie waiting to be reaped (it no longer runs). */
static int process_ended(pid_t pid) {
  char path[64], stat[512] = "";
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *fp = fopen(path, "r");
  if (!fp) return 1;
  size_t n = fread(stat, 1, sizeof stat - 1, fp);
  fclose(fp);
  stat[n] = '\0';
  const char *close = strrchr(stat, ')');
  return close && close[1] == ' ' && close[2] == 'Z';
}

/* Whether a recorded process/execute body is the token killer's. */
static int is_killer(const cJSON *body) {
  const char *cmd = str(body, "command");
  return cmd && strstr(cmd, "sbio-kill") != NULL;
}

/* The deadline travels as Daytona's timeout (the daemon's backstop), and
 * at the deadline the exec's kill step (the token killer) ends the
 * command: SBX_E1302, exit code 137, the process gone, the sandbox kept. */
static void test_exec_deadline_kills_the_command_and_keeps_the_sandbox(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "exectimeout", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  sbio_exec_options *eo = sbio_exec_options_new();
  sbio_exec_options_set_timeout(eo, 1);
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo started; sleep 291", eo, &r, err), SBIO_E_EXEC_TIMEOUT);
  assert_non_null(r);
  assert_int_equal(sbio_exec_result_exit_code(r), 137);
  sbio_exec_result_free(r);
  static const char argv[] = "sleep\0"
                             "291";
  pid_t pid = host_process(argv, sizeof argv);
  for (int tries = 0; pid && !process_ended(pid); tries++) {
    assert_true(tries < 1000); /* 20 s: a safety net, not a timing */
    usleep(20 * 1000);
  }
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetObjectItem(exec_body(reqs, 0), "timeout")->valueint, 1);
  assert_true(is_killer(exec_body(reqs, 1)));
  cJSON_Delete(reqs);
  /* The sandbox is still usable. */
  r = dtf_sh(sb, "echo still here");
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "still here\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_exec_options_free(eo);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

/* The exec's request is bounded by the caller's deadline, not past it: an
 * answer Daytona sends only after the deadline (here the emulator holds the
 * request 3 s, then runs the command, which succeeds) is never waited for.
 * The exec fails with SBX_E1302 and runs its kill step. */
static void test_exec_never_waits_for_an_answer_past_the_deadline(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "execlate", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  dtf_org(&f, "{\"faults\":[{\"match\":\"toolbox POST /process/execute\",\"delay\":3}]}");
  sbio_exec_options *eo = sbio_exec_options_new();
  sbio_exec_options_set_timeout(eo, 1);
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo late", eo, &r, err), SBIO_E_EXEC_TIMEOUT);
  assert_int_equal(sbio_exec_result_exit_code(r), 137);
  assert_string_equal(sbio_exec_result_stdout(r, NULL), ""); /* the late answer was not read */
  assert_non_null(strstr(sbio_error_message(err), "was killed"));
  sbio_exec_result_free(r);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "toolbox", "POST", "/process/execute"), 2);
  assert_false(is_killer(exec_body(reqs, 0)));
  assert_true(is_killer(exec_body(reqs, 1))); /* the kill step came after the deadline */
  cJSON_Delete(reqs);
  r = dtf_sh(sb, "echo still here");
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "still here\n");
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_exec_options_free(eo);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

/* A toolbox that answers nothing (every process/execute held 40 s): the
 * exec returns once its deadline and the kill step's own small budget are
 * spent, long before the toolbox would answer, and says the kill is not
 * confirmed. */
static void test_frozen_toolbox_bounds_the_exec_and_its_kill_step(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "execfrozen", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  dtf_org(&f, "{\"faults\":[{\"match\":\"toolbox POST /process/execute\",\"delay\":40,\"times\":-1}]}");
  sbio_exec_options *eo = sbio_exec_options_new();
  sbio_exec_options_set_timeout(eo, 1);
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  double t0 = sbt_now();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "echo frozen", eo, &r, err), SBIO_E_EXEC_TIMEOUT);
  assert_true(sbt_now() - t0 < 30); /* not the 40 s the toolbox holds each request */
  assert_int_equal(sbio_exec_result_exit_code(r), 137);
  assert_non_null(strstr(sbio_error_message(err), "did not finish within"));
  assert_non_null(strstr(sbio_error_hint(err), "kill the sandbox"));
  sbio_exec_result_free(r);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "toolbox", "POST", "/process/execute"), 2);
  assert_true(is_killer(exec_body(reqs, 1)));
  cJSON_Delete(reqs);
  dtf_org(&f, "{\"faults\":[]}");
  sbio_error_free(err);
  sbio_exec_options_free(eo);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

static void test_kill_is_idempotent_and_ends_use(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "killtwice", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  assert_false(sbio_sandbox_alive(sb));
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_exec_shell(sb, "true", NULL, NULL, err), SBIO_E_GONE);
  sbio_error_free(err);
  assert_int_equal(sbio_sandbox_close(sb, NULL), SBIO_OK);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 1);
  cJSON_Delete(reqs);
  dtf_close(&f);
}

typedef struct {
  sbio_sandbox *sb;
  sbio_code rc;
  int exit_code;
  double took;
} exec_job;

static void *run_sleep(void *arg) {
  exec_job *j = arg;
  sbio_exec_result *r = NULL;
  double t0 = sbt_now();
  j->rc = sbio_sandbox_exec_shell(j->sb, "sleep 30", NULL, &r, NULL);
  j->took = sbt_now() - t0;
  j->exit_code = r ? sbio_exec_result_exit_code(r) : -1;
  sbio_exec_result_free(r);
  return NULL;
}

static void test_kill_from_another_thread_ends_a_running_exec(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "killexec", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  exec_job j = {.sb = sb};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, run_sleep, &j), 0);
  /* Kill only once the command is running in the emulator. */
  for (int tries = 0;; tries++) {
    cJSON *reqs = dtf_requests(&f);
    size_t n = dtf_count(reqs, "toolbox", "POST", "/process/execute");
    cJSON_Delete(reqs);
    if (n) break;
    assert_true(tries < 500);
    usleep(20 * 1000);
  }
  usleep(200 * 1000);
  assert_int_equal(sbio_sandbox_kill(sb, NULL), SBIO_OK);
  pthread_join(t, NULL);
  assert_int_equal(j.rc, SBIO_OK);
  assert_int_equal(j.exit_code, 137);
  assert_true(j.took < 25); /* the kill ended it, not the 30 s sleep */
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

typedef struct {
  sbio_sandbox *sb;
  sbio_exec_options *opts;
  sbio_code rc;
  int exit_code;
} cancel_job;

static void *run_cancellable(void *arg) {
  cancel_job *j = arg;
  sbio_exec_result *r = NULL;
  j->rc = sbio_sandbox_exec_shell(j->sb, "sleep 317; echo never", j->opts, &r, NULL);
  j->exit_code = r ? sbio_exec_result_exit_code(r) : -1;
  sbio_exec_result_free(r);
  return NULL;
}

/* ABI 1.3: cancelling one exec kills its processes (a second command finds
 * them by the token in their environment: the toolbox has no kill of its
 * own) and keeps the sandbox. Cancelled only once the command runs. */
static void test_cancel_one_exec_kills_its_processes_keeps_the_sandbox(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "cancelone", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  assert_true(sbio_sandbox_exec_cancellable(sb));
  sbio_exec_result_free(dtf_sh(sb, "echo kept > keep.txt"));
  sbio_cancel *token = sbio_cancel_new();
  sbio_exec_options *eo = sbio_exec_options_new();
  sbio_exec_options_set_timeout(eo, 120);
  sbio_exec_options_set_cancel(eo, token);
  cancel_job j = {.sb = sb, .opts = eo};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, run_cancellable, &j), 0);
  static const char argv[] = "sleep\0"
                             "317";
  pid_t pid = 0;
  for (int tries = 0; !(pid = host_process(argv, sizeof argv)); tries++) {
    assert_true(tries < 1000); /* 20 s: a safety net, not a timing */
    usleep(20 * 1000);
  }
  double t0 = sbt_now();
  sbio_cancel_request(token);
  pthread_join(t, NULL);
  assert_int_equal(j.rc, SBIO_E_CANCELLED);
  assert_int_equal(j.exit_code, 137);
  assert_true(sbt_now() - t0 < 60); /* not the 120 s deadline */
  for (int tries = 0; !process_ended(pid); tries++) {
    assert_true(tries < 500);
    usleep(20 * 1000);
  }
  /* The sandbox, its files and the next command are all there. */
  sbio_exec_result *r = dtf_sh(sb, "cat keep.txt");
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "kept\n");
  sbio_exec_result_free(r);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "DELETE", "/sandbox/"), 0);
  /* keep.txt, the command, its killer, cat: four process/execute */
  assert_int_equal(dtf_count(reqs, "toolbox", "POST", "/process/execute"), 4);
  const cJSON *envs = cJSON_GetObjectItem(exec_body(reqs, 1), "envs");
  assert_true(strlen(str(envs, "SBIO_EXEC_ID")) == 32);
  cJSON_Delete(reqs);
  sbio_exec_options_free(eo);
  sbio_cancel_free(token);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

/* Starts `sleep 317` cancellable, cancels it once it runs and waits for
 * the exec to end; the pid it had on this machine, or 0. */
static pid_t cancel_running_sleep(sbio_sandbox *sb, cancel_job *j) {
  sbio_cancel *token = sbio_cancel_new();
  sbio_exec_options *eo = sbio_exec_options_new();
  sbio_exec_options_set_timeout(eo, 120);
  sbio_exec_options_set_cancel(eo, token);
  *j = (cancel_job){.sb = sb, .opts = eo};
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, run_cancellable, j), 0);
  static const char argv[] = "sleep\0"
                             "317";
  pid_t pid = 0;
  for (int tries = 0; !(pid = host_process(argv, sizeof argv)); tries++) {
    assert_true(tries < 1000); /* 20 s: a safety net, not a timing */
    usleep(20 * 1000);
  }
  sbio_cancel_request(token);
  pthread_join(t, NULL);
  sbio_exec_options_free(eo);
  sbio_cancel_free(token);
  return pid;
}

/* A kill step that takes seconds (a loaded machine: here the emulator
 * holds the killer's request 4 s) still confirms the kill: SBX_E1902, not
 * "the command that kills it failed" (the kill step had 3 s). */
static void test_cancel_survives_a_slow_kill_step(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "cancelslow", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  /* The command is the first process/execute, its killer the second. */
  dtf_org(&f, "{\"faults\":[{\"match\":\"toolbox POST /process/execute\",\"skip\":1,\"delay\":4}]}");
  cancel_job j;
  pid_t pid = cancel_running_sleep(sb, &j);
  assert_int_equal(j.rc, SBIO_E_CANCELLED);
  assert_int_equal(j.exit_code, 137);
  for (int tries = 0; !process_ended(pid); tries++) {
    assert_true(tries < 500);
    usleep(20 * 1000);
  }
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

/* The killer's cost does not grow with the number of processes: with a few
 * hundred more on the machine (the emulator's sandboxes share this one's
 * process table; a killer forking `cat` for each took longer than its
 * budget) the cancelled command is still confirmed killed. */
static void test_cancel_in_a_crowded_process_table(void **state) {
  (void)state;
  enum { CROWD = 300 };
  pid_t crowd[CROWD];
  for (int i = 0; i < CROWD; i++) {
    crowd[i] = fork();
    assert_true(crowd[i] >= 0);
    if (crowd[i] == 0) {
      for (;;) pause(); /* killed below */
    }
  }
  dtf f;
  dtf_open(&f, "cancelcrowd", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  cancel_job j;
  pid_t pid = cancel_running_sleep(sb, &j);
  for (int i = 0; i < CROWD; i++) kill(crowd[i], SIGKILL);
  for (int i = 0; i < CROWD; i++) waitpid(crowd[i], NULL, 0);
  assert_int_equal(j.rc, SBIO_E_CANCELLED);
  assert_int_equal(j.exit_code, 137);
  for (int tries = 0; !process_ended(pid); tries++) {
    assert_true(tries < 500);
    usleep(20 * 1000);
  }
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

static void test_connect_to_managed_sandboxes_only(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "connect", NULL, NULL, NULL);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  sbio_exec_result *r = dtf_sh(sb, "echo kept > kept.txt");
  sbio_exec_result_free(r);
  sbio_sandbox *again = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_connect(f.host, "daytona", sbio_sandbox_id(sb), &again, err), SBIO_OK);
  r = dtf_sh(again, "cat kept.txt");
  assert_string_equal(sbio_exec_result_stdout(r, NULL), "kept\n");
  sbio_exec_result_free(r);
  assert_int_equal(sbio_sandbox_tier(again), SBIO_TIER_UNKNOWN);

  sbio_sandbox *none = NULL;
  assert_int_equal(sbio_sandbox_connect(f.host, "daytona", "no-such-sandbox", &none, err), SBIO_E_CONNECT);
  assert_non_null(strstr(sbio_error_message(err), "no-such-sandbox"));

  /* One made by someone else (no managed label) is not taken over. */
  char *other = dtf_raw_sandbox(&f, "{\"owner\":\"someone\"}");
  assert_int_equal(sbio_sandbox_connect(f.host, "daytona", other, &none, err), SBIO_E_CONNECT);
  assert_non_null(strstr(sbio_error_message(err), "not created by sandboxio"));
  char path[200];
  snprintf(path, sizeof path, "/sandbox/%s", other);
  assert_int_equal(dtf_api(&f, "DELETE", path, NULL, NULL), 200);
  free(other);

  sbio_error_free(err);
  sbio_sandbox_close(again, NULL); /* kills it */
  sbio_sandbox_close(sb, NULL);    /* already gone: still fine */
  dtf_close(&f);
}

static void test_network_policy_in_daytonas_own_fields(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "network", NULL, NULL, NULL);
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_allow_host(o, "10.1.2.3");
  sbio_create_options_allow_host(o, "192.168.0.0/16");
  sbio_create_options_allow_host(o, "pypi.org");
  sbio_create_options_allow_host(o, "*.example.com");
  sbio_sandbox *sb = dtf_create(&f, NULL, o);
  sbio_create_options_free(o);
  sbio_sandbox_close(sb, NULL);
  o = sbio_create_options_new();
  sbio_create_options_set_egress(o, SBIO_EGRESS_ALLOW);
  sb = dtf_create(&f, NULL, o);
  sbio_create_options_free(o);
  sbio_sandbox_close(sb, NULL);

  cJSON *reqs = dtf_requests(&f);
  const cJSON *deny = cJSON_GetObjectItem(dtf_find(reqs, "api", "POST", "/sandbox", 0), "json");
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(deny, "networkBlockAll")));
  assert_string_equal(str(deny, "networkAllowList"), "10.1.2.3/32,192.168.0.0/16");
  assert_string_equal(str(deny, "domainAllowList"), "pypi.org,*.example.com");
  const cJSON *allow = cJSON_GetObjectItem(dtf_find(reqs, "api", "POST", "/sandbox", 1), "json");
  assert_false(cJSON_IsTrue(cJSON_GetObjectItem(allow, "networkBlockAll")));
  assert_null(cJSON_GetObjectItem(allow, "networkAllowList"));
  assert_null(cJSON_GetObjectItem(allow, "domainAllowList"));
  cJSON_Delete(reqs);

  /* What Daytona's fields cannot express is refused before any request. */
  const char *bad[] = {"2001:db8::/32", "example.com:443", "not a host", "10.0.0.0/33", NULL};
  sbio_error *err = sbio_error_new();
  for (size_t i = 0; bad[i]; i++) {
    o = sbio_create_options_new();
    sbio_create_options_allow_host(o, bad[i]);
    sbio_sandbox *none = NULL;
    assert_int_equal(sbio_sandbox_create(f.host, "daytona://", o, &none, err), SBIO_E_CONFIG);
    assert_non_null(strstr(sbio_error_message(err), bad[i]));
    sbio_create_options_free(o);
  }
  o = sbio_create_options_new();
  const char *six[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", "10.0.0.5", "10.0.0.6"};
  for (size_t i = 0; i < 6; i++) sbio_create_options_allow_host(o, six[i]);
  sbio_sandbox *none = NULL;
  assert_int_equal(sbio_sandbox_create(f.host, "daytona://", o, &none, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "at most 5"));
  sbio_create_options_free(o);
  sbio_error_free(err);
  reqs = dtf_requests(&f);
  assert_int_equal(dtf_count(reqs, "api", "POST", "/sandbox"), 2);
  cJSON_Delete(reqs);
  dtf_close(&f);
}

static void test_requests_daytona_cannot_honour_are_refused_before_anything_exists(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "refused", NULL, NULL, NULL);
  sbio_error *err = sbio_error_new();
  sbio_sandbox *none = NULL;
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_set_cpu(o, 2);
  assert_int_equal(sbio_sandbox_create(f.host, "daytona://daytona-small", o, &none, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "daytona-small"));
  assert_non_null(strstr(sbio_error_message(err), "cpu=2"));
  sbio_create_options_free(o);
  o = sbio_create_options_new();
  sbio_create_options_set_label(o, "sandboxio.managed", "false");
  assert_int_equal(sbio_sandbox_create(f.host, "daytona://", o, &none, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "reserved"));
  sbio_create_options_free(o);
  o = sbio_create_options_new();
  sbio_create_options_set_gpu(o, "H100");
  assert_int_equal(sbio_sandbox_create(f.host, "daytona://", o, &none, err), SBIO_E_CAPABILITY);
  sbio_create_options_free(o);
  sbio_error_free(err);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetArraySize(reqs), 0);
  cJSON_Delete(reqs);
  dtf_close(&f);
}

/* Older deployments: no toolboxProxyUrl in the record, then no
 * toolbox-proxy-url endpoint, then no proxyToolboxUrl in /config. */
static void test_toolbox_url_fallbacks(void **state) {
  (void)state;
  static const char *const steps[] = {
      "{\"settings\":{\"omitToolboxProxyUrl\":true}}",
      "{\"settings\":{\"omitToolboxProxyUrl\":true,\"toolboxProxyUrlEndpoint\":false}}",
      ("{\"settings\":{\"omitToolboxProxyUrl\":true,\"toolboxProxyUrlEndpoint\":false,"
       "\"configProxyToolboxUrl\":false}}"),
  };
  for (size_t i = 0; i < 3; i++) {
    dtf f;
    dtf_open(&f, "fallback", NULL, NULL, NULL);
    dtf_org(&f, steps[i]);
    sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
    sbio_exec_result *r = dtf_sh(sb, "echo via fallback");
    assert_string_equal(sbio_exec_result_stdout(r, NULL), "via fallback\n");
    sbio_exec_result_free(r);
    cJSON *reqs = dtf_requests(&f);
    size_t proxy_url = 0;
    const cJSON *q;
    cJSON_ArrayForEach(q, reqs) {
      const char *p = str(q, "path");
      proxy_url += p && strstr(p, "/toolbox-proxy-url") != NULL;
    }
    assert_int_equal(proxy_url, 1);
    assert_int_equal(dtf_count(reqs, "api", "GET", "/config"), i >= 1 ? 1 : 0);
    /* The last step uses the API's deprecated toolbox route, which the
     * emulator records under the toolbox surface all the same. */
    assert_int_equal(dtf_count(reqs, "toolbox", "POST", "/process/execute"), 1);
    cJSON_Delete(reqs);
    sbio_sandbox_close(sb, NULL);
    dtf_close(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_sends_the_spec_body_and_waits_until_started),
      cmocka_unit_test(test_exec_argv_is_quoted_and_never_interpreted),
      cmocka_unit_test(test_exec_shell_runs_the_script_and_merges_stderr),
      cmocka_unit_test(test_exec_env_cwd_and_create_env),
      cmocka_unit_test(test_exec_deadline_kills_the_command_and_keeps_the_sandbox),
      cmocka_unit_test(test_exec_never_waits_for_an_answer_past_the_deadline),
      cmocka_unit_test(test_frozen_toolbox_bounds_the_exec_and_its_kill_step),
      cmocka_unit_test(test_kill_is_idempotent_and_ends_use),
      cmocka_unit_test(test_kill_from_another_thread_ends_a_running_exec),
      cmocka_unit_test(test_cancel_one_exec_kills_its_processes_keeps_the_sandbox),
      cmocka_unit_test(test_cancel_survives_a_slow_kill_step),
      cmocka_unit_test(test_cancel_in_a_crowded_process_table),
      cmocka_unit_test(test_connect_to_managed_sandboxes_only),
      cmocka_unit_test(test_network_policy_in_daytonas_own_fields),
      cmocka_unit_test(test_requests_daytona_cannot_honour_are_refused_before_anything_exists),
      cmocka_unit_test(test_toolbox_url_fallbacks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
