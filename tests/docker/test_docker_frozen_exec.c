/* SPDX-License-Identifier: MIT */
/* The engine freezes in the middle of an exec (SIGSTOP of the harness's
 * dockerd once the command has started): `sbio run --timeout 8` must
 * still exit 124 within its deadline's margin (SBIO_DEADLINE_MARGIN_S),
 * say on stderr that the teardown was not confirmed, naming the sandbox,
 * and once the engine runs again (SIGCONT) the container must go, by
 * itself (lifetime backstop, AutoRemove) or through `sbio reap --kill`.
 * Before, the kill step's own 10 s budget and the 10 s teardown grace came
 * on top of the deadline: 28.6 s for an 8 s timeout.
 *
 * The engine is stopped only for as long as sbio runs, and resumed before
 * any assertion (a failing test never leaves it stopped). An engine that
 * is not ours (SBIO_TEST_DOCKER_HOST) is never stopped: the test skips. */
#include "docker_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first. */
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_S 8
/* Generous on purpose (a loaded machine): the margin is 3 s, the old
 * behaviour 20 s past the deadline. */
#define ALLOWED_PAST_S 6.0

static dx_env env;
static pid_t engine_pid = -1;

static pid_t read_engine_pid(void) {
  char path[600];
  snprintf(path, sizeof path, "%s/state", env.state_dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[256];
  long pid = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "pid=", 4) == 0) pid = strtol(line + 4, NULL, 10);
  fclose(f);
  return pid > 1 ? (pid_t)pid : -1;
}

static void pause_s(double s) {
  struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&ts, NULL);
}

/* Short ids of the containers carrying the label (all states), comma-separated. */
static int ids_with_label(const char *label, char *out, size_t size) {
  char filter[512], path[1024];
  snprintf(filter, sizeof filter, "{\"label\":[\"%s\"]}", label);
  size_t o = 0;
  for (const char *p = filter; *p && o + 4 < sizeof path; p++) {
    /* JSON punctuation escaped for the query string. */
    if (strchr("{}[]\":,=", *p))
      o += (size_t)snprintf(path + o, sizeof path - o, "%%%02X", (unsigned char)*p);
    else
      path[o++] = *p;
  }
  path[o] = '\0';
  char full[1200];
  snprintf(full, sizeof full, "/containers/json?all=1&filters=%s", path);
  long code = 0;
  char *text = dx_api(&env, "GET", full, NULL, &code);
  cJSON *root = code == 200 && text ? cJSON_Parse(text) : NULL;
  free(text);
  if (!cJSON_IsArray(root)) {
    cJSON_Delete(root);
    return -1;
  }
  int n = 0;
  out[0] = '\0';
  const cJSON *c;
  cJSON_ArrayForEach(c, root) {
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "Id");
    if (cJSON_IsString(id)) {
      size_t used = strlen(out);
      snprintf(out + used, size - used, "%s%.12s", n ? "," : "", id->valuestring);
    }
    n++;
  }
  cJSON_Delete(root);
  return n;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return strdup("");
  char *buf = calloc(1, 65537);
  size_t n = buf ? fread(buf, 1, 65536, f) : 0;
  (void)n;
  fclose(f);
  return buf;
}

static void test_frozen_mid_exec_ends_at_the_deadline_margin(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  char run[64], label[128], label_arg[96], target[256], timeout[16], errpath[600];
  snprintf(run, sizeof run, "frz-%ld", (long)time(NULL) ^ (long)getpid());
  snprintf(label, sizeof label, "io.sandboxio.meta.run=%s", run);
  snprintf(label_arg, sizeof label_arg, "run=%s", run);
  snprintf(target, sizeof target, "docker://%s", env.image);
  snprintf(timeout, sizeof timeout, "%d", TIMEOUT_S);
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", h.dir);
  int out[2];
  assert_int_equal(pipe(out), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    int errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(errfd, 2);
    close(out[0]);
    execl(DX_SBIO, DX_SBIO, "--config", h.config, "run", "--backend", target, "--timeout", timeout, "--label",
          label_arg, "--", "sh", "-c", "echo started; exec sleep 100", (char *)NULL);
    _exit(127);
  }
  close(out[1]);

  /* The command runs once its first line arrives. */
  char got[256] = "";
  size_t n = 0;
  double end = dx_now() + 120;
  while (!strstr(got, "started\n") && dx_now() < end && n + 1 < sizeof got) {
    struct pollfd p = {out[0], POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    ssize_t r = read(out[0], got + n, sizeof got - 1 - n);
    if (r <= 0) break;
    n += (size_t)r;
    got[n] = '\0';
  }
  int started = strstr(got, "started\n") != NULL;
  char ids[256] = "";
  int found = started ? ids_with_label(label, ids, sizeof ids) : -1;

  /* Freeze the engine mid-exec, wait for sbio (bounded), resume. */
  double t_frozen = dx_now(), t_exit = -1;
  int status = -1, stopped = 0;
  if (started && found == 1 && kill(engine_pid, SIGSTOP) == 0) stopped = 1;
  for (end = dx_now() + 90; dx_now() < end;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      t_exit = dx_now();
      break;
    }
    pause_s(0.05);
  }
  if (stopped) kill(engine_pid, SIGCONT);
  if (t_exit < 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  close(out[0]);
  char *err = slurp(errpath);
  fprintf(stderr, "sbio's stderr:\n%s\n", err);

  assert_true(started);
  assert_int_equal(found, 1);
  assert_true(stopped);
  assert_true(t_exit > 0);
  double past = t_exit - t_frozen;
  fprintf(stderr, "frozen engine: sbio run --timeout %d exited %.2f s after the command started\n", TIMEOUT_S, past);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 124);
  /* The command started before t_frozen, so its deadline is earlier than
   * t_frozen + TIMEOUT_S. */
  assert_true(past < TIMEOUT_S + ALLOWED_PAST_S);
  assert_non_null(strstr(err, "[SBX_E1302]"));
  /* The caller is told, with the sandbox's id, that teardown is unconfirmed. */
  assert_non_null(strstr(err, "not confirmed"));
  assert_non_null(strstr(err, ids));
  assert_non_null(strstr(err, "sbio reap --kill"));
  free(err);

  /* The engine runs again: the container goes by itself (its lifetime
   * backstop ended it, AutoRemove removes it) or `sbio reap --kill` removes it. */
  int left = -1;
  for (end = dx_now() + 60; dx_now() < end;) {
    left = ids_with_label(label, ids, sizeof ids);
    if (left == 0) break;
    pause_s(0.2);
  }
  if (left != 0) {
    fprintf(stderr, "still there 60 s after SIGCONT (%s): sbio reap --kill\n", ids);
    char cmd[2000];
    snprintf(cmd, sizeof cmd, "'%s' --config '%s' reap --backend docker --label '%s' --kill >&2", DX_SBIO, h.config,
             label_arg);
    assert_int_equal(system(cmd), 0);
    left = ids_with_label(label, ids, sizeof ids);
  }
  assert_int_equal(left, 0);
  dx_close(&h);
}

int main(void) {
  int rc = dx_env_load(&env);
  if (rc) return rc;
  if (env.external) {
    fprintf(stderr, "SKIP: the engine is not ours (SBIO_TEST_DOCKER_HOST): it is never stopped\n");
    return 77;
  }
  engine_pid = read_engine_pid();
  if (engine_pid <= 1 || kill(engine_pid, 0) != 0) {
    fprintf(stderr, "%s: no pid of the harness's dockerd in %s/state\n", dx_in_ci() ? "FAIL" : "SKIP", env.state_dir);
    return dx_in_ci() ? 1 : 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_frozen_mid_exec_ends_at_the_deadline_margin),
  };
  return cmocka_run_group_tests_name("docker_frozen_exec", tests, NULL, NULL);
}
