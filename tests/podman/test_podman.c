/* SPDX-License-Identifier: MIT */
/* The docker backend against Podman's Docker-compatible service
 * (podman_service.sh). What works as on Docker, and what differs: the
 * runtime is read from Podman's own inspect (the compat one says "oci"),
 * a configured runtime Podman ignores is refused, an exec on a stopped
 * container and the archive of a removed one are SBX_E1204, a process
 * that leaves stdin unread still gives its exit code, the runtime's
 * "not found" text arrives on stderr, and a write creates missing parent
 * directories. docs/backends/docker.md, "Podman", lists them. */
#include "docker_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static dx_env env;
static char runtime[32];

/* STATE_DIR/state from podman_service.sh: 0, 77 (skip) or 1. */
static int load_state(void) {
  memset(&env, 0, sizeof env);
  const char *dir = getenv("SBIO_TEST_PODMAN_STATE");
  if (!dir || !dir[0]) {
    fprintf(stderr, "SKIP: SBIO_TEST_PODMAN_STATE is not set (run through ctest)\n");
    return 77;
  }
  char path[600], line[1024];
  snprintf(path, sizeof path, "%s/state", dir);
  FILE *fp = fopen(path, "r");
  if (!fp) {
    fprintf(stderr, "%s: no service state at %s\n", dx_in_ci() ? "FAIL" : "SKIP", path);
    return dx_in_ci() ? 1 : 77;
  }
  int rc = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\n")] = '\0';
    if (!strncmp(line, "skip=", 5)) {
      fprintf(stderr, "SKIP: podman tests: %s\n", line + 5);
      rc = 77;
    } else if (!strncmp(line, "error=", 6)) {
      fprintf(stderr, "FAIL: podman tests: no service: %s\n", line + 6);
      rc = 1;
    } else if (!strncmp(line, "host=", 5)) {
      rc |= dx_copy_field(env.host, sizeof env.host, line + 5);
      rc |= dx_copy_field(env.socket, sizeof env.socket, strlen(line) > 12 ? line + 12 : "");
    } else if (!strncmp(line, "image=", 6)) {
      rc |= dx_copy_field(env.image, sizeof env.image, line + 6);
    } else if (!strncmp(line, "runtime=", 8)) {
      rc |= dx_copy_field(runtime, sizeof runtime, line + 8);
    }
  }
  fclose(fp);
  env.external = 1;
  if (rc == 0 && (!env.socket[0] || !env.image[0] || !runtime[0])) {
    fprintf(stderr, "FAIL: incomplete service state in %s\n", path);
    rc = 1;
  }
  return rc;
}

typedef struct fx {
  dx_host h;
  sbio_sandbox *sb;
} fx;

static int setup(void **state) {
  fx *f = calloc(1, sizeof *f);
  if (!f || dx_open(&f->h, &env, NULL, NULL) != 0) return -1;
  f->sb = dx_create(&f->h, NULL);
  if (!f->sb) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fx *f = *state;
  if (f->sb) sbio_sandbox_close(f->sb, NULL);
  dx_close(&f->h);
  free(f);
  return 0;
}

static sbio_exec_result *run(sbio_sandbox *sb, const char *const *argv, const void *in, size_t in_len, double timeout,
                             sbio_code want) {
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, timeout);
  if (in) sbio_exec_options_set_stdin(o, in, in_len);
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_sandbox_exec(sb, argv, o, &r, err);
  if (rc != want) fprintf(stderr, "exec %s: [%s] %s\n", argv[0], sbio_code_name(rc), sbio_error_message(err));
  assert_int_equal(rc, want);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  return r;
}

/* The mechanism is the runtime Podman ran (read from its libpod inspect,
 * the compat inspect says "oci"), and the hardening is real inside. */
static void test_mechanism_and_hardening(void **state) {
  fx *f = *state;
  assert_string_equal(sbio_sandbox_mechanism(f->sb), runtime);
  assert_int_equal(sbio_sandbox_tier(f->sb), SBIO_TIER_CONTAINER);
  cJSON *c = dx_inspect(&env, sbio_sandbox_id(f->sb));
  assert_non_null(c);
  const cJSON *hc = cJSON_GetObjectItemCaseSensitive(c, "HostConfig");
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(hc, "Runtime")->valuestring, "oci");
  assert_true(cJSON_GetObjectItemCaseSensitive(hc, "PidsLimit")->valuedouble == 512);
  assert_string_equal(cJSON_GetObjectItemCaseSensitive(hc, "NetworkMode")->valuestring, "none");
  cJSON_Delete(c);
  char *out = NULL;
  int code = -1;
  assert_int_equal(dx_sh(f->sb,
                         "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status | tr -s '\\t' ' '; "
                         "cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/pids.max 2>/dev/null; "
                         "echo ifaces:; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '",
                         30, &code, &out, NULL),
                   SBIO_OK);
  fprintf(stderr, "inside:\n%s", out);
  assert_non_null(strstr(out, "CapEff: 0000000000000000"));
  assert_non_null(strstr(out, "CapBnd: 0000000000000000"));
  assert_non_null(strstr(out, "NoNewPrivs: 1"));
  assert_non_null(strstr(out, "512"));
  assert_non_null(strstr(out, "ifaces:\nlo\n"));
  assert_null(strstr(strstr(out, "ifaces:\nlo\n") + 11, "\n")); /* lo only */
  free(out);
}

static void test_streams_and_exit_codes(void **state) {
  fx *f = *state;
  const char *sh[] = {"sh", "-c", "echo out; echo err >&2; exit 42", NULL};
  sbio_exec_result *r = run(f->sb, sh, NULL, 0, 30, SBIO_OK);
  size_t len;
  assert_string_equal(sbio_exec_result_stdout(r, &len), "out\n");
  assert_string_equal(sbio_exec_result_stderr(r, &len), "err\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 42);
  sbio_exec_result_free(r);
  /* Podman: 127, and the runtime's message on stderr (Docker: stdout). */
  const char *missing[] = {"/no/such/program", NULL};
  r = run(f->sb, missing, NULL, 0, 30, SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 127);
  assert_non_null(strstr(sbio_exec_result_stderr(r, &len), "no such file"));
  sbio_exec_result_free(r);
}

static void test_stdin(void **state) {
  fx *f = *state;
  size_t n = 3 * 1024 * 1024 + 5;
  unsigned char *in = malloc(n);
  assert_non_null(in);
  for (size_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 31 + (i >> 10));
  const char *cat[] = {"cat", NULL};
  sbio_exec_result *r = run(f->sb, cat, in, n, 60, SBIO_OK);
  size_t len = 0;
  const char *got = sbio_exec_result_stdout(r, &len);
  assert_int_equal(len, n);
  assert_memory_equal(got, in, n);
  sbio_exec_result_free(r);
  /* A process that never reads its stdin: Podman resets the connection
   * (our bytes unread); the exit code still comes from the exec. */
  const char *t[] = {"sh", "-c", "exit 3", NULL};
  r = run(f->sb, t, in, n, 60, SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 3);
  sbio_exec_result_free(r);
  free(in);
  const char *wc[] = {"wc", "-c", NULL};
  r = run(f->sb, wc, "", 0, 30, SBIO_OK);
  assert_int_equal(atoi(sbio_exec_result_stdout(r, &len)), 0);
  sbio_exec_result_free(r);
}

static void test_deadline(void **state) {
  fx *f = *state;
  double t0 = dx_now();
  const char *s[] = {"sleep", "600", NULL};
  sbio_exec_result *r = run(f->sb, s, NULL, 0, 2, SBIO_E_EXEC_TIMEOUT);
  sbio_exec_result_free(r);
  assert_true(dx_now() - t0 < 120); /* the deadline ended it (with its kill step), not the 600 s sleep */
  /* The sandbox is still usable, and nothing of the sleep is left. */
  char *out = NULL;
  int code = -1;
  assert_int_equal(dx_sh(f->sb, "ps -o comm | grep -c '^sleep' || true", 30, &code, &out, NULL), SBIO_OK);
  assert_int_equal(atoi(out), 1); /* PID 1's backstop sleep only */
  free(out);
}

static void test_files(void **state) {
  fx *f = *state;
  sbio_error *err = sbio_error_new();
  unsigned char data[100000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i % 253);
  assert_int_equal(sbio_file_mkdir(f->sb, "proj/src", 1, err), SBIO_OK);
  assert_int_equal(sbio_file_write(f->sb, "proj/src/data.bin", data, sizeof data, err), SBIO_OK);
  unsigned char *back = NULL;
  size_t blen = 0;
  assert_int_equal(sbio_file_read(f->sb, "/work/proj/src/data.bin", 0, &back, &blen, err), SBIO_OK);
  assert_int_equal(blen, sizeof data);
  assert_memory_equal(back, data, sizeof data);
  sbio_free(back);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(f->sb, "proj", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 1);
  assert_string_equal(sbio_file_list_name(l, 0), "src");
  assert_true(sbio_file_list_is_dir(l, 0));
  sbio_file_list_free(l);
  assert_int_equal(sbio_file_read(f->sb, "nope.txt", 0, &back, &blen, err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_file_remove(f->sb, "proj", err), SBIO_OK);
  assert_int_equal(sbio_file_list_dir(f->sb, "proj", &l, err), SBIO_E_PATH_NOT_FOUND);
  /* Podman differs: its archive upload creates missing parents (Docker:
   * SBX_E1701). */
  assert_int_equal(sbio_file_write(f->sb, "no/such/dir/x.txt", "x", 1, err), SBIO_OK);
  assert_int_equal(sbio_file_read(f->sb, "no/such/dir/x.txt", 0, &back, &blen, err), SBIO_OK);
  assert_int_equal(blen, 1);
  sbio_free(back);
  sbio_error_free(err);
}

static void test_managed_by_label(void **state) {
  fx *f = *state;
  sbio_create_options *o = sbio_create_options_new();
  char label[64];
  snprintf(label, sizeof label, "pm-%ld", (long)time(NULL));
  sbio_create_options_set_label(o, "run", label);
  sbio_sandbox *sb = dx_create(&f->h, o);
  assert_non_null(sb);
  char id[128];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  char filter[96];
  snprintf(filter, sizeof filter, "run=%s", label);
  const char *labels[] = {filter, NULL};
  sbio_error *err = sbio_error_new();
  sbio_managed_list *ml = NULL;
  assert_int_equal(sbio_managed_list_get(f->h.host, "docker", labels, &ml, err), SBIO_OK);
  assert_int_equal(sbio_managed_list_count(ml), 1);
  assert_string_equal(sbio_managed_list_id(ml, 0), id);
  assert_string_equal(sbio_managed_list_state(ml, 0), "running");
  sbio_managed_list_free(ml);
  int killed = 0;
  assert_int_equal(sbio_managed_kill(f->h.host, "docker", id, &killed, err), SBIO_OK);
  assert_int_equal(killed, 1);
  assert_int_equal(sbio_managed_kill(f->h.host, "docker", id, &killed, err), SBIO_OK);
  assert_int_equal(killed, 0);
  /* The handle sees its container gone. */
  char *out = NULL;
  assert_int_equal(dx_sh(sb, "true", 10, NULL, &out, err), SBIO_E_GONE);
  free(out);
  sbio_sandbox_close(sb, NULL);
  sbio_error_free(err);
  sbio_create_options_free(o);
}

/* Removed behind our back: exec and files say SBX_E1204. */
static void test_removed_externally_is_gone(void **state) {
  fx *f = *state;
  char path[256];
  long status = 0;
  snprintf(path, sizeof path, "/containers/%s?force=1", sbio_sandbox_id(f->sb));
  free(dx_api(&env, "DELETE", path, NULL, &status));
  assert_true(status == 204 || status == 200);
  sbio_error *err = sbio_error_new();
  const char *argv[] = {"true", NULL};
  sbio_exec_result *r = NULL;
  assert_int_equal(sbio_sandbox_exec(f->sb, argv, NULL, &r, err), SBIO_E_GONE);
  sbio_exec_result_free(r);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(f->sb, "x.txt", 0, &data, &len, err), SBIO_E_GONE);
  assert_int_equal(sbio_file_write(f->sb, "x.txt", "x", 1, err), SBIO_E_GONE);
  sbio_error_free(err);
}

/* Its lifetime ran out: the container stops and, created with AutoRemove,
 * is removed. Podman answers exec create on a stopped one with a 500
 * "container state improper", on one it is removing with a 500 "does not
 * exist in database: no such container" (the window in which this test
 * once failed with SBX_E1301), on a removed one with a 404; all are
 * SBX_E1204. */
static void test_stopped_is_gone(void **state) {
  fx *f = *state;
  sbio_create_options *o = sbio_create_options_new();
  /* 10 s: the timeout is also create's deadline, which a busy machine must
   * not miss (create takes a second or two here). The backstop stops the
   * container at ceil(10) + 1 s; the wait below allows 60 s for that. */
  sbio_create_options_set_timeout(o, 10);
  sbio_sandbox *sb = dx_create(&f->h, o);
  assert_non_null(sb);
  int running = 1;
  for (int i = 0; i < 600 && running; i++) {
    struct timespec ts = {0, 100 * 1000000L};
    nanosleep(&ts, NULL);
    cJSON *c = dx_inspect(&env, sbio_sandbox_id(sb));
    const cJSON *st = c ? cJSON_GetObjectItemCaseSensitive(c, "State") : NULL;
    running = st && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "Running"));
    cJSON_Delete(c);
  }
  assert_false(running);
  sbio_error *err = sbio_error_new();
  assert_int_equal(dx_sh(sb, "true", 10, NULL, NULL, err), SBIO_E_GONE);
  sbio_error_free(err);
  char id[128];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  sbio_sandbox_close(sb, NULL);
  assert_null(dx_inspect(&env, id));
  sbio_create_options_free(o);
}

/* Podman's compat create ignores HostConfig.Runtime: a configured runtime
 * it did not run is refused, and nothing is left behind. */
static void test_ignored_runtime_refused(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, "runsc", NULL), 0);
  int before = dx_count_containers(&env, NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(h.host, "docker://", NULL, &sb, err);
  fprintf(stderr, "got: [%s] %s\n", sbio_code_name(rc), sbio_error_message(err));
  assert_int_equal(rc, SBIO_E_CREATE);
  assert_null(sb);
  assert_non_null(strstr(sbio_error_message(err), "not the configured 'runsc'"));
  assert_non_null(strstr(sbio_error_hint(err), "containers.conf"));
  assert_int_equal(dx_count_containers(&env, NULL), before);
  sbio_error_free(err);
  dx_close(&h);
}

/* sbio_run's one-shot path on Podman: the exit code is the command's
 * (Podman 4.3's wait?condition=removed answers 0 whatever it was, so the
 * backend reads it from condition=next-exit), streams stay apart, a
 * missing program is 127, stdin reaches the command, and nothing is left. */
static sbio_exec_result *one_shot(dx_host *h, const char *const *argv, const char *in, sbio_code want) {
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 60);
  if (in) sbio_exec_options_set_stdin(o, in, strlen(in));
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_run(h->host, "docker://", NULL, argv, o, &r, err);
  if (rc != want) fprintf(stderr, "run %s: [%s] %s\n", argv[0], sbio_code_name(rc), sbio_error_message(err));
  assert_int_equal(rc, want);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  return r;
}

static void test_one_shot_run(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(dx_open(&h, &env, NULL, NULL), 0);
  const char *sh[] = {"sh", "-c", "echo out; echo err >&2; exit 42", NULL};
  sbio_exec_result *r = one_shot(&h, sh, NULL, SBIO_OK);
  size_t len;
  assert_int_equal(sbio_exec_result_exit_code(r), 42);
  assert_string_equal(sbio_exec_result_stdout(r, &len), "out\n");
  assert_string_equal(sbio_exec_result_stderr(r, &len), "err\n");
  sbio_exec_result_free(r);
  const char *missing[] = {"/no/such", NULL};
  r = one_shot(&h, missing, NULL, SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 127);
  assert_non_null(strstr(sbio_exec_result_stderr(r, &len), "/no/such: command not found"));
  sbio_exec_result_free(r);
  const char *cat[] = {"cat", NULL};
  r = one_shot(&h, cat, "abc\n", SBIO_OK);
  assert_int_equal(sbio_exec_result_exit_code(r), 0);
  assert_string_equal(sbio_exec_result_stdout(r, &len), "abc\n");
  sbio_exec_result_free(r);
  assert_int_equal(dx_count_containers(&env, "io.sandboxio.managed=true"), 0);
  dx_close(&h);
}

static void test_nothing_left(void **state) {
  (void)state;
  assert_int_equal(dx_count_containers(&env, "io.sandboxio.managed=true"), 0);
}

int main(void) {
  int rc = load_state();
  if (rc) return rc;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_mechanism_and_hardening, setup, teardown),
      cmocka_unit_test_setup_teardown(test_streams_and_exit_codes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stdin, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deadline, setup, teardown),
      cmocka_unit_test_setup_teardown(test_files, setup, teardown),
      cmocka_unit_test_setup_teardown(test_managed_by_label, setup, teardown),
      cmocka_unit_test_setup_teardown(test_removed_externally_is_gone, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stopped_is_gone, setup, teardown),
      cmocka_unit_test(test_ignored_runtime_refused),
      cmocka_unit_test(test_one_shot_run),
      cmocka_unit_test(test_nothing_left),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
