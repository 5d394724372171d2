/* SPDX-License-Identifier: MIT */
/* The docker backend's pull progress arithmetic (pull_progress.c), fed
 * with status lines as the engine writes them: one step in done/total
 * bytes, starting at 0 of unknown, never going back, ending done == total. */
#include "pull_progress.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct heard {
  int64_t done[1024], total[1024];
  size_t n;
} heard;

static void sink(void *user, int64_t done, int64_t total) {
  heard *h = user;
  assert_true(h->n < 1024);
  h->done[h->n] = done;
  h->total[h->n] = total;
  h->n++;
}

/* One stream line: status, id, and progressDetail numbers (-1: absent). */
static void line(dk_pull_progress *pp, const char *status, const char *id, double cur, double tot) {
  cJSON *c = cur >= 0 || cur < -1e9 ? cJSON_CreateNumber(cur) : NULL;
  cJSON *t = tot >= 0 || tot < -1e9 ? cJSON_CreateNumber(tot) : NULL;
  sbio__dk_pull_progress_line(pp, status, id, c, t);
  cJSON_Delete(c);
  cJSON_Delete(t);
}

static void expect(const heard *h, size_t i, int64_t done, int64_t total) {
  assert_true(i < h->n);
  if (h->done[i] != done || h->total[i] != total)
    fail_msg("report %zu: %lld/%lld, expected %lld/%lld", i, (long long)h->done[i], (long long)h->total[i],
             (long long)done, (long long)total);
}

static dk_pull_progress *start(heard *h) {
  dk_pull_progress *pp = malloc(sizeof *pp);
  assert_non_null(pp);
  memset(h, 0, sizeof *h);
  sbio__dk_pull_progress_init(pp, sink, h);
  expect(h, 0, 0, -1);
  return pp;
}

/* The stream of a one-layer pull from the test registry, as recorded. */
static void test_one_layer(void **state) {
  (void)state;
  heard h;
  dk_pull_progress *pp = start(&h);
  line(pp, "Pulling from sbio/pulltest", "v1", -1, -1);
  line(pp, "Pulling fs layer", "c115191cf065", -1, -1);
  line(pp, "Downloading", "c115191cf065", 36445, 1064621);
  line(pp, "Downloading", "c115191cf065", 1064621, 1064621);
  line(pp, "Verifying Checksum", "c115191cf065", -1, -1);
  line(pp, "Download complete", "c115191cf065", -1, -1);
  line(pp, "Extracting", "c115191cf065", 32768, 1064621);
  line(pp, "Extracting", "c115191cf065", 1064621, 1064621);
  line(pp, "Pull complete", "c115191cf065", -1, -1);
  line(pp, "Digest: sha256:05e1", "", -1, -1);
  line(pp, "Status: Downloaded newer image for 127.0.0.1:5000/sbio/pulltest:v1", "", -1, -1);
  sbio__dk_pull_progress_finish(pp);
  assert_int_equal(h.n, 3); /* only changes are reported */
  expect(&h, 1, 36445, 1064621);
  expect(&h, 2, 1064621, 1064621);
  free(pp);
}

/* The total is unknown until every layer to download said its size. */
static void test_total_unknown_until_every_layer_is_sized(void **state) {
  (void)state;
  heard h;
  dk_pull_progress *pp = start(&h);
  line(pp, "Pulling fs layer", "a", -1, -1);
  line(pp, "Pulling fs layer", "b", -1, -1);
  line(pp, "Waiting", "b", -1, -1);
  line(pp, "Downloading", "a", 100, 1000);
  expect(&h, 1, 100, -1);
  line(pp, "Downloading", "b", 50, 500);
  expect(&h, 2, 150, 1500);
  line(pp, "Download complete", "a", -1, -1);
  expect(&h, 3, 1050, 1500);
  line(pp, "Downloading", "b", 500, 500);
  expect(&h, 4, 1500, 1500);
  sbio__dk_pull_progress_finish(pp);
  assert_int_equal(h.n, 5);
  free(pp);
}

/* Layers the engine has count for nothing; with all present: 0 of 0. */
static void test_present_layers(void **state) {
  (void)state;
  heard h;
  dk_pull_progress *pp = start(&h);
  line(pp, "Already exists", "a", -1, -1);
  line(pp, "Already exists", "b", -1, -1);
  expect(&h, 1, 0, 0);
  sbio__dk_pull_progress_finish(pp);
  assert_int_equal(h.n, 2);
  free(pp);

  pp = start(&h); /* an up-to-date image: no layer lines at all */
  line(pp, "Pulling from sbio/pulltest", "v1", -1, -1);
  line(pp, "Status: Image is up to date for x", "", -1, -1);
  sbio__dk_pull_progress_finish(pp);
  assert_int_equal(h.n, 2);
  expect(&h, 1, 0, 0);
  free(pp);
}

/* A retried download starts again at 0: done holds, then goes on. */
static void test_retry_never_goes_back(void **state) {
  (void)state;
  heard h;
  dk_pull_progress *pp = start(&h);
  line(pp, "Downloading", "a", 500, 1000);
  line(pp, "Retrying in 5 seconds", "a", -1, -1);
  line(pp, "Downloading", "a", 100, 1000);
  line(pp, "Downloading", "a", 800, 1000);
  line(pp, "Download complete", "a", -1, -1);
  sbio__dk_pull_progress_finish(pp);
  for (size_t i = 1; i < h.n; i++) assert_true(h.done[i] >= h.done[i - 1]);
  expect(&h, 1, 500, 1000);
  expect(&h, 2, 800, 1000);
  expect(&h, 3, 1000, 1000);
  assert_int_equal(h.n, 4);
  free(pp);
}

/* Numbers that cannot be byte counts are ignored, never converted. */
static void test_implausible_numbers(void **state) {
  (void)state;
  heard h;
  dk_pull_progress *pp = start(&h);
  line(pp, "Downloading", "a", -1e30, 1e30);
  line(pp, "Downloading", "a", 2e300, -1e30);
  assert_int_equal(h.n, 1);                 /* still 0 of unknown */
  line(pp, "Downloading", "a", 5000, 1000); /* more than the total: capped */
  expect(&h, 1, 1000, 1000);
  sbio__dk_pull_progress_finish(pp);
  assert_int_equal(h.n, 2);
  free(pp);
}

/* More layers than tracked: the total is unknown, the end still even. */
static void test_too_many_layers(void **state) {
  (void)state;
  heard h;
  dk_pull_progress *pp = start(&h);
  char id[16];
  for (int i = 0; i < DK_PULL_MAX_LAYERS + 5; i++) {
    snprintf(id, sizeof id, "l%d", i);
    line(pp, "Downloading", id, 10, 10);
  }
  assert_int_equal(h.total[h.n - 1], -1);
  for (size_t i = 1; i < h.n; i++) assert_true(h.done[i] >= h.done[i - 1]);
  sbio__dk_pull_progress_finish(pp);
  assert_int_equal(h.done[h.n - 1], h.total[h.n - 1]);
  assert_int_equal(h.total[h.n - 1], DK_PULL_MAX_LAYERS * 10);
  free(pp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_layer),           cmocka_unit_test(test_total_unknown_until_every_layer_is_sized),
      cmocka_unit_test(test_present_layers),      cmocka_unit_test(test_retry_never_goes_back),
      cmocka_unit_test(test_implausible_numbers), cmocka_unit_test(test_too_many_layers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
