/* SPDX-License-Identifier: MIT */
/* The docker backend against an engine that answers badly: a scripted fake
 * Engine API (hostile_engine.py) on a private socket, one misbehaviour per
 * mode, on the one-shot sbio_run path and on the create/exec path. Each
 * mode must end in a catalogue error (or, for the control and the answers
 * the backend is documented to tolerate, in success) within the call's
 * deadline, with a message of one line that names what was wrong, without
 * the secret the test planted in the create's environment (a credential-
 * looking env key, which the core promises to redact) in the message, the
 * hint, the log or the audit events; and a container the engine said it
 * made is removed (a DELETE reaches the engine) unless the engine itself
 * confirmed its removal. The test's own file descriptors are counted
 * around every mode, and under ASan a leak ends the test. No real engine
 * is needed. */
#include "docker_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECRET "s3cr3t-value-123"
#define CID "c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
#define EXEC_TIMEOUT_S 4.0
#define SANDBOX_TIMEOUT_S 8.0
/* Not a timing assertion: a hang (the bug this catches) is unbounded; a
 * run that ends is far below this whatever the machine's load. */
#define HANG_S 40.0

typedef enum path_kind { P_RUN, P_EXEC } path_kind;

/* What the engine must have been asked to do about the container. */
typedef enum removal {
  DELETE_ANY,  /* the engine's own answer may have confirmed it (the removed wait) */
  DELETE_SENT, /* a DELETE of the container must have been sent */
  DELETE_NONE  /* nothing was made (or nothing is known of it): no DELETE */
} removal;

typedef struct mode_case {
  const char *mode;
  path_kind path;
  sbio_code want;
  const char *names[3]; /* the message must contain each (what was wrong, where) */
  removal removal;
} mode_case;

/* ------------------------------------------------------------- the fake */
typedef struct fake {
  char dir[64];
  char sock[128];
  char log[128];
  pid_t pid;
} fake;

static void fake_start(fake *f, const char *mode) {
  memset(f, 0, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "/tmp/sbio-hostile-XXXXXX");
  assert_non_null(mkdtemp(f->dir));
  snprintf(f->sock, sizeof f->sock, "%s/docker.sock", f->dir);
  snprintf(f->log, sizeof f->log, "%s/requests.log", f->dir);
  f->pid = fork();
  assert_true(f->pid >= 0);
  if (f->pid == 0) {
    execl("/usr/bin/python3", "python3", DX_HOSTILE_ENGINE, f->sock, f->log, mode, (char *)NULL);
    _exit(127);
  }
  /* Ready once it accepts a connection. */
  for (int i = 0; i < 400; i++) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%.100s", f->sock);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (fd >= 0) close(fd);
    if (ok) return;
    int status;
    if (waitpid(f->pid, &status, WNOHANG) == f->pid) fail_msg("hostile_engine.py %s exited before listening", mode);
    struct timespec ts = {0, 25 * 1000000L};
    nanosleep(&ts, NULL);
  }
  fail_msg("hostile_engine.py %s did not listen on %s", mode, f->sock);
}

/* The requests it got, one "METHOD PATH" a line (malloc'd). */
static char *fake_log(const fake *f) {
  FILE *fp = fopen(f->log, "r");
  if (!fp) return strdup("");
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  rewind(fp);
  char *text = calloc(1, (size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, fp) != (size_t)n) text[0] = '\0';
  fclose(fp);
  return text;
}

static void fake_stop(fake *f) {
  kill(f->pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200 && waitpid(f->pid, &status, WNOHANG) == 0; i++) {
    struct timespec ts = {0, 25 * 1000000L};
    nanosleep(&ts, NULL);
    if (i == 160) kill(f->pid, SIGKILL); /* a thread stuck in a write */
  }
  waitpid(f->pid, &status, WNOHANG);
  unlink(f->sock);
  unlink(f->log);
  rmdir(f->dir);
}

/* ---------------------------------------------------------- recording */
typedef struct audit_rec {
  char **lines;
  size_t n;
} audit_rec;

static int on_audit(const char *json_line, void *user) {
  audit_rec *r = user;
  char **p = realloc(r->lines, (r->n + 1) * sizeof *p);
  if (!p) return 0;
  r->lines = p;
  r->lines[r->n++] = strdup(json_line);
  return 0;
}

static void audit_free(audit_rec *r) {
  for (size_t i = 0; i < r->n; i++) free(r->lines[i]);
  free(r->lines);
}

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d) return -1;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

/* ---------------------------------------------------------- one mode */
typedef struct outcome {
  sbio_code rc;
  char message[2048];
  char hint[1024];
  double elapsed;
  int exit_code;
} outcome;

static void capture(outcome *o, sbio_code rc, const sbio_error *err) {
  o->rc = rc;
  snprintf(o->message, sizeof o->message, "%s", rc == SBIO_OK ? "" : sbio_error_message(err));
  snprintf(o->hint, sizeof o->hint, "%s", rc == SBIO_OK ? "" : sbio_error_hint(err));
}

static void run_path(dx_host *h, path_kind path, outcome *o) {
  sbio_create_options *co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_set_env(co, "SECRET_TOKEN", SECRET), SBIO_OK);
  assert_int_equal(sbio_create_options_set_timeout(co, SANDBOX_TIMEOUT_S), SBIO_OK);
  sbio_exec_options *eo = sbio_exec_options_new();
  assert_int_equal(sbio_exec_options_set_timeout(eo, EXEC_TIMEOUT_S), SBIO_OK);
  const char *argv[] = {"echo", "hi", NULL};
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  o->exit_code = -1;
  double t0 = dx_now();
  if (path == P_RUN) {
    capture(o, sbio_run(h->host, "docker://", co, argv, eo, &r, err), err);
  } else {
    sbio_sandbox *sb = NULL;
    sbio_code rc = sbio_sandbox_create(h->host, "docker://", co, &sb, err);
    if (rc == SBIO_OK) rc = sbio_sandbox_exec(sb, argv, eo, &r, err);
    capture(o, rc, err);
    if (sb) sbio_sandbox_close(sb, NULL);
  }
  o->elapsed = dx_now() - t0;
  if (r) o->exit_code = sbio_exec_result_exit_code(r);
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_exec_options_free(eo);
  sbio_create_options_free(co);
}

static int log_has(const char *log, const char *line) {
  size_t n = strlen(line);
  for (const char *p = log; (p = strstr(p, line)) != NULL; p++)
    if ((p == log || p[-1] == '\n') && (p[n] == '\n' || p[n] == '?' || p[n] == '\0')) return 1;
  return 0;
}

static void check_mode(const mode_case *m) {
  fprintf(stderr, "-- %s (%s)\n", m->mode, m->path == P_RUN ? "sbio_run" : "create+exec");
  int fds_before = count_fds();
  fake f;
  fake_start(&f, m->mode);
  dx_env e;
  memset(&e, 0, sizeof e);
  snprintf(e.host, sizeof e.host, "unix://%s", f.sock);
  snprintf(e.image, sizeof e.image, "busybox:latest");
  audit_rec audit = {0};
  dx_host h;
  assert_int_equal(dx_open_audited(&h, &e, "runc", NULL, on_audit, &audit), 0);
  outcome o;
  run_path(&h, m->path, &o);
  int leaked_secret = 0;
  for (size_t i = 0; i < h.n_log; i++)
    if (h.log[i] && strstr(h.log[i], SECRET)) leaked_secret = fprintf(stderr, "log line: %s\n", h.log[i]);
  for (size_t i = 0; i < audit.n; i++)
    if (audit.lines[i] && strstr(audit.lines[i], SECRET))
      leaked_secret = fprintf(stderr, "audit: %s\n", audit.lines[i]);
  dx_close(&h);
  audit_free(&audit);
  char *log = fake_log(&f);
  fake_stop(&f);
  int fds_after = count_fds();

  fprintf(stderr, "   -> [%s] %s\n      hint: %s\n      %.2f s, exit code %d, fds %d -> %d\n", sbio_code_name(o.rc),
          o.message, o.hint, o.elapsed, o.exit_code, fds_before, fds_after);
  fprintf(stderr, "   requests:\n%s", log);

  if (o.rc != m->want)
    fail_msg("%s: wanted %s, got %s: %s", m->mode, sbio_code_name(m->want), sbio_code_name(o.rc), o.message);
  assert_true(o.elapsed < HANG_S);
  if (m->want != SBIO_OK) {
    assert_true(o.message[0]);
    if (strchr(o.message, '\n')) fail_msg("%s: the message is more than one line: %s", m->mode, o.message);
    for (int i = 0; i < 3 && m->names[i]; i++)
      if (!strstr(o.message, m->names[i]))
        fail_msg("%s: the message does not say '%s': %s", m->mode, m->names[i], o.message);
  }
  if (strstr(o.message, SECRET) || strstr(o.hint, SECRET))
    fail_msg("%s: the planted secret is in the error: %s (hint: %s)", m->mode, o.message, o.hint);
  if (leaked_secret) fail_msg("%s: the planted secret is in the log or the audit events", m->mode);
  int deleted = log_has(log, "DELETE /containers/" CID);
  if (m->removal == DELETE_SENT && !deleted) fail_msg("%s: the container was made and no DELETE was sent", m->mode);
  if (m->removal == DELETE_NONE && strstr(log, "DELETE "))
    fail_msg("%s: nothing was made, yet a DELETE was sent:\n%s", m->mode, log);
  free(log);
  assert_int_equal(fds_after, fds_before);
}

/* ------------------------------------------------------------ the modes */
static const mode_case cases[] = {
    {"good", P_RUN, SBIO_OK, {NULL}, DELETE_ANY},
    {"good", P_EXEC, SBIO_OK, {NULL}, DELETE_SENT},
    {"create_not_json", P_RUN, SBIO_E_CREATE, {"create the container", "no container id"}, DELETE_NONE},
    {"create_no_id", P_RUN, SBIO_E_CREATE, {"create the container", "no container id"}, DELETE_NONE},
    {"create_id_not_hex", P_RUN, SBIO_E_CREATE, {"create the container", "no container id"}, DELETE_NONE},
    {"create_id_huge", P_RUN, SBIO_E_CREATE, {"create the container", "no container id"}, DELETE_NONE},
    {"create_no_id", P_EXEC, SBIO_E_CREATE, {"create the container", "no container id"}, DELETE_NONE},
    {"create_echo_secret", P_RUN, SBIO_E_CREATE, {"create the container", "HTTP 500"}, DELETE_NONE},
    {"inspect_echo_secret", P_RUN, SBIO_E_CREATE, {"inspect the new container", "HTTP 500"}, DELETE_SENT},
    {"inspect_echo_secret", P_EXEC, SBIO_E_CREATE, {"inspect the new container", "HTTP 500"}, DELETE_SENT},
    {"inspect_runtime_missing", P_RUN, SBIO_E_CREATE, {"HostConfig.Runtime", "not confirmed"}, DELETE_SENT},
    {"inspect_runtime_missing", P_EXEC, SBIO_E_CREATE, {"HostConfig.Runtime", "not confirmed"}, DELETE_SENT},
    {"inspect_runtime_not_string", P_RUN, SBIO_E_CREATE, {"HostConfig.Runtime", "not confirmed"}, DELETE_SENT},
    {"inspect_huge_body", P_RUN, SBIO_E_CREATE, {"inspect the new container", "too large"}, DELETE_SENT},
    {"inspect_huge_headers", P_RUN, SBIO_E_CREATE, {"inspect the new container"}, DELETE_SENT},
    {"inspect_cut", P_RUN, SBIO_E_CREATE, {"inspect the new container"}, DELETE_SENT},
    {"inspect_cut", P_EXEC, SBIO_E_CREATE, {"inspect the new container"}, DELETE_SENT},
    {"wait_status_string", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT},
    {"wait_status_negative", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT},
    {"wait_status_huge", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT},
    {"wait_status_missing", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT},
    {"attach_200", P_RUN, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_ANY},
    {"attach_bad_stream_type", P_RUN, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_ANY},
    {"attach_huge_frame", P_RUN, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_ANY},
    {"exec_create_no_id", P_EXEC, SBIO_E_EXEC, {"create the exec", "no exec id"}, DELETE_SENT},
    {"exec_start_200", P_EXEC, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_SENT},
    {"exec_bad_stream_type", P_EXEC, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_SENT},
    {"exec_huge_frame", P_EXEC, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_SENT},
    {"exec_inspect_exit_string", P_EXEC, SBIO_E_EXEC, {"exec inspect", "ExitCode"}, DELETE_SENT},
};

static void test_mode(void **state) {
  check_mode(*state);
}

int main(void) {
  if (access("/usr/bin/python3", X_OK) != 0) {
    fprintf(stderr, "SKIP: /usr/bin/python3 is needed for the hostile engine\n");
    return 77;
  }
  /* Only this file's backend, whatever the caller's environment says. */
  unsetenv("DOCKER_HOST");
  enum { N = sizeof cases / sizeof cases[0] };
  struct CMUnitTest tests[N];
  static char names[N][96];
  for (size_t i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "%s/%s", cases[i].mode, cases[i].path == P_RUN ? "run" : "exec");
    tests[i] = (struct CMUnitTest){names[i], test_mode, NULL, NULL, (void *)(uintptr_t)&cases[i]};
  }
  return _cmocka_run_group_tests("test_docker_hostile", tests, N, NULL, NULL);
}
