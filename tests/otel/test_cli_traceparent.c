/* SPDX-License-Identifier: MIT */
/* The sbio command honours the caller's TRACEPARENT and the standard
 * OTEL_* variables: `sbio run` under a CI job's span becomes its child. */
#include "../cli/harness.h"
#include "collector.h"
#include "otlp_check.h"

#include <stdio.h>
#include <string.h>

#define PARENT_TRACE "0af7651916cd43dd8448eb211c80319c"
#define PARENT_SPAN "b7ad6b7169203331"

static void check_requests(collector *c) {
  for (size_t i = 0; i < collector_requests(c); i++) {
    char why[512];
    if (otlp_check_request(collector_body(c, i), why, sizeof why) != 0) fail_msg("request %zu: %s", i, why);
  }
}

static void test_run_is_a_child_of_traceparent(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  char endpoint[160];
  snprintf(endpoint, sizeof endpoint, "OTEL_EXPORTER_OTLP_ENDPOINT=%s", collector_url(c));
  const char *env[] = {endpoint, "TRACEPARENT=00-" PARENT_TRACE "-" PARENT_SPAN "-01", "OTEL_SERVICE_NAME=ci-job",
                       NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "run", "--backend", "fake://", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 0);
  assert_string_equal(r.out, "hi\n");
  assert_false(h_contains(r.err, r.err_len, "warning"));
  h_result_free(&r);

  const cJSON *spans[16];
  size_t n = collector_spans(c, spans, 16);
  assert_int_equal(n, 3); /* created, exec, kill: flushed before sbio exits */
  check_requests(c);
  const char *names[] = {"execute_tool created", "execute_tool exec", "execute_tool kill"};
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(otlp_field(spans[i], "name"), names[i]);
    assert_string_equal(otlp_field(spans[i], "traceId"), PARENT_TRACE);
    assert_string_equal(otlp_field(spans[i], "parentSpanId"), PARENT_SPAN);
  }
  const cJSON *rs = cJSON_GetArrayItem(cJSON_GetObjectItem(collector_body(c, 0), "resourceSpans"), 0);
  assert_string_equal(otlp_attr_string(cJSON_GetObjectItem(rs, "resource"), "service.name"), "ci-job");
  collector_stop(c);
}

static void test_malformed_traceparent_warns(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  char endpoint[160];
  snprintf(endpoint, sizeof endpoint, "OTEL_EXPORTER_OTLP_ENDPOINT=%s", collector_url(c));
  const char *env[] = {endpoint, "TRACEPARENT=00-" PARENT_TRACE "-" PARENT_SPAN "-zz", NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "run", "--backend", "fake://", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.err, r.err_len,
                         "sbio: warning: ignoring the traceparent: the trace id, span id and flags must be lower-case "
                         "hex digits; spans start a new trace\n"));
  h_result_free(&r);
  const cJSON *spans[16];
  size_t n = collector_spans(c, spans, 16);
  assert_int_equal(n, 3);
  check_requests(c);
  for (size_t i = 0; i < n; i++) {
    assert_null(otlp_field(spans[i], "parentSpanId"));
    assert_string_not_equal(otlp_field(spans[i], "traceId"), PARENT_TRACE);
  }
  collector_stop(c);
}

static void test_no_endpoint_no_export(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  const char *env[] = {"TRACEPARENT=00-" PARENT_TRACE "-" PARENT_SPAN "-01", NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "run", "--backend", "fake://", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 0);
  assert_int_equal(r.err_len, 0);
  h_result_free(&r);
  assert_int_equal(collector_requests(c), 0);
  collector_stop(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_is_a_child_of_traceparent),
      cmocka_unit_test(test_malformed_traceparent_warns),
      cmocka_unit_test(test_no_endpoint_no_export),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
