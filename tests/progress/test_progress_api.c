/* SPDX-License-Identifier: MIT */
/* The host's progress service (backend ABI 1.2) through the public API: a
 * backend's reports reach the application's callback, redacted, with
 * impossible numbers dropped; without a callback they go nowhere; and a
 * backend can tell a host without the service from the struct's size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sandboxio/backend.h>
#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CALLS 32

typedef struct seen {
  char what[MAX_CALLS][128];
  int64_t done[MAX_CALLS], total[MAX_CALLS];
  size_t n;
} seen;

static void on_progress(const char *what, int64_t done, int64_t total, void *user) {
  seen *s = user;
  if (s->n == MAX_CALLS) fail_msg("more than %d progress calls", MAX_CALLS);
  snprintf(s->what[s->n], sizeof s->what[s->n], "%s", what);
  s->done[s->n] = done;
  s->total[s->n] = total;
  s->n++;
}

static sbio_host *open_host(seen *s) {
  sbio_host_options *o = sbio_host_options_new();
  assert_non_null(o);
  assert_int_equal(sbio_host_options_set_no_config(o, 1), SBIO_OK);
  assert_int_equal(sbio_host_options_set_backend_path(o, PROGRESS_BK_DIR), SBIO_OK);
  if (s) assert_int_equal(sbio_host_options_set_progress_callback(o, on_progress, s), SBIO_OK);
  sbio_host *host = NULL;
  sbio_error *err = sbio_error_new();
  if (sbio_host_open(o, &host, err) != SBIO_OK) fail_msg("host open: %s", sbio_error_message(err));
  sbio_error_free(err);
  sbio_host_options_free(o);
  return host;
}

static void create_and_close(sbio_host *host, const char *uri, const sbio_create_options *copts) {
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  if (sbio_sandbox_create(host, uri, copts, &sb, err) != SBIO_OK) fail_msg("create: %s", sbio_error_message(err));
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK);
  sbio_error_free(err);
}

static void test_progress_reaches_the_callback(void **state) {
  (void)state;
  seen s = {0};
  sbio_host *host = open_host(&s);
  create_and_close(host, "progress://img-v1", NULL);
  sbio_host_close(host);
  assert_int_equal(s.n, 5);
  /* The step starts with an unknown size, counts up, ends done == total. */
  assert_int_equal(s.done[0], 0);
  assert_int_equal(s.total[0], -1);
  for (size_t i = 0; i < s.n; i++) {
    assert_string_equal(s.what[i], "pull img-v1");
    if (i) assert_true(s.done[i] >= s.done[i - 1]);
  }
  assert_int_equal(s.done[s.n - 1], 1000);
  assert_int_equal(s.total[s.n - 1], 1000);
}

static void test_impossible_numbers_are_dropped(void **state) {
  (void)state;
  seen s = {0};
  sbio_host *host = open_host(&s);
  create_and_close(host, "progress://bad-numbers", NULL);
  sbio_host_close(host);
  /* done -1, total -7 and a NULL name never reach the application. */
  assert_int_equal(s.n, 5);
  for (size_t i = 0; i < s.n; i++) {
    assert_true(s.done[i] >= 0);
    assert_true(s.total[i] >= -1);
  }
}

static void test_the_step_name_is_redacted(void **state) {
  (void)state;
  seen s = {0};
  sbio_host *host = open_host(&s);
  sbio_create_options *c = sbio_create_options_new();
  assert_int_equal(sbio_create_options_set_secret(c, "TOKEN", "tok-s3cr3t-value"), SBIO_OK);
  create_and_close(host, "progress://tok-s3cr3t-value", c);
  sbio_create_options_free(c);
  sbio_host_close(host);
  assert_int_equal(s.n, 5);
  for (size_t i = 0; i < s.n; i++) {
    assert_null(strstr(s.what[i], "s3cr3t"));
    assert_string_equal(s.what[i], "pull ***");
  }
}

static void test_without_a_callback_progress_is_dropped(void **state) {
  (void)state;
  sbio_host *host = open_host(NULL);
  create_and_close(host, "progress://img-v1", NULL);
  sbio_host_close(host);
}

static void test_setter_arguments(void **state) {
  (void)state;
  seen s = {0};
  assert_int_equal(sbio_host_options_set_progress_callback(NULL, on_progress, &s), SBIO_E_INVALID_ARGUMENT);
  sbio_host_options *o = sbio_host_options_new();
  assert_int_equal(sbio_host_options_set_progress_callback(o, on_progress, &s), SBIO_OK);
  /* Clearing it again: progress is then dropped. */
  assert_int_equal(sbio_host_options_set_progress_callback(o, NULL, NULL), SBIO_OK);
  assert_int_equal(sbio_host_options_set_no_config(o, 1), SBIO_OK);
  assert_int_equal(sbio_host_options_set_backend_path(o, PROGRESS_BK_DIR), SBIO_OK);
  sbio_host *host = NULL;
  assert_int_equal(sbio_host_open(o, &host, NULL), SBIO_OK);
  sbio_host_options_free(o);
  create_and_close(host, "progress://img-v1", NULL);
  sbio_host_close(host);
  assert_int_equal(s.n, 0);
}

static void dummy_progress(void *host_data, const char *what, int64_t done, int64_t total) {
  (void)host_data, (void)what, (void)done, (void)total;
}

/* What a backend sees from a 1.0/1.1 host: a smaller struct without the
 * member. SBIO_HOST_HAS must say no, whatever lies past the size. */
static void test_host_has_checks_the_size(void **state) {
  (void)state;
  sbio_host_services svc;
  memset(&svc, 0, sizeof svc);
  svc.progress = dummy_progress;
  svc.size = (uint32_t)offsetof(sbio_host_services, progress);
  assert_false(SBIO_HOST_HAS(&svc, progress));
  svc.size = sizeof svc;
  assert_true(SBIO_HOST_HAS(&svc, progress));
  svc.progress = NULL;
  assert_false(SBIO_HOST_HAS(&svc, progress));
  assert_true(SBIO_BACKEND_ABI_MINOR >= 2); /* progress came with 1.2 */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_progress_reaches_the_callback),
      cmocka_unit_test(test_impossible_numbers_are_dropped),
      cmocka_unit_test(test_the_step_name_is_redacted),
      cmocka_unit_test(test_without_a_callback_progress_is_dropped),
      cmocka_unit_test(test_setter_arguments),
      cmocka_unit_test(test_host_has_checks_the_size),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
