/* SPDX-License-Identifier: MIT */
/* Isolation on a real engine: the hardening read back from inspect and
 * seen from inside, network really absent, gVisor really running and
 * reported, requirements refused before anything exists, the runsc crash
 * that must not hang, the lifetime backstop. */
#include "docker_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static dx_env env;

static void test_hardening_read_back(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_set_label(o, "tenant_id", "t-42");
  sbio_create_options_set_timeout(o, 120);
  sbio_sandbox *sb = dx_create(&h, o);
  assert_non_null(sb);
  cJSON *c = dx_inspect(&env, sbio_sandbox_id(sb));
  assert_non_null(c);
  dx_assert_hardened(c, "runc", 120, NULL);
  assert_string_equal(dx_str(c, "Config", "WorkingDir"), "/work");
  assert_string_equal(dx_label(c, "io.sandboxio.meta.tenant_id"), "t-42");
  /* PID 1's payload is the lifetime backstop: timeout + 1 s. */
  const cJSON *cmd = dx_path(c, "Config", "Cmd");
  assert_string_equal(cJSON_GetArrayItem(cmd, 0)->valuestring, "121");
  assert_string_equal(cJSON_GetArrayItem(dx_path(c, "Config", "Entrypoint"), 0)->valuestring, "sleep");
  cJSON_Delete(c);
  /* Seen from inside: no capabilities, no new privileges, the caps. */
  char *out = NULL;
  int code;
  assert_int_equal(dx_sh(sb,
                         "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status | tr -s '\\t' ' '; "
                         "cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max 2>/dev/null",
                         30, &code, &out, NULL),
                   SBIO_OK);
  assert_non_null(strstr(out, "CapEff: 0000000000000000"));
  assert_non_null(strstr(out, "CapBnd: 0000000000000000"));
  assert_non_null(strstr(out, "NoNewPrivs: 1"));
  assert_non_null(strstr(out, "512"));
  free(out);
  sbio_sandbox_close(sb, NULL);
  /* A caller may raise the caps: swap follows memory. */
  sbio_create_options_set_memory_mb(o, 1024);
  sbio_create_options_set_cpu(o, 2);
  sb = dx_create(&h, o);
  assert_non_null(sb);
  c = dx_inspect(&env, sbio_sandbox_id(sb));
  assert_true(dx_num(c, "HostConfig", "Memory") == 1024.0 * 1048576);
  assert_true(dx_num(c, "HostConfig", "MemorySwap") == 1024.0 * 1048576);
  assert_true(dx_num(c, "HostConfig", "NanoCpus") == 2e9);
  cJSON_Delete(c);
  sbio_sandbox_close(sb, NULL);
  sbio_create_options_free(o);
  dx_close(&h);
}

/* No interface but loopback, no route: egress is impossible, not filtered.
 * (Nothing is sent anywhere to prove it.) */
static void check_no_network(sbio_sandbox *sb) {
  char *out = NULL;
  int code;
  assert_int_equal(dx_sh(sb,
                         "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; echo routes:; "
                         "tail -n +2 /proc/net/route",
                         30, &code, &out, NULL),
                   SBIO_OK);
  fprintf(stderr, "interfaces and routes inside:\n%s", out);
  assert_non_null(strstr(out, "lo\n"));
  char *routes = strstr(out, "routes:\n");
  assert_non_null(routes);
  assert_string_equal(routes + strlen("routes:\n"), "");
  *routes = '\0';
  /* Every interface listed is lo. */
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) assert_string_equal(line, "lo");
  free(out);
}

static void test_network_denied(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  sbio_sandbox *sb = dx_create(&h, NULL);
  assert_non_null(sb);
  check_no_network(sb);
  sbio_sandbox_close(sb, NULL);
  dx_close(&h);
}

static void test_allow_is_refused_before_anything_exists(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  int before = dx_count_containers(&env, NULL);
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_allow_host(o, "pypi.org");
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_create(h.host, "docker://", o, &sb, err), SBIO_E_CAPABILITY);
  sbio_create_options_free(o);
  o = sbio_create_options_new();
  sbio_create_options_set_egress(o, SBIO_EGRESS_ALLOW);
  assert_int_equal(sbio_sandbox_create(h.host, "docker://", o, &sb, err), SBIO_E_CAPABILITY);
  assert_non_null(strstr(sbio_error_message(err), "egress"));
  sbio_create_options_set_egress(o, SBIO_EGRESS_DENY);
  sbio_create_options_set_disk_mb(o, 100);
  assert_int_equal(sbio_sandbox_create(h.host, "docker://", o, &sb, err), SBIO_E_CONFIG);
  assert_int_equal(dx_count_containers(&env, NULL), before);
  sbio_error_free(err);
  sbio_create_options_free(o);
  dx_close(&h);
}

static void test_require_gvisor_on_runc_refused(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  int before = dx_count_containers(&env, NULL);
  assert_true(before >= 0);
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_require_isolation(o, SBIO_TIER_GVISOR);
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_create(h.host, "docker://", o, &sb, err), SBIO_E_CONFIG);
  fprintf(stderr, "refused: %s\n", sbio_error_message(err));
  assert_null(sb);
  assert_int_equal(dx_count_containers(&env, NULL), before);
  /* CONTAINER is met. */
  sbio_create_options_require_isolation(o, SBIO_TIER_CONTAINER);
  sb = dx_create(&h, o);
  assert_non_null(sb);
  sbio_sandbox_close(sb, NULL);
  sbio_error_free(err);
  sbio_create_options_free(o);
  dx_close(&h);
}

static void test_gvisor_really_runs(void **state) {
  (void)state;
  if (!env.runsc) {
    fprintf(stderr, "SKIP: runsc is not registered with the engine\n");
    skip();
  }
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runsc", NULL), 0);
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_require_isolation(o, SBIO_TIER_GVISOR);
  sbio_sandbox *sb = dx_create(&h, o);
  assert_non_null(sb);
  assert_string_equal(sbio_sandbox_mechanism(sb), "runsc");
  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_GVISOR);
  cJSON *c = dx_inspect(&env, sbio_sandbox_id(sb));
  assert_string_equal(dx_str(c, "HostConfig", "Runtime"), "runsc");
  cJSON_Delete(c);
  /* From inside: gVisor's kernel, not the host's. */
  char *out = NULL;
  int code;
  assert_int_equal(dx_sh(sb, "dmesg | head -3; cat /proc/version", 30, &code, &out, NULL), SBIO_OK);
  fprintf(stderr, "inside runsc:\n%s", out);
  assert_non_null(strstr(out, "gVisor"));
  free(out);
  check_no_network(sb);
  /* Forks, stdin, exit codes work under the hardened config (PidsLimit
   * 512 + init): the configuration that crashed with PidsLimit 64. */
  sbio_exec_options *eo = sbio_exec_options_new();
  sbio_exec_options_set_stdin(eo, "from stdin\n", 11);
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec_shell(sb, "cat; (sleep 0.1; echo child); exit 4", eo, &r, NULL), SBIO_OK);
  size_t len;
  assert_string_equal(sbio_exec_result_stdout(r, &len), "from stdin\nchild\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 4);
  sbio_exec_result_free(r);
  sbio_exec_options_free(eo);
  /* A deadline under gVisor kills too, and the sandbox stays usable. */
  double t0 = dx_now();
  assert_int_equal(dx_sh(sb, "sleep 401", 1.0, &code, NULL, NULL), SBIO_E_EXEC_TIMEOUT);
  assert_true(dx_now() - t0 < 120); /* the deadline ended it (with its kill step), not the 401 s sleep */
  assert_int_equal(dx_sh(sb, "ps -o args | grep -c '^sleep 401' || true", 30, &code, &out, NULL), SBIO_OK);
  assert_string_equal(out, "0\n");
  free(out);
  sbio_sandbox_close(sb, NULL);
  sbio_create_options_free(o);
  dx_close(&h);
}

/* Under runsc a PIDs cap below what gVisor's own threads need crashes the
 * sandbox on the first fork, and the engine then never closes the exec
 * stream. The exec must still come back, well before its deadline. */
static void test_runsc_crash_does_not_hang(void **state) {
  (void)state;
  if (!env.runsc) {
    fprintf(stderr, "SKIP: runsc is not registered with the engine\n");
    skip();
  }
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runsc", "      pids_limit: 64\n"), 0);
  sbio_sandbox *sb = dx_create(&h, NULL);
  assert_non_null(sb);
  assert_true(dx_log_contains(&h, "pids_limit 64 under runsc"));
  sbio_error *err = sbio_error_new();
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 60);
  sbio_exec_result *r = NULL;
  double t0 = dx_now();
  sbio_code rc = sbio_sandbox_exec_shell(sb, "sleep 0.2; (sleep 0.1; echo child); exit 4", o, &r, err);
  double dt = dx_now() - t0;
  fprintf(stderr, "crashed runsc sandbox: rc %s after %.2f s: %s\n", sbio_code_name(rc), dt, sbio_error_message(err));
  /* Either it survived this time (exit 4), or it died and we said so. */
  assert_true(rc == SBIO_OK || rc == SBIO_E_GONE);
  assert_true(dt < 40); /* came back: not the 60 s deadline */
  sbio_exec_result_free(r);
  sbio_exec_options_free(o);
  sbio_error_free(err);
  sbio_sandbox_close(sb, NULL);
  dx_close(&h);
}

/* Polls the engine until the container is gone (1) or `seconds` pass (0). */
static int wait_gone(const char *id, double seconds) {
  for (double end = dx_now() + seconds; dx_now() < end;) {
    cJSON *c = dx_inspect(&env, id);
    if (!c) return 1;
    cJSON_Delete(c);
    struct timespec ts = {0, 100 * 1000000L};
    nanosleep(&ts, NULL);
  }
  return 0;
}

/* The sandbox ends on its own at its timeout even if nobody kills it, and
 * leaves nothing behind: the container is removed, not just stopped
 * (before AutoRemove it stayed, stopped, until `sbio reap --kill`). */
static void test_lifetime_backstop(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  sbio_create_options *o = sbio_create_options_new();
  /* 10 s: the timeout is also create's deadline, which a busy machine must
   * not miss (create takes a second or two here). The backstop ends the
   * container at ceil(10) + 1 s; the wait below allows 60 s for that. */
  sbio_create_options_set_timeout(o, 10);
  sbio_sandbox *sb = dx_create(&h, o);
  assert_non_null(sb);
  char id[64];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  cJSON *c = dx_inspect(&env, id);
  assert_non_null(c);
  assert_true(cJSON_IsTrue(dx_path(c, "HostConfig", "AutoRemove")));
  cJSON_Delete(c);
  assert_true(wait_gone(id, 60));
  sbio_error *err = sbio_error_new();
  assert_int_equal(dx_sh(sb, "true", 10, NULL, NULL, err), SBIO_E_GONE);
  sbio_error_free(err);
  assert_int_equal(sbio_sandbox_close(sb, NULL), SBIO_OK); /* nothing left to remove: still fine */
  sbio_create_options_free(o);
  dx_close(&h);
}

/* Containers with `label` in state `status` ("running", ...), -1 on error. */
static int count_in_state(const char *label, const char *status) {
  cJSON *root = dx_list_containers(&env, label, status);
  int n = root ? cJSON_GetArraySize(root) : -1;
  cJSON_Delete(root);
  return n;
}

/* The same when the caller is killed outright: `kill -9` of `sbio run`
 * with ?timeout=10 leaves no container once the timeout has passed. */
static void test_lifetime_backstop_after_kill_9(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runc", NULL), 0);
  char run[64], label[96], target[256];
  snprintf(run, sizeof run, "k9-%ld", (long)time(NULL) ^ (long)getpid());
  snprintf(label, sizeof label, "io.sandboxio.meta.run=%s", run);
  snprintf(target, sizeof target, "docker://%s?timeout=10", env.image);
  char label_arg[96];
  snprintf(label_arg, sizeof label_arg, "run=%s", run);
  const char *argv[] = {DX_SBIO,   "--config", h.config, "run",   "--backend", target,
                        "--label", label_arg,  "--",     "sleep", "1000",      NULL};
  pid_t pid = dx_spawn_quiet(argv);
  assert_true(pid >= 0);
  /* Wait until its container runs (killed between the engine's create and
   * start, a container never runs its backstop: that one is for `sbio
   * reap`), then kill sbio without a chance to clean up. */
  int seen = 0;
  for (double end = dx_now() + 60; !seen && dx_now() < end;) {
    seen = count_in_state(label, "running") == 1;
    struct timespec ts = {0, 100 * 1000000L};
    if (!seen) nanosleep(&ts, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  assert_true(seen);
  assert_int_equal(dx_count_containers(&env, label), 1); /* it outlived sbio */
  int gone = 0;
  for (double end = dx_now() + 60; !gone && dx_now() < end;) {
    gone = dx_count_containers(&env, label) == 0;
    struct timespec ts = {0, 200 * 1000000L};
    if (!gone) nanosleep(&ts, NULL);
  }
  assert_true(gone);
  dx_close(&h);
}

/* With no runtime configured, plan asks the engine for its default. */
static void test_default_runtime_from_engine(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, NULL, NULL), 0);
  sbio_sandbox *sb = dx_create(&h, NULL);
  assert_non_null(sb);
  assert_string_equal(sbio_sandbox_mechanism(sb), "runc"); /* this engine's default */
  sbio_sandbox_close(sb, NULL);
  dx_close(&h);
}

int main(void) {
  int rc = dx_env_load(&env);
  if (rc) return rc;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hardening_read_back),
      cmocka_unit_test(test_network_denied),
      cmocka_unit_test(test_allow_is_refused_before_anything_exists),
      cmocka_unit_test(test_require_gvisor_on_runc_refused),
      cmocka_unit_test(test_gvisor_really_runs),
      cmocka_unit_test(test_runsc_crash_does_not_hang),
      cmocka_unit_test(test_lifetime_backstop),
      cmocka_unit_test(test_lifetime_backstop_after_kill_9),
      cmocka_unit_test(test_default_runtime_from_engine),
  };
  return cmocka_run_group_tests_name("docker_isolation", tests, NULL, NULL);
}
