/* SPDX-License-Identifier: MIT */
/* Failures on a real engine map to the catalogue with the engine's words:
 * engine unreachable, image missing under pull: never, a pull that fails,
 * bad settings, and an engine killed in the middle of an exec. */
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
#include <time.h>

static dx_env env;

/* A host whose docker settings are exactly `settings` (YAML lines). */
static int open_raw(dx_host *h, const char *settings) {
  memset(h, 0, sizeof *h);
  snprintf(h->dir, sizeof h->dir, "/tmp/sbio-dxe-XXXXXX");
  if (!mkdtemp(h->dir)) return -1;
  snprintf(h->config, sizeof h->config, "%s/config.yaml", h->dir);
  FILE *fp = fopen(h->config, "w");
  if (!fp) return -1;
  fprintf(fp, "backends:\n  docker:\n    settings:\n%s", settings);
  fclose(fp);
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_config_file(o, h->config);
  sbio_code rc = sbio_host_open(o, &h->host, NULL);
  sbio_host_options_free(o);
  return rc == SBIO_OK ? 0 : -1;
}

static sbio_code try_create(dx_host *h, sbio_error *err) {
  sbio_sandbox *sb = NULL;
  sbio_code rc = sbio_sandbox_create(h->host, "docker://", NULL, &sb, err);
  if (sb) sbio_sandbox_close(sb, NULL);
  return rc;
}

static void test_engine_unreachable(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(open_raw(&h, "      host: unix:///nonexistent/sbio-test/docker.sock\n      runtime: runc\n"), 0);
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&h, err), SBIO_E_CREATE);
  assert_string_equal(sbio_code_name(sbio_error_code(err)), "SBX_E1201");
  assert_non_null(strstr(sbio_error_hint(err), "unix:///nonexistent/sbio-test/docker.sock"));
  assert_non_null(strstr(sbio_error_message(err), "No such file or directory"));
  fprintf(stderr, "%s\n  hint: %s\n", sbio_error_message(err), sbio_error_hint(err));
  sbio_error_free(err);
  dx_close(&h);
}

static void test_image_missing_under_pull_never(void **state) {
  (void)state;
  dx_host h;
  char settings[1024];
  snprintf(settings, sizeof settings,
           "      host: %s\n      runtime: runc\n      pull: never\n      image: sbio-no-such-image:v1\n", env.host);
  assert_int_equal(open_raw(&h, settings), 0);
  int before = dx_count_containers(&env, NULL);
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&h, err), SBIO_E_CREATE);
  assert_non_null(strstr(sbio_error_message(err), "sbio-no-such-image:v1"));
  assert_non_null(strstr(sbio_error_message(err), "never"));
  assert_int_equal(dx_count_containers(&env, NULL), before);
  sbio_error_free(err);
  dx_close(&h);
}

/* pull: missing tries a pull; from a registry that is not there (loopback,
 * nothing listening) the engine's own error comes through. */
static void test_failed_pull_passes_the_engine_error(void **state) {
  (void)state;
  dx_host h;
  char settings[1024];
  snprintf(settings, sizeof settings,
           "      host: %s\n      runtime: runc\n      pull: missing\n      image: 127.0.0.1:9/sbio/none:v1\n",
           env.host);
  assert_int_equal(open_raw(&h, settings), 0);
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&h, err), SBIO_E_CREATE);
  fprintf(stderr, "%s\n", sbio_error_message(err));
  assert_non_null(strstr(sbio_error_message(err), "pull image 127.0.0.1:9/sbio/none:v1"));
  assert_non_null(strstr(sbio_error_message(err), "127.0.0.1:9"));
  sbio_error_free(err);
  dx_close(&h);
}

static void test_bad_settings(void **state) {
  (void)state;
  dx_host h;
  assert_int_equal(open_raw(&h, "      runtime: runc\n      imagee: typo\n"), 0);
  sbio_error *err = sbio_error_new();
  assert_int_equal(try_create(&h, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "imagee"));
  dx_close(&h);
  assert_int_equal(open_raw(&h, "      pull: sometimes\n"), 0);
  assert_int_equal(try_create(&h, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_message(err), "pull"));
  sbio_error_free(err);
  dx_close(&h);
}

typedef struct kill_args {
  char dir[600];
  double after;
} kill_args;

static void *kill_engine(void *p) {
  kill_args *a = p;
  struct timespec ts = {(time_t)a->after, (long)((a->after - (double)(time_t)a->after) * 1e9)};
  nanosleep(&ts, NULL);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s kill %s", DX_ENGINE_SH, a->dir);
  if (system(cmd) != 0) fprintf(stderr, "engine kill failed\n");
  return NULL;
}

/* Its own engine (the shared one must survive): start it, kill it in the
 * middle of an exec, expect a clean error soon, clean up. */
static void test_engine_killed_mid_exec(void **state) {
  (void)state;
  if (env.external) {
    fprintf(stderr, "SKIP: SBIO_TEST_DOCKER_HOST is set: not killing someone else's engine\n");
    skip();
  }
  kill_args a = {.after = 0.8};
  snprintf(a.dir, sizeof a.dir, "%s/engine-killed", DX_BINARY_DIR);
  char cmd[1400], state_path[700], line[700], host[600] = "";
  snprintf(cmd, sizeof cmd, "%s start %s", DX_ENGINE_SH, a.dir);
  assert_int_equal(system(cmd), 0);
  snprintf(state_path, sizeof state_path, "%s/state", a.dir);
  FILE *fp = fopen(state_path, "r");
  assert_non_null(fp);
  while (fgets(line, sizeof line, fp))
    if (!strncmp(line, "host=", 5)) snprintf(host, sizeof host, "%.*s", (int)strcspn(line + 5, "\n"), line + 5);
  fclose(fp);
  assert_true(host[0]);
  dx_host h;
  char settings[1024];
  snprintf(settings, sizeof settings, "      host: %s\n      runtime: runc\n      image: %s\n", host, env.image);
  assert_int_equal(open_raw(&h, settings), 0);
  sbio_sandbox *sb = dx_create(&h, NULL);
  assert_non_null(sb);
  pthread_t t;
  pthread_create(&t, NULL, kill_engine, &a);
  sbio_error *err = sbio_error_new();
  double t0 = dx_now();
  sbio_code rc = dx_sh(sb, "echo running; sleep 30", 25, NULL, NULL, err);
  double dt = dx_now() - t0;
  pthread_join(t, NULL);
  fprintf(stderr, "engine killed at 0.8 s: exec returned %s after %.2f s: %s\n", sbio_code_name(rc), dt,
          sbio_error_message(err));
  /* Clean up first, so a failed check below leaves nothing running. */
  t0 = dx_now();
  sbio_code closed = sbio_sandbox_close(sb, NULL); /* the engine is gone: teardown reports it */
  double close_dt = dx_now() - t0;
  dx_close(&h);
  snprintf(cmd, sizeof cmd, "%s stop %s", DX_ENGINE_SH, a.dir);
  int stopped = system(cmd);
  assert_true(rc == SBIO_E_EXEC || rc == SBIO_E_GONE);
  assert_true(dt < 20); /* the engine's death ended it, not the 25 s deadline */
  if (rc == SBIO_E_EXEC) assert_non_null(strstr(sbio_error_message(err), "lost the connection"));
  assert_int_not_equal(closed, SBIO_OK);
  assert_true(close_dt < 15);
  assert_int_equal(stopped, 0);
  sbio_error_free(err);
}

int main(void) {
  int rc = dx_env_load(&env);
  if (rc) return rc;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_engine_unreachable),
      cmocka_unit_test(test_image_missing_under_pull_never),
      cmocka_unit_test(test_failed_pull_passes_the_engine_error),
      cmocka_unit_test(test_bad_settings),
      cmocka_unit_test(test_engine_killed_mid_exec),
  };
  return cmocka_run_group_tests_name("docker_errors", tests, NULL, NULL);
}
