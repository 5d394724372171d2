/* SPDX-License-Identifier: MIT */
/* Image pulls from a real registry: the harness's private registry on
 * loopback (engine.sh) holds an image the engine does not have.
 *   pull: missing  pulls it, with progress reported to the host's callback
 *                  (0 of unknown first, done never going down, done == total
 *                  at the end), and the container runs from it;
 *   pull: never    with it absent fails with a clear error, creates nothing;
 *   pull: always   pulls again although it is present.
 * Without the registry (docker-registry not installed) the tests are
 * skipped with the reason, except under CI=true. */
#include "docker_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CALLS 4096

static dx_env env;

typedef struct pull_host {
  dx_host h; /* dir, config, host and the collected log */
  char what[128];
  int64_t *done, *total;
  size_t n;
} pull_host;

static void on_progress(const char *what, int64_t done, int64_t total, void *user) {
  pull_host *p = user;
  if (p->n == MAX_CALLS) return;
  if (!p->n) snprintf(p->what, sizeof p->what, "%s", what);
  /* One step per pull: every report names it. */
  if (strcmp(p->what, what) != 0) fail_msg("progress for \"%s\" during \"%s\"", what, p->what);
  p->done[p->n] = done;
  p->total[p->n] = total;
  p->n++;
}

static void on_log(sbio_log_level level, const char *message, void *user) {
  dx_host *h = user;
  (void)level;
  char **grown = realloc(h->log, (h->n_log + 1) * sizeof *grown);
  if (!grown) return;
  h->log = grown;
  h->log[h->n_log++] = strdup(message);
}

/* A host whose docker backend uses the registry's image with `policy`. */
static void open_pull_host(pull_host *p, const char *policy) {
  memset(p, 0, sizeof *p);
  p->done = calloc(MAX_CALLS, sizeof *p->done);
  p->total = calloc(MAX_CALLS, sizeof *p->total);
  assert_non_null(p->done);
  assert_non_null(p->total);
  snprintf(p->h.dir, sizeof p->h.dir, "/tmp/sbio-dxp-XXXXXX");
  assert_non_null(mkdtemp(p->h.dir));
  snprintf(p->h.config, sizeof p->h.config, "%s/config.yaml", p->h.dir);
  FILE *fp = fopen(p->h.config, "w");
  assert_non_null(fp);
  fprintf(fp,
          "backends:\n  docker:\n    settings:\n      host: %s\n      runtime: runc\n      pull: %s\n      image: %s\n",
          env.host, policy, env.pull_image);
  assert_int_equal(fclose(fp), 0);
  sbio_host_options *o = sbio_host_options_new();
  assert_int_equal(sbio_host_options_set_config_file(o, p->h.config), SBIO_OK);
  assert_int_equal(sbio_host_options_set_log_callback(o, on_log, &p->h), SBIO_OK);
  assert_int_equal(sbio_host_options_set_progress_callback(o, on_progress, p), SBIO_OK);
  sbio_error *err = sbio_error_new();
  if (sbio_host_open(o, &p->h.host, err) != SBIO_OK) fail_msg("host open: %s", sbio_error_message(err));
  sbio_error_free(err);
  sbio_host_options_free(o);
}

static void close_pull_host(pull_host *p) {
  dx_close(&p->h);
  free(p->done);
  free(p->total);
}

/* Whether the engine has the image (GET /images/{name}/json). */
static int image_present(const char *image) {
  char path[512];
  long status = 0;
  snprintf(path, sizeof path, "/images/%s/json", image);
  free(dx_api(&env, "GET", path, NULL, &status));
  if (status != 200 && status != 404) fail_msg("image inspect of %s answered %ld", image, status);
  return status == 200;
}

static void remove_image(const char *image) {
  char path[512];
  long status = 0;
  snprintf(path, sizeof path, "/images/%s?force=1", image);
  free(dx_api(&env, "DELETE", path, NULL, &status));
  if (status != 200 && status != 404) fail_msg("image delete of %s answered %ld", image, status);
  assert_false(image_present(image));
}

/* The step's reports: it starts at 0 of unknown, `done` never goes down,
 * never passes a known total, and the last report has done == total. */
static void assert_progress_shape(const pull_host *p) {
  char want[300];
  snprintf(want, sizeof want, "pull %s", env.pull_image);
  if (p->n == 0) fail_msg("no progress was reported for the pull");
  assert_string_equal(p->what, want);
  assert_int_equal(p->done[0], 0);
  assert_int_equal(p->total[0], -1);
  for (size_t i = 0; i < p->n; i++) {
    fprintf(stderr, "progress %zu: %lld / %lld\n", i, (long long)p->done[i], (long long)p->total[i]);
    if (i) assert_true(p->done[i] >= p->done[i - 1]);
    assert_true(p->total[i] >= -1);
    if (p->total[i] >= 0) assert_true(p->done[i] <= p->total[i]);
  }
  assert_int_equal(p->done[p->n - 1], p->total[p->n - 1]);
}

static void run_marker(sbio_sandbox *sb) {
  int code = -1;
  char *out = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(dx_sh(sb, "cat /etc/sbio-pulltest", 30, &code, &out, err), SBIO_OK);
  assert_int_equal(code, 0);
  assert_string_equal(out, "sbio pull test\n");
  free(out);
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK);
  sbio_error_free(err);
}

static void test_missing_pulls_with_progress(void **state) {
  (void)state;
  remove_image(env.pull_image);
  pull_host p;
  open_pull_host(&p, "missing");
  sbio_sandbox *sb = dx_create(&p.h, NULL);
  assert_non_null(sb);
  assert_true(image_present(env.pull_image));
  assert_true(dx_log_contains(&p.h, "pulling from its registry"));
  assert_progress_shape(&p);
  /* The layer really came over the wire: bytes were counted. */
  assert_true(p.total[p.n - 1] > 0);
  run_marker(sb);
  close_pull_host(&p);
}

static void test_never_with_the_image_absent_fails_clearly(void **state) {
  (void)state;
  remove_image(env.pull_image);
  pull_host p;
  open_pull_host(&p, "never");
  int before = dx_count_containers(&env, NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  assert_int_equal(sbio_sandbox_create(p.h.host, "docker://", NULL, &sb, err), SBIO_E_CREATE);
  assert_null(sb);
  fprintf(stderr, "%s\n  hint: %s\n", sbio_error_message(err), sbio_error_hint(err));
  assert_non_null(strstr(sbio_error_message(err), env.pull_image));
  assert_non_null(strstr(sbio_error_message(err), "pull policy is never"));
  assert_non_null(strstr(sbio_error_hint(err), "pull"));
  /* Nothing pulled, nothing created, nothing reported. */
  assert_false(image_present(env.pull_image));
  assert_int_equal(dx_count_containers(&env, NULL), before);
  assert_false(dx_log_contains(&p.h, "pulling from its registry"));
  assert_int_equal(p.n, 0);
  sbio_error_free(err);
  close_pull_host(&p);
}

static void test_always_pulls_again(void **state) {
  (void)state;
  /* Present first (a pull: missing), then `always` must still ask the
   * registry: the pull is logged and reported even with nothing new. */
  pull_host first;
  open_pull_host(&first, "missing");
  sbio_sandbox *sb = dx_create(&first.h, NULL);
  assert_non_null(sb);
  run_marker(sb);
  close_pull_host(&first);
  assert_true(image_present(env.pull_image));

  pull_host p;
  open_pull_host(&p, "always");
  sb = dx_create(&p.h, NULL);
  assert_non_null(sb);
  assert_true(dx_log_contains(&p.h, "pulling from its registry"));
  assert_true(dx_log_contains(&p.h, "Image is up to date"));
  assert_progress_shape(&p);
  run_marker(sb);
  close_pull_host(&p);

  /* And `always` with the image absent downloads it. */
  remove_image(env.pull_image);
  open_pull_host(&p, "always");
  sb = dx_create(&p.h, NULL);
  assert_non_null(sb);
  assert_progress_shape(&p);
  assert_true(p.total[p.n - 1] > 0);
  run_marker(sb);
  close_pull_host(&p);
}

int main(void) {
  int rc = dx_env_load(&env);
  if (rc != 0) return rc;
  if (!env.pull_image[0]) {
    fprintf(stderr, "%s: pull tests: no registry: %s\n", dx_in_ci() ? "FAIL" : "SKIP",
            env.registry_skip[0] ? env.registry_skip : "engine.sh did not start one");
    return dx_in_ci() ? 1 : 77;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_missing_pulls_with_progress),
      cmocka_unit_test(test_never_with_the_image_absent_fails_clearly),
      cmocka_unit_test(test_always_pulls_again),
  };
  rc = cmocka_run_group_tests(tests, NULL, NULL);
  /* Leave the engine as the other tests expect it: without this image. */
  remove_image(env.pull_image);
  curl_global_cleanup();
  return rc;
}
