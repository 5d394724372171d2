/* SPDX-License-Identifier: MIT */
/* Managed sandboxes (`sbio reap`): found by the managed label through both
 * list shapes and across pages, filtered by caller labels, never mixed up
 * with sandboxes sandboxio did not create, and removed by kill_managed. */
#include "dt_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sbio_sandbox *labelled(dtf *f, const char *tenant) {
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_set_label(o, "tenant_id", tenant);
  sbio_sandbox *sb = dtf_create(f, NULL, o);
  sbio_create_options_free(o);
  return sb;
}

static sbio_managed_list *list(dtf *f, const char *const *labels) {
  sbio_managed_list *l = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_managed_list_get(f->host, "daytona", labels, &l, err);
  if (rc != SBIO_OK) fail_msg("list_managed: [%d] %s", rc, sbio_error_message(err));
  sbio_error_free(err);
  return l;
}

static int listed(const sbio_managed_list *l, const char *id) {
  for (size_t i = 0; i < sbio_managed_list_count(l); i++)
    if (strcmp(sbio_managed_list_id(l, i), id) == 0) return 1;
  return 0;
}

static void check_listing(dtf *f) {
  sbio_sandbox *a = labelled(f, "alpha"), *b = labelled(f, "beta"), *c = labelled(f, "alpha");
  char *foreign = dtf_raw_sandbox(f, "{\"tenant_id\":\"alpha\"}"); /* not sandboxio's */

  sbio_managed_list *l = list(f, NULL);
  assert_int_equal(sbio_managed_list_count(l), 3);
  assert_true(listed(l, sbio_sandbox_id(a)) && listed(l, sbio_sandbox_id(b)) && listed(l, sbio_sandbox_id(c)));
  assert_false(listed(l, foreign));
  for (size_t i = 0; i < sbio_managed_list_count(l); i++) {
    assert_string_equal(sbio_managed_list_state(l, i), "running");
    assert_true(sbio_managed_list_created_at(l, i) > 1700000000);
    /* Only the caller's labels come back, not the markers. */
    assert_int_equal(sbio_managed_list_label_count(l, i), 1);
    assert_string_equal(sbio_managed_list_label_key(l, i, 0), "tenant_id");
  }
  sbio_managed_list_free(l);

  const char *alpha[] = {"tenant_id=alpha", NULL};
  l = list(f, alpha);
  assert_int_equal(sbio_managed_list_count(l), 2);
  assert_true(listed(l, sbio_sandbox_id(a)) && listed(l, sbio_sandbox_id(c)));
  sbio_managed_list_free(l);

  char path[200];
  snprintf(path, sizeof path, "/sandbox/%s", foreign);
  assert_int_equal(dtf_api(f, "DELETE", path, NULL, NULL), 200);
  free(foreign);
  sbio_sandbox_close(a, NULL);
  sbio_sandbox_close(b, NULL);
  sbio_sandbox_close(c, NULL);
}

static void test_list_paged(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "listpaged", NULL, NULL, NULL);
  dtf_org(&f, "{\"settings\":{\"pageSize\":1}}");
  check_listing(&f);
  cJSON *reqs = dtf_requests(&f);
  /* One item per page: the backend followed nextCursor. */
  const cJSON *r;
  size_t with_cursor = 0;
  cJSON_ArrayForEach(r, reqs) {
    const cJSON *q = cJSON_GetObjectItem(r, "query");
    if (cJSON_GetObjectItem(q, "cursor")) with_cursor++;
    if (cJSON_GetObjectItem(q, "labels")) {
      const char *labels = cJSON_GetArrayItem(cJSON_GetObjectItem(q, "labels"), 0)->valuestring;
      assert_non_null(strstr(labels, "\"sandboxio.managed\":\"true\""));
    }
  }
  assert_true(with_cursor >= 2);
  cJSON_Delete(reqs);
  dtf_close(&f);
}

static void test_list_plain_array_of_older_deployments(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "listarray", NULL, NULL, NULL);
  dtf_org(&f, "{\"settings\":{\"listShape\":\"array\"}}");
  check_listing(&f);
  dtf_close(&f);
}

static void test_list_filters_on_this_side_too(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "listnofilter", NULL, NULL, NULL);
  dtf_org(&f, "{\"settings\":{\"ignoreLabelFilter\":true}}"); /* a server that returns everything */
  check_listing(&f);
  dtf_close(&f);
}

static void test_kill_managed(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "killmanaged", NULL, NULL, NULL);
  sbio_sandbox *sb = labelled(&f, "gamma");
  char id[128];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  sbio_error *err = sbio_error_new();
  int killed = -1;
  assert_int_equal(sbio_managed_kill(f.host, "daytona", id, &killed, err), SBIO_OK);
  assert_int_equal(killed, 1);
  assert_int_equal(sbio_managed_kill(f.host, "daytona", id, &killed, err), SBIO_OK);
  assert_int_equal(killed, 0); /* already gone */
  assert_int_equal(sbio_managed_kill(f.host, "daytona", "no-such-id", &killed, err), SBIO_OK);
  assert_int_equal(killed, 0);
  sbio_managed_list *l = list(&f, NULL);
  assert_int_equal(sbio_managed_list_count(l), 0);
  sbio_managed_list_free(l);

  /* Reap deletes only what sandboxio made, whatever id it is handed. */
  char *foreign = dtf_raw_sandbox(&f, "{\"owner\":\"someone\"}");
  assert_int_equal(sbio_managed_kill(f.host, "daytona", foreign, &killed, err), SBIO_E_CONNECT);
  assert_non_null(strstr(sbio_error_message(err), "refusing to delete"));
  assert_int_equal(dtf_alive(&f), 1);
  char path[200];
  snprintf(path, sizeof path, "/sandbox/%s", foreign);
  assert_int_equal(dtf_api(&f, "DELETE", path, NULL, NULL), 200);
  free(foreign);

  /* The handle's own close after a reap is still fine (404 is gone). */
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK);
  sbio_error_free(err);
  dtf_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list_paged),
      cmocka_unit_test(test_list_plain_array_of_older_deployments),
      cmocka_unit_test(test_list_filters_on_this_side_too),
      cmocka_unit_test(test_kill_managed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
