/* SPDX-License-Identifier: MIT */
/* Spans end to end: operations on the fake backend through the public API,
 * exported to a loopback test collector that checks every payload against
 * the OTLP/JSON mapping, the attributes, the redaction, the parent links a
 * traceparent asks for, and that a slow, broken or absent collector never
 * slows down or fails an operation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "collector.h"
#include "otlp_check.h"
#include "sbio_test.h"

#include <pthread.h>
#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SECRET "s3cr3t-value-4711"
#define PARENT_TRACE "4bf92f3577b34da6a3ce929d0e0e4736"
#define PARENT_SPAN "00f067aa0ba902b7"
#define MAX_SPANS 256

static const char *const otel_vars[] = {"OTEL_SDK_DISABLED",
                                        "OTEL_TRACES_EXPORTER",
                                        "OTEL_EXPORTER_OTLP_ENDPOINT",
                                        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                                        "OTEL_EXPORTER_OTLP_HEADERS",
                                        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                                        "OTEL_EXPORTER_OTLP_PROTOCOL",
                                        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                                        "OTEL_EXPORTER_OTLP_TIMEOUT",
                                        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
                                        "OTEL_SERVICE_NAME",
                                        "OTEL_RESOURCE_ATTRIBUTES",
                                        "OTEL_BSP_SCHEDULE_DELAY",
                                        "OTEL_BSP_MAX_QUEUE_SIZE",
                                        "OTEL_BSP_MAX_EXPORT_BATCH_SIZE",
                                        NULL};

/* ------------------------------------------------------------- helpers */

/* Warnings the library logged (tests/support: sbt_capture_warnings). */
static sbt_lines logged;

/* Nothing was logged; shows what was, if anything. */
static void assert_nothing_logged(void) {
  char *all = sbt_lines_join(&logged);
  assert_string_equal(all, "");
  free(all);
}

static int reset(void **state) {
  (void)state;
  for (size_t i = 0; otel_vars[i]; i++) unsetenv(otel_vars[i]);
  /* Short batching delay so tests do not wait on the 5 s default. */
  setenv("OTEL_BSP_SCHEDULE_DELAY", "20", 1);
  sbt_lines_free(&logged);
  return 0;
}

static char *write_config(const char *yaml) {
  char *p = strdup(SBIO_TEST_BINARY_DIR "/otel-config-XXXXXX.yaml");
  int fd = mkstemps(p, 5);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
  close(fd);
  return p;
}

/* A host with the given config text (NULL: no config at all). */
static sbio_host *open_host(const char *yaml, const char *traceparent) {
  sbio_host_options *o = sbio_host_options_new();
  char *path = yaml ? write_config(yaml) : NULL;
  if (path)
    assert_int_equal(sbio_host_options_set_config_file(o, path), SBIO_OK);
  else
    assert_int_equal(sbio_host_options_set_no_config(o, 1), SBIO_OK);
  sbt_capture_warnings(o, &logged);
  if (traceparent) assert_int_equal(sbio_host_options_set_traceparent(o, traceparent), SBIO_OK);
  sbio_host *h = NULL;
  sbio_error *e = sbio_error_new();
  sbio_code rc = sbio_host_open(o, &h, e);
  if (rc) fail_msg("host open: %s", sbio_error_message(e));
  sbio_error_free(e);
  sbio_host_options_free(o);
  if (path) {
    unlink(path);
    free(path);
  }
  return h;
}

/* create, exec, write, read, read of a missing file (an error), kill: six
 * spans. Writes the sandbox id to id. */
static void run_workload(sbio_host *h, char *id, size_t id_size) {
  sbio_create_options *co = sbio_create_options_new();
  sbio_create_options_set_label(co, "tenant_id", "t-42");
  sbio_create_options_set_secret(co, "API_TOKEN", SECRET);
  sbio_sandbox *sb = NULL;
  sbio_error *e = sbio_error_new();
  assert_int_equal(sbio_sandbox_create(h, "fake://", co, &sb, e), SBIO_OK);
  snprintf(id, id_size, "%s", sbio_sandbox_id(sb));
  sbio_exec_result *r = NULL;
  const char *argv[] = {"echo", SECRET, NULL};
  assert_int_equal(sbio_sandbox_exec(sb, argv, NULL, &r, e), SBIO_OK);
  sbio_exec_result_free(r);
  assert_int_equal(sbio_file_write(sb, "/work/a.txt", "hello", 5, e), SBIO_OK);
  unsigned char *data = NULL;
  size_t len = 0;
  assert_int_equal(sbio_file_read(sb, "/work/a.txt", 0, &data, &len, e), SBIO_OK);
  sbio_free(data);
  assert_int_equal(sbio_file_read(sb, "/work/missing.txt", 0, &data, &len, e), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_sandbox_close(sb, e), SBIO_OK);
  sbio_error_free(e);
  sbio_create_options_free(co);
}

static void check_all_requests(collector *c) {
  for (size_t i = 0; i < collector_requests(c); i++) {
    char why[512];
    const cJSON *body = collector_body(c, i);
    if (!body) fail_msg("request %zu is not JSON: %.200s", i, collector_raw_body(c, i));
    if (otlp_check_request(body, why, sizeof why) != 0) fail_msg("request %zu: %s", i, why);
    assert_string_equal(collector_method(c, i), "POST");
    assert_string_equal(collector_path(c, i), "/v1/traces");
    assert_string_equal(collector_header(c, i, "Content-Type"), "application/json");
    assert_null(strstr(collector_raw_body(c, i), SECRET));
  }
}

static const cJSON *span_named(const cJSON **spans, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(otlp_field(spans[i], "name"), name)) return spans[i];
  return NULL;
}

/* --------------------------------------------------------------- tests */

/* Whether libcurl is mapped into this process. */
static int libcurl_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  assert_non_null(f);
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) found = strstr(line, "/libcurl") != NULL;
  fclose(f);
  return found;
}

/* libcurl is loaded with the first exporter, never before: a process
 * that exports no spans does not map it. First in the list, before any
 * other test loads it. */
static void test_libcurl_loaded_only_when_exporting(void **state) {
  (void)state;
  assert_false(libcurl_mapped());
  char id[128];
  sbio_host *h = open_host(NULL, NULL);
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  assert_false(libcurl_mapped());
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  h = open_host(NULL, NULL);
  assert_true(libcurl_mapped());
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  assert_true(collector_requests(c) > 0);
  assert_nothing_logged();
  collector_stop(c);
}

static void test_spans_describe_operations(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  setenv("OTEL_SERVICE_NAME", "otel-test", 1);
  setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=acme,authorization=Bearer%20tok", 1);
  setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test", 1);
  sbio_host *h = open_host(NULL, NULL);
  char expect_url[128];
  snprintf(expect_url, sizeof expect_url, "%s/v1/traces", collector_url(c));
  assert_string_equal(sbio_host_trace_endpoint(h), expect_url);
  char id[128];
  run_workload(h, id, sizeof id);
  sbio_host_close(h); /* flushes */

  const cJSON *spans[MAX_SPANS];
  size_t n = collector_spans(c, spans, MAX_SPANS);
  assert_int_equal(n, 6);
  check_all_requests(c);
  assert_string_equal(collector_header(c, 0, "x-tenant"), "acme");
  assert_string_equal(collector_header(c, 0, "Authorization"), "Bearer tok");
  assert_non_null(strstr(collector_header(c, 0, "User-Agent"), "sandboxio/"));

  /* Resource and scope. */
  const cJSON *rs = cJSON_GetArrayItem(cJSON_GetObjectItem(collector_body(c, 0), "resourceSpans"), 0);
  const cJSON *resource = cJSON_GetObjectItem(rs, "resource");
  assert_string_equal(otlp_attr_string(resource, "service.name"), "otel-test");
  assert_string_equal(otlp_attr_string(resource, "telemetry.sdk.name"), "sandboxio");
  assert_string_equal(otlp_attr_string(resource, "deployment.environment"), "test");
  const cJSON *ss = cJSON_GetArrayItem(cJSON_GetObjectItem(rs, "scopeSpans"), 0);
  assert_string_equal(otlp_field(cJSON_GetObjectItem(ss, "scope"), "name"), "sandboxio");

  const char *names[] = {"execute_tool created",   "execute_tool exec",      "execute_tool file_write",
                         "execute_tool file_read", "execute_tool file_read", "execute_tool kill"};
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(otlp_field(spans[i], "name"), names[i]);
    assert_string_equal(otlp_attr_string(spans[i], "gen_ai.operation.name"), "execute_tool");
    assert_string_equal(otlp_attr_string(spans[i], "gen_ai.tool.name"), names[i] + strlen("execute_tool "));
    assert_string_equal(otlp_attr_string(spans[i], "sandboxio.backend"), "fake");
    assert_string_equal(otlp_attr_string(spans[i], "sandboxio.isolation"), "CONTAINER");
    assert_string_equal(otlp_attr_string(spans[i], "sandboxio.isolation.claimed"), "CONTAINER");
    assert_string_equal(otlp_attr_string(spans[i], "sandboxio.mechanism"), "none");
    assert_string_equal(otlp_attr_string(spans[i], "sandboxio.sandbox.id"), id);
    assert_string_equal(otlp_attr_string(spans[i], "sandboxio.tenant_id"), "t-42");
    assert_non_null(otlp_attr_string(spans[i], "sandboxio.isolation.source_url"));
    int found;
    long long ms = otlp_attr_int(spans[i], "sandboxio.duration_ms", &found);
    assert_true(found && ms >= 0);
    /* No parent without a traceparent: each operation is a root span. */
    assert_null(otlp_field(spans[i], "parentSpanId"));
    unsigned long long start = strtoull(otlp_field(spans[i], "startTimeUnixNano"), NULL, 10);
    unsigned long long end = strtoull(otlp_field(spans[i], "endTimeUnixNano"), NULL, 10);
    assert_true(end - start >= (unsigned long long)ms * 1000000ULL);
    assert_true(end - start < (unsigned long long)(ms + 1) * 1000000ULL);
    assert_true(llabs((long long)(start / 1000000000ULL) - (long long)time(NULL)) < 300);
  }
  /* Fresh random ids everywhere. */
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      assert_string_not_equal(otlp_field(spans[i], "spanId"), otlp_field(spans[j], "spanId"));
      assert_string_not_equal(otlp_field(spans[i], "traceId"), otlp_field(spans[j], "traceId"));
    }

  /* exec: argv redacted, exit code, bytes, the shell flag as a boolean. */
  const cJSON *exec = spans[1];
  const cJSON *argv =
      cJSON_GetObjectItem(cJSON_GetObjectItem(otlp_attr(exec, "sandboxio.argv"), "arrayValue"), "values");
  assert_int_equal(cJSON_GetArraySize(argv), 2);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(argv, 0), "stringValue")->valuestring, "echo");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(argv, 1), "stringValue")->valuestring, "***");
  assert_int_equal(otlp_attr_int(exec, "sandboxio.exit_code", NULL), 0);
  /* Bytes are what the sandbox sent, before redaction. */
  assert_int_equal(otlp_attr_int(exec, "sandboxio.bytes_out", NULL), (long long)strlen(SECRET) + 1);
  assert_int_equal(otlp_attr_bool(exec, "sandboxio.shell"), 0);
  assert_null(cJSON_GetObjectItem(exec, "status")); /* success leaves it unset */
  assert_null(otlp_attr(exec, "error.type"));
  assert_int_equal(otlp_attr_int(spans[2], "sandboxio.bytes_in", NULL), 5);
  assert_int_equal(otlp_attr_int(spans[3], "sandboxio.bytes_out", NULL), 5);

  /* The failed read: error.type is the catalogue class, status ERROR. */
  const cJSON *failed = spans[4];
  assert_string_equal(otlp_attr_string(failed, "error.type"), "PathNotFound");
  assert_string_equal(otlp_attr_string(failed, "sandboxio.error.code"), "SBX_E1701");
  assert_string_equal(otlp_attr_string(failed, "sandboxio.outcome"), "error");
  const cJSON *status = cJSON_GetObjectItem(failed, "status");
  assert_int_equal(cJSON_GetObjectItem(status, "code")->valueint, 2);
  assert_non_null(strstr(cJSON_GetObjectItem(status, "message")->valuestring, "missing.txt"));
  assert_nothing_logged();
  collector_stop(c);
}

static void check_children(collector *c, const char *trace_id, const char *parent) {
  const cJSON *spans[MAX_SPANS];
  size_t n = collector_spans(c, spans, MAX_SPANS);
  assert_int_equal(n, 6);
  check_all_requests(c);
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(otlp_field(spans[i], "traceId"), trace_id);
    assert_string_equal(otlp_field(spans[i], "parentSpanId"), parent);
    assert_string_not_equal(otlp_field(spans[i], "spanId"), parent);
    for (size_t j = i + 1; j < n; j++)
      assert_string_not_equal(otlp_field(spans[i], "spanId"), otlp_field(spans[j], "spanId"));
  }
}

static void test_traceparent_makes_children(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  char yaml[256];
  /* Configured through YAML this time, not the environment. */
  snprintf(yaml, sizeof yaml, "tracing:\n  endpoint: %s\n  service_name: from-yaml\n", collector_url(c));
  sbio_host *h = open_host(yaml, "00-" PARENT_TRACE "-" PARENT_SPAN "-01");
  char id[128];
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  check_children(c, PARENT_TRACE, PARENT_SPAN);
  const cJSON *rs = cJSON_GetArrayItem(cJSON_GetObjectItem(collector_body(c, 0), "resourceSpans"), 0);
  assert_string_equal(otlp_attr_string(cJSON_GetObjectItem(rs, "resource"), "service.name"), "from-yaml");
  assert_nothing_logged();
  collector_stop(c);
}

static void test_malformed_traceparent_is_ignored(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  char url[128];
  snprintf(url, sizeof url, "%s/v1/traces", collector_url(c));
  setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", url, 1);
  sbio_host *h = open_host(NULL, "00-" PARENT_TRACE "-" PARENT_SPAN);
  char id[128];
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  assert_true(sbt_lines_contain(&logged, "ignoring the traceparent: it is shorter than the 55 characters"));
  const cJSON *spans[MAX_SPANS];
  size_t n = collector_spans(c, spans, MAX_SPANS);
  assert_int_equal(n, 6);
  check_all_requests(c);
  for (size_t i = 0; i < n; i++) {
    assert_null(otlp_field(spans[i], "parentSpanId"));
    assert_string_not_equal(otlp_field(spans[i], "traceId"), PARENT_TRACE);
  }
  collector_stop(c);
}

/* A caller that did not sample its trace: we record nothing either. */
static void test_unsampled_parent_exports_nothing(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  sbio_host *h = open_host(NULL, "00-" PARENT_TRACE "-" PARENT_SPAN "-00");
  char id[128];
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  assert_int_equal(collector_requests(c), 0);
  collector_stop(c);
}

static void test_nothing_exported_unless_configured(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  char id[128];
  /* Nothing configured (a traceparent alone configures nothing). */
  sbio_host *h = open_host(NULL, "00-" PARENT_TRACE "-" PARENT_SPAN "-01");
  assert_null(sbio_host_trace_endpoint(h));
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  /* Configured, but switched off by the environment or by the file. */
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  setenv("OTEL_SDK_DISABLED", "true", 1);
  h = open_host(NULL, NULL);
  assert_null(sbio_host_trace_endpoint(h));
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  unsetenv("OTEL_SDK_DISABLED");
  h = open_host("tracing: {enabled: false}\n", NULL);
  assert_null(sbio_host_trace_endpoint(h));
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  assert_int_equal(collector_requests(c), 0);
  assert_nothing_logged();
  collector_stop(c);
}

/* How many resource attributes are named key. */
static int resource_key_count(const cJSON *resource, const char *key) {
  int n = 0;
  const cJSON *a;
  cJSON_ArrayForEach(a, cJSON_GetObjectItem(resource, "attributes")) {
    const cJSON *k = cJSON_GetObjectItem(a, "key");
    n += cJSON_IsString(k) && !strcmp(k->valuestring, key);
  }
  return n;
}

/* Issue 11: a telemetry.sdk.name in OTEL_RESOURCE_ATTRIBUTES gave two, and
 * /v1/traces landed after the base URL's query string. */
static void test_resource_keys_once_and_query_kept(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  char base[256];
  snprintf(base, sizeof base, "%s/otlp?tenant=acme", collector_url(c));
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", base, 1);
  setenv("OTEL_RESOURCE_ATTRIBUTES",
         "telemetry.sdk.name=other,telemetry.sdk.version=9,deployment.environment=a,deployment.environment=b,"
         "service.name=from-attributes",
         1);
  sbio_host *h = open_host(NULL, NULL);
  char expect_url[300];
  snprintf(expect_url, sizeof expect_url, "%s/otlp/v1/traces", collector_url(c));
  assert_string_equal(sbio_host_trace_endpoint(h), expect_url); /* shown without the query */
  char id[128];
  run_workload(h, id, sizeof id);
  sbio_host_close(h);
  assert_true(collector_requests(c) > 0);
  for (size_t i = 0; i < collector_requests(c); i++) {
    assert_string_equal(collector_path(c, i), "/otlp/v1/traces?tenant=acme");
    const cJSON *rs = cJSON_GetArrayItem(cJSON_GetObjectItem(collector_body(c, i), "resourceSpans"), 0);
    const cJSON *resource = cJSON_GetObjectItem(rs, "resource");
    const char *keys[] = {"service.name", "telemetry.sdk.name", "telemetry.sdk.version", "deployment.environment"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
      if (resource_key_count(resource, keys[k]) != 1)
        fail_msg("resource attribute %s appears %d times", keys[k], resource_key_count(resource, keys[k]));
    assert_string_equal(otlp_attr_string(resource, "telemetry.sdk.name"), "sandboxio");
    assert_string_equal(otlp_attr_string(resource, "telemetry.sdk.version"), sbio_version());
    assert_string_equal(otlp_attr_string(resource, "deployment.environment"), "b"); /* the later one */
    assert_string_equal(otlp_attr_string(resource, "service.name"), "from-attributes");
  }
  assert_nothing_logged();
  collector_stop(c);
}

/* Every span arrives, in batches no larger than asked. */
static void test_batches(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "4", 1);
  setenv("OTEL_BSP_SCHEDULE_DELAY", "60000", 1); /* only full batches, and the flush at close */
  sbio_host *h = open_host(NULL, NULL);
  char id[128];
  for (int i = 0; i < 5; i++) run_workload(h, id, sizeof id);
  /* 30 spans: 7 full batches go out before close without waiting. */
  assert_true(collector_wait_spans(c, 28, 10.0));
  sbio_host_close(h);
  assert_int_equal(collector_spans(c, NULL, 0), 30);
  check_all_requests(c);
  for (size_t i = 0; i < collector_requests(c); i++) {
    const cJSON *rs = cJSON_GetArrayItem(cJSON_GetObjectItem(collector_body(c, i), "resourceSpans"), 0);
    const cJSON *ss = cJSON_GetArrayItem(cJSON_GetObjectItem(rs, "scopeSpans"), 0);
    assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(ss, "spans")) <= 4);
  }
  collector_stop(c);
}

/* Operations take the same time whatever the collector does. */
static double workload_seconds(sbio_host *h) {
  char id[128];
  double t0 = sbt_now();
  run_workload(h, id, sizeof id);
  return sbt_now() - t0;
}

static void test_unreachable_collector(void **state) {
  (void)state;
  char url[128];
  int fd = collector_unused_url(url, sizeof url);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url, 1);
  sbio_host *h = open_host(NULL, NULL);
  for (int i = 0; i < 5; i++) assert_true(workload_seconds(h) < 8.0); /* not the 10 s export timeout */
  double t0 = sbt_now();
  sbio_host_close(h);
  assert_true(sbt_now() - t0 < 8.0);
  close(fd);
  assert_true(sbt_lines_contain(&logged, "spans were not exported to "));
  assert_true(sbt_lines_contain(&logged, "failed requests"));
  assert_true(sbt_lines_contain(&logged, "cannot send spans to "));
}

static void test_collector_error_status(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 503, 0);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  sbio_host *h = open_host(NULL, NULL);
  char id[128];
  /* The failure is reported (once) with a later operation. */
  double until = sbt_now() + 10;
  int reported = 0;
  while (!reported && sbt_now() < until) {
    run_workload(h, id, sizeof id);
    reported = sbt_lines_contain(&logged, "span export failing: the collector at ");
  }
  assert_true(reported);
  sbio_host_close(h);
  assert_true(sbt_lines_contain(&logged, "answered HTTP 503"));
  assert_int_equal(sbt_lines_count(&logged, "span export failing"), 1); /* once per run of failures */
  check_all_requests(c);
  collector_stop(c);
}

/* A collector that never answers: operations are not held up, and host
 * close waits no longer than the export timeout. */
static void test_blackhole_collector_bounds_close(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_BLACKHOLE, 200, 0);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "700", 1);
  sbio_host *h = open_host(NULL, NULL);
  for (int i = 0; i < 5; i++) assert_true(workload_seconds(h) < 8.0);
  double t0 = sbt_now();
  sbio_host_close(h);
  double took = sbt_now() - t0;
  assert_true(took < 8.0); /* the 0.7 s export timeout, not the default 10 s, nor for ever */
  assert_true(sbt_lines_contain(&logged, "spans were not exported"));
  collector_stop(c);
}

/* A full queue drops the oldest spans and says how many. */
static void test_queue_overflow_drops_oldest(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 400);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  setenv("OTEL_BSP_MAX_QUEUE_SIZE", "3", 1);
  setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "1", 1);
  setenv("OTEL_BSP_SCHEDULE_DELAY", "1", 1);
  sbio_host *h = open_host(NULL, NULL);
  for (int i = 0; i < 4; i++) assert_true(workload_seconds(h) < 8.0);
  sbio_host_close(h);
  size_t got = collector_spans(c, NULL, 0);
  assert_true(got < 24);
  assert_true(sbt_lines_contain(&logged, "queue full"));
  check_all_requests(c);
  /* The newest span (the final kill) is never the one dropped. */
  const cJSON *spans[MAX_SPANS];
  size_t n = collector_spans(c, spans, MAX_SPANS);
  assert_true(n > 0);
  assert_non_null(span_named(spans, n, "execute_tool kill"));
  collector_stop(c);
}

/* Operations from many threads on one host: every span arrives once. */
typedef struct {
  sbio_host *h;
} worker_arg;

static void *worker(void *arg) {
  worker_arg *w = arg;
  char id[128];
  for (int i = 0; i < 5; i++) run_workload(w->h, id, sizeof id);
  return NULL;
}

static void test_threads(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_url(c), 1);
  sbio_host *h = open_host(NULL, NULL);
  pthread_t t[4];
  worker_arg w = {h};
  for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&t[i], NULL, worker, &w), 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  sbio_host_close(h);
  assert_int_equal(collector_spans(c, NULL, 0), 4 * 5 * 6);
  check_all_requests(c);
  collector_stop(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_libcurl_loaded_only_when_exporting, reset),
      cmocka_unit_test_setup(test_spans_describe_operations, reset),
      cmocka_unit_test_setup(test_traceparent_makes_children, reset),
      cmocka_unit_test_setup(test_malformed_traceparent_is_ignored, reset),
      cmocka_unit_test_setup(test_unsampled_parent_exports_nothing, reset),
      cmocka_unit_test_setup(test_nothing_exported_unless_configured, reset),
      cmocka_unit_test_setup(test_resource_keys_once_and_query_kept, reset),
      cmocka_unit_test_setup(test_batches, reset),
      cmocka_unit_test_setup(test_unreachable_collector, reset),
      cmocka_unit_test_setup(test_collector_error_status, reset),
      cmocka_unit_test_setup(test_blackhole_collector_bounds_close, reset),
      cmocka_unit_test_setup(test_queue_overflow_drops_oldest, reset),
      cmocka_unit_test_setup(test_threads, reset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
