/* SPDX-License-Identifier: MIT */
/* `sbio run --backend docker://` against the hostile engine
 * (hostile_engine.py) when the container cannot be removed: the engine's
 * DELETE answers 500 or drops the connection (MODE+delete_500,
 * MODE+delete_drop; its AutoRemove fails too), on each branch of the
 * one-shot run that must remove the container itself: a create answer
 * without a usable id (removal by the container's name), a wait answer
 * that is no exit code, the deadline, and a run that ended well but whose
 * container the engine did not remove. Each must exit with the status the
 * CLI documents (docs/cli.md), and stderr must name the container (the
 * sandbox id, or the name for a create without one) and `sbio reap --kill`;
 * the engine still holds the container (the test checks it did fail to
 * remove it, not that sbio gave up early). No real engine is needed. */
#include "harness.h"
#include "hostile_start.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CID "c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
#define SHORT_ID "c0ffee012345"

typedef struct fake {
  char *sock, *log, *containers;
  pid_t pid;
} fake;

static void fake_start(fake *f, const char *mode) {
  f->sock = h_path("docker.sock");
  f->log = h_path("requests.log");
  size_t n = strlen(f->log) + sizeof ".containers";
  f->containers = malloc(n);
  assert_non_null(f->containers);
  snprintf(f->containers, n, "%s.containers", f->log);
  f->pid = dx_hostile_start(f->sock, f->log, mode);
}

static void fake_stop(fake *f) {
  kill(f->pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200 && waitpid(f->pid, &status, WNOHANG) == 0; i++) {
    struct timespec ts = {0, 25 * 1000000L};
    nanosleep(&ts, NULL);
    if (i == 160) kill(f->pid, SIGKILL);
  }
  waitpid(f->pid, &status, WNOHANG);
  unlink(f->sock);
  unlink(f->log);
  unlink(f->containers);
  free(f->sock);
  free(f->log);
  free(f->containers);
}

typedef struct cli_case {
  const char *mode;
  const char *timeout; /* --timeout */
  int status;          /* the exit status */
  const char *err[4];  /* stderr must contain each */
} cli_case;

static void check(const cli_case *c) {
  fprintf(stderr, "-- %s\n", c->mode);
  fake f;
  fake_start(&f, c->mode);
  char yaml[600];
  snprintf(yaml, sizeof yaml, "backends:\n  docker:\n    settings:\n      host: unix://%s\n      runtime: runc\n",
           f.sock);
  char *cfg = h_write("hostile.yaml", yaml);
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "run", "--backend", "docker://busybox:latest", "--timeout", c->timeout, "--", "echo",
        "hi");
  char *held = h_read(f.containers);
  char *log = h_read(f.log);
  fake_stop(&f);
  fprintf(stderr, "   exit %d\n   stderr:\n%.*s   requests:\n%s   the engine holds:\n%s", r.status, (int)r.err_len,
          r.err, log ? log : "", held ? held : "(it never said)\n");
  H_ASSERT_STATUS(&r, c->status);
  for (int i = 0; i < 4 && c->err[i]; i++)
    if (!h_contains(r.err, r.err_len, c->err[i])) fail_msg("%s: stderr does not say '%s'", c->mode, c->err[i]);
  if (!held || !strstr(held, CID)) fail_msg("%s: the engine's removal failed, yet its container is gone", c->mode);
  free(held);
  free(log);
  free(cfg);
  h_result_free(&r);
}

static const cli_case cases[] = {
    /* A create answer without a usable id: the name is all there is. */
    {"create_no_id+delete_500",
     "8",
     69,
     {"[SBX_E1201]", "no Id", "removing container sbio-", "sbio reap --kill --backend docker"}},
    {"create_id_dotdot+delete_drop",
     "8",
     69,
     {"[SBX_E1201]", "not 64 hex digits", "removing container sbio-", "sbio reap --kill --backend docker"}},
    /* The command ran, but its wait answer is no exit code. */
    {"wait_status_string+delete_500",
     "8",
     69,
     {"[SBX_E1301]", SHORT_ID, "may remain", "sbio reap --kill --backend docker"}},
    /* The deadline: the forced removal is not confirmed. */
    {"command_hangs+delete_500",
     "3",
     124,
     {"[SBX_E1302]", SHORT_ID, "not confirmed", "sbio reap --kill --backend docker"}},
    {"command_hangs+delete_drop",
     "3",
     124,
     {"[SBX_E1302]", SHORT_ID, "not confirmed", "sbio reap --kill --backend docker"}},
    /* The command ended well; neither AutoRemove nor the DELETE removed
     * the container: the command's status stands, a warning names it. */
    {"good+delete_500", "8", 0, {"docker:" SHORT_ID, "may still exist", "sbio reap --kill"}},
    {"good+delete_drop", "8", 0, {"docker:" SHORT_ID, "may still exist", "sbio reap --kill"}},
};

static void test_case(void **state) {
  check(*state);
}

int main(void) {
  if (access("/usr/bin/python3", X_OK) != 0) {
    fprintf(stderr, "SKIP: /usr/bin/python3 is needed for the hostile engine\n");
    return 77;
  }
  enum { N = sizeof cases / sizeof cases[0] };
  struct CMUnitTest tests[N];
  for (size_t i = 0; i < N; i++)
    tests[i] = (struct CMUnitTest){cases[i].mode, test_case, NULL, NULL, (void *)(uintptr_t)&cases[i]};
  return _cmocka_run_group_tests("test_docker_hostile_cli", tests, N, NULL, NULL);
}
