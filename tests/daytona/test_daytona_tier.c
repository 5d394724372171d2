/* SPDX-License-Identifier: MIT */
/* UNKNOWN, end to end through the public API: the backend claims no tier,
 * says why (naming the pages of Daytona's documentation that disagree),
 * satisfies no isolation requirement before anything is sent to Daytona,
 * warns once per process when used without one, and an operator pin cannot
 * raise it. The warn-once test runs first: it must see this process's
 * first create on the backend. */
#include "../support/freshness.h"
#include "dt_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARNING "backend daytona has no verified isolation tier"

/* Log lines at level WARN (the callback's lines start with the level),
 * but for the other backends' sources getting old (not this test's
 * subject, and a matter of the date the suite runs). */
static size_t warnings(const sbt_lines *l) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++)
    n += strncmp(l->items[i], "30 ", 3) == 0 && !sbio_test_is_freshness_warning(l->items[i]);
  return n;
}

static void test_first_create_warns_once_per_process(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "warnonce", NULL, NULL, NULL);
  sbio_sandbox *a = dtf_create(&f, NULL, NULL);
  sbio_sandbox *b = dtf_create(&f, NULL, NULL);
  assert_int_equal(sbt_lines_count(&f.log, WARNING), 1);
  assert_int_equal(warnings(&f.log), 1); /* and the only warning */
  assert_int_equal(sbt_lines_count(&f.log, "docs/en/v2/isolation"), 1);
  sbio_sandbox_close(a, NULL);
  sbio_sandbox_close(b, NULL);
  /* "Once per process", not per host. */
  sbio_host_close(f.host);
  sbio_error *err = sbio_error_new();
  assert_int_equal(dtf_host(&f, err), SBIO_OK);
  sbio_sandbox *c = dtf_create(&f, NULL, NULL);
  assert_int_equal(sbt_lines_count(&f.log, WARNING), 1);
  sbio_sandbox_close(c, NULL);
  sbio_error_free(err);
  /* The created event records the tier as UNKNOWN. */
  size_t created = 0;
  for (size_t i = 0; i < f.audit.n; i++)
    if (strstr(f.audit.items[i], "\"event\":\"created\"")) {
      created++;
      assert_non_null(strstr(f.audit.items[i], "\"tier\":\"UNKNOWN\""));
    }
  assert_int_equal(created, 3);
  dtf_close(&f);
}

static void test_inspect_says_why_naming_the_sources(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "inspect", NULL, NULL, NULL);
  const sbio_backend_info *b = sbio_host_backend_find(f.host, "daytona");
  assert_non_null(b);
  assert_int_equal(sbio_backend_info_tier(b), SBIO_TIER_UNKNOWN);
  assert_int_equal(sbio_backend_info_claimed_tier(b), SBIO_TIER_UNKNOWN);
  assert_int_equal(sbio_backend_info_mechanism_count(b), 1);
  assert_string_equal(sbio_mechanism_name(b, 0), "daytona");
  const char *why = sbio_mechanism_reason(b, 0);
  assert_non_null(strstr(why, "Daytona's own documentation contradicts itself"));
  const char *sources[] = {"docs/en/sandboxes", "docs/en/linux-sandboxes", "docs/en/security-exhibit",
                           "docs/en/v2/isolation"};
  for (size_t i = 0; i < 4; i++) assert_non_null(strstr(why, sources[i]));
  /* The whole sentence, not cut short by the reason's buffer. */
  const char *end = "Firecracker microVMs";
  assert_string_equal(why + strlen(why) - strlen(end), end);
  sbio_caps caps = sbio_backend_info_capabilities(b);
  assert_false(caps & SBIO_CAP_SEPARATE_STDERR); /* Daytona merges the streams */
  assert_false(caps & SBIO_CAP_STREAMING);
  assert_false(caps & SBIO_CAP_STDIN);
  assert_true(caps & SBIO_CAP_NETWORK_POLICY);
  dtf_close(&f);
}

static void test_requirements_fail_before_anything_is_sent(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "require", NULL, NULL, NULL);
  const sbio_tier tiers[] = {SBIO_TIER_CONTAINER, SBIO_TIER_GVISOR, SBIO_TIER_MICROVM};
  sbio_error *err = sbio_error_new();
  for (size_t i = 0; i < 3; i++) {
    sbio_create_options *o = sbio_create_options_new();
    sbio_create_options_require_isolation(o, tiers[i]);
    sbio_sandbox *sb = NULL;
    assert_int_equal(sbio_sandbox_create(f.host, "daytona://", o, &sb, err), SBIO_E_CONFIG);
    assert_null(sb);
    assert_non_null(strstr(sbio_error_message(err), "cannot meet the required isolation"));
    assert_non_null(strstr(sbio_error_message(err), "contradicts itself"));
    sbio_create_options_free(o);
  }
  /* Requiring UNKNOWN is meaningless. */
  sbio_create_options *o = sbio_create_options_new();
  sbio_create_options_require_isolation(o, SBIO_TIER_UNKNOWN);
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f.host, "daytona://", o, &sb, err), SBIO_E_CONFIG);
  sbio_create_options_free(o);
  sbio_error_free(err);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetArraySize(reqs), 0); /* Daytona never heard of it */
  cJSON_Delete(reqs);
  assert_int_equal(sbt_lines_count(&f.log, WARNING), 0); /* refused, not warned */
  dtf_close(&f);
}

static void test_a_configured_floor_applies_too(void **state) {
  (void)state;
  dtf f;
  dtf_open(&f, "floor", NULL, NULL, "require_isolation: container\n");
  sbio_error *err = sbio_error_new();
  sbio_sandbox *sb = NULL;
  assert_int_equal(sbio_sandbox_create(f.host, "daytona://", NULL, &sb, err), SBIO_E_CONFIG);
  assert_non_null(strstr(sbio_error_hint(err), "require_isolation"));
  sbio_error_free(err);
  cJSON *reqs = dtf_requests(&f);
  assert_int_equal(cJSON_GetArraySize(reqs), 0);
  cJSON_Delete(reqs);
  dtf_close(&f);
}

static void test_a_pin_cannot_raise_the_tier(void **state) {
  (void)state;
  const char *pins[] = {"container", "gvisor", "microvm"};
  for (size_t i = 0; i < 3; i++) {
    dtf f;
    char yaml[64];
    snprintf(yaml, sizeof yaml, "    expect_tier: %s\n", pins[i]);
    dtf_open(&f, "pin", yaml, NULL, NULL);
    const sbio_backend_info *b = sbio_host_backend_find(f.host, "daytona");
    assert_int_equal(sbio_backend_info_status(b), SBIO_BACKEND_REFUSED);
    assert_non_null(strstr(sbio_backend_info_reason(b), "expect_tier pin mismatch"));
    assert_non_null(strstr(sbio_backend_info_reason(b), "UNKNOWN"));
    assert_int_equal(sbio_backend_info_tier(b), SBIO_TIER_UNKNOWN);
    sbio_error *err = sbio_error_new();
    sbio_sandbox *sb = NULL;
    assert_int_equal(sbio_sandbox_create(f.host, "daytona://", NULL, &sb, err), SBIO_E_BACKEND_UNAVAILABLE);
    sbio_error_free(err);
    cJSON *reqs = dtf_requests(&f);
    assert_int_equal(cJSON_GetArraySize(reqs), 0);
    cJSON_Delete(reqs);
    dtf_close(&f);
  }
  /* A pin of unknown matches, and the backend works (still UNKNOWN). */
  dtf f;
  dtf_open(&f, "pinunknown", "    expect_tier: unknown\n", NULL, NULL);
  const sbio_backend_info *b = sbio_host_backend_find(f.host, "daytona");
  assert_int_equal(sbio_backend_info_status(b), SBIO_BACKEND_AVAILABLE);
  sbio_sandbox *sb = dtf_create(&f, NULL, NULL);
  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_UNKNOWN);
  sbio_sandbox_close(sb, NULL);
  dtf_close(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_create_warns_once_per_process),
      cmocka_unit_test(test_inspect_says_why_naming_the_sources),
      cmocka_unit_test(test_requirements_fail_before_anything_is_sent),
      cmocka_unit_test(test_a_configured_floor_applies_too),
      cmocka_unit_test(test_a_pin_cannot_raise_the_tier),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
