/* SPDX-License-Identifier: MIT */
/* Span export settings: YAML keys overlaid with the OTEL_* environment
 * variables (core/src/trace_settings.c). Each test sets the variables it
 * needs and clears every one first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "trace_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static char warnings[4096];

static void collect(void *user, const char *message) {
  (void)user;
  size_t used = strlen(warnings);
  snprintf(warnings + used, sizeof warnings - used, "%s\n", message);
}

static int reset(void **state) {
  (void)state;
  for (size_t i = 0; otel_vars[i]; i++) unsetenv(otel_vars[i]);
  warnings[0] = '\0';
  return 0;
}

static sbio__config config_from(const char *yaml) {
  sbio__config cfg;
  sbio__config_init(&cfg);
  if (yaml) {
    sbio_error *err = sbio_error_new();
    sbio_code rc = sbio__config_merge_buffer(&cfg, "t.yaml", yaml, strlen(yaml), err);
    if (rc) fail_msg("%s", sbio_error_message(err));
    sbio_error_free(err);
  }
  return cfg;
}

static void load(sbio__trace_settings *s, const char *yaml) {
  sbio__config cfg = config_from(yaml);
  assert_int_equal(sbio__trace_settings_load(s, &cfg, collect, NULL), SBIO_OK);
  sbio__config_free(&cfg);
}

static void test_nothing_configured_exports_nothing(void **state) {
  (void)state;
  sbio__trace_settings s;
  load(&s, NULL);
  assert_int_equal(s.export_on, 0);
  assert_non_null(strstr(s.off_reason, "no endpoint"));
  assert_null(s.url);
  sbio__trace_settings_free(&s);
  /* A service name alone configures nothing. */
  setenv("OTEL_SERVICE_NAME", "svc", 1);
  load(&s, "tracing: {service_name: x}\n");
  assert_int_equal(s.export_on, 0);
  sbio__trace_settings_free(&s);
  assert_string_equal(warnings, "");
}

static void test_endpoint_precedence(void **state) {
  (void)state;
  sbio__trace_settings s;
  load(&s, "tracing: {enabled: true}\n");
  assert_int_equal(s.export_on, 1);
  assert_string_equal(s.url, "http://localhost:4318/v1/traces");
  sbio__trace_settings_free(&s);

  load(&s, "tracing: {endpoint: 'http://yaml.test:4318/'}\n");
  assert_string_equal(s.url, "http://yaml.test:4318/v1/traces");
  sbio__trace_settings_free(&s);

  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env.test:4318", 1);
  load(&s, "tracing: {endpoint: 'http://yaml.test:4318'}\n");
  assert_string_equal(s.url, "http://env.test:4318/v1/traces");
  sbio__trace_settings_free(&s);

  setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "https://u:p@signal.test/custom/path?x=1", 1);
  load(&s, NULL);
  assert_string_equal(s.url, "https://u:p@signal.test/custom/path?x=1"); /* used as is */
  assert_string_equal(s.display_url, "https://signal.test/custom/path"); /* no credentials */
  sbio__trace_settings_free(&s);
  assert_string_equal(warnings, "");
}

static void test_off_switches(void **state) {
  (void)state;
  sbio__trace_settings s;
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env.test:4318", 1);
  load(&s, "tracing: {enabled: false}\n");
  assert_int_equal(s.export_on, 0);
  assert_non_null(strstr(s.off_reason, "tracing.enabled"));
  sbio__trace_settings_free(&s);

  setenv("OTEL_SDK_DISABLED", "TRUE", 1);
  load(&s, "tracing: {enabled: true}\n");
  assert_int_equal(s.export_on, 0);
  assert_string_equal(s.off_reason, "OTEL_SDK_DISABLED=true");
  sbio__trace_settings_free(&s);

  setenv("OTEL_SDK_DISABLED", "false", 1);
  setenv("OTEL_TRACES_EXPORTER", "none", 1);
  load(&s, NULL);
  assert_int_equal(s.export_on, 0);
  sbio__trace_settings_free(&s);

  setenv("OTEL_TRACES_EXPORTER", "zipkin", 1);
  load(&s, NULL);
  assert_int_equal(s.export_on, 0);
  assert_non_null(strstr(warnings, "OTEL_TRACES_EXPORTER=\"zipkin\" is not supported"));
  sbio__trace_settings_free(&s);

  setenv("OTEL_TRACES_EXPORTER", "otlp", 1);
  load(&s, NULL);
  assert_int_equal(s.export_on, 1);
  sbio__trace_settings_free(&s);
}

static const char *header(const sbio__trace_settings *s, const char *name) {
  return sbio__kvlist_get(&s->headers, name);
}

static void test_headers(void **state) {
  (void)state;
  sbio__trace_settings s;
  setenv("OTEL_EXPORTER_OTLP_HEADERS", " authorization = Basic%20c2VjcmV0 ,x-team=a,bad entry,=novalue, ", 1);
  setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "X-Team=b,x-evil=a%0d%0aInjected: 1", 1);
  load(&s, "tracing:\n  endpoint: http://c.test\n  headers: {Authorization: from-file, X-Only-File: yes}\n");
  assert_int_equal(s.export_on, 1);
  assert_string_equal(header(&s, "Authorization"), "Basic c2VjcmV0"); /* env replaced the file's, any case */
  assert_string_equal(header(&s, "X-Only-File"), "yes");
  assert_string_equal(header(&s, "x-team"), "b"); /* signal-specific wins */
  assert_null(header(&s, "x-evil"));
  assert_int_equal(s.headers.n, 3);
  /* Bad entries are named by position, never by value. */
  assert_non_null(strstr(warnings, "ignoring entry 3 of OTEL_EXPORTER_OTLP_HEADERS"));
  assert_non_null(strstr(warnings, "ignoring entry 4 of OTEL_EXPORTER_OTLP_HEADERS"));
  assert_non_null(strstr(warnings, "ignoring entry 2 of OTEL_EXPORTER_OTLP_TRACES_HEADERS"));
  assert_null(strstr(warnings, "c2VjcmV0"));
  assert_null(strstr(warnings, "Injected"));
  sbio__trace_settings_free(&s);
}

static void test_service_name_and_resource(void **state) {
  (void)state;
  sbio__trace_settings s;
  setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-resource,deployment.environment=prod%2Feu", 1);
  load(&s, "tracing: {endpoint: 'http://c.test'}\n");
  assert_string_equal(s.service_name, "from-resource");
  assert_string_equal(sbio__kvlist_get(&s.resource, "deployment.environment"), "prod/eu");
  sbio__trace_settings_free(&s);
  load(&s, "tracing: {endpoint: 'http://c.test', service_name: from-yaml}\n");
  assert_string_equal(s.service_name, "from-yaml");
  sbio__trace_settings_free(&s);
  setenv("OTEL_SERVICE_NAME", "from-env", 1);
  load(&s, "tracing: {endpoint: 'http://c.test', service_name: from-yaml}\n");
  assert_string_equal(s.service_name, "from-env");
  sbio__trace_settings_free(&s);
  unsetenv("OTEL_SERVICE_NAME");
  unsetenv("OTEL_RESOURCE_ATTRIBUTES");
  load(&s, "tracing: {endpoint: 'http://c.test'}\n");
  assert_string_equal(s.service_name, "unknown_service:unit_test_trace_settings");
  sbio__trace_settings_free(&s);
}

static void test_numbers_and_bad_values(void **state) {
  (void)state;
  sbio__trace_settings s;
  load(&s, "tracing: {enabled: true}\n");
  assert_int_equal(s.timeout_ms, 10000);
  assert_int_equal(s.schedule_delay_ms, 5000);
  assert_int_equal(s.max_queue, 2048);
  assert_int_equal(s.max_batch, 512);
  sbio__trace_settings_free(&s);

  setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "2500", 1);
  setenv("OTEL_BSP_SCHEDULE_DELAY", "50", 1);
  setenv("OTEL_BSP_MAX_QUEUE_SIZE", "10", 1);
  setenv("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "100", 1);
  load(&s, "tracing: {enabled: true}\n");
  assert_int_equal(s.timeout_ms, 2500);
  assert_int_equal(s.schedule_delay_ms, 50);
  assert_int_equal(s.max_queue, 10);
  assert_int_equal(s.max_batch, 10); /* never more than the queue */
  sbio__trace_settings_free(&s);

  setenv("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "soon", 1);
  setenv("OTEL_BSP_SCHEDULE_DELAY", "-1", 1);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318", 1);
  setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", 1);
  load(&s, "tracing: {endpoint: 'http://fallback.test'}\n");
  assert_int_equal(s.timeout_ms, 10000);
  assert_int_equal(s.schedule_delay_ms, 5000);
  assert_string_equal(s.url, "http://fallback.test/v1/traces");
  assert_non_null(strstr(warnings, "ignoring OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=\"soon\""));
  assert_non_null(strstr(warnings, "ignoring OTEL_BSP_SCHEDULE_DELAY=\"-1\""));
  assert_non_null(strstr(warnings, "ignoring OTEL_EXPORTER_OTLP_ENDPOINT: not an http:// or https:// URL"));
  assert_non_null(strstr(warnings, "OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\": sandboxio exports OTLP over HTTP with "
                                   "JSON encoding only"));
  sbio__trace_settings_free(&s);
}

/* Issue 11: "/v1/traces" went after a base URL's query string, and an
 * empty port was taken. */
static void test_base_url_query_and_port(void **state) {
  (void)state;
  sbio__trace_settings s;
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env.test:4318/base?tenant=a&x=1", 1);
  load(&s, NULL);
  assert_string_equal(s.url, "http://env.test:4318/base/v1/traces?tenant=a&x=1");
  assert_string_equal(s.display_url, "http://env.test:4318/base/v1/traces");
  sbio__trace_settings_free(&s);
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env.test:4318/?x=1", 1);
  load(&s, NULL);
  assert_string_equal(s.url, "http://env.test:4318/v1/traces?x=1");
  sbio__trace_settings_free(&s);
  load(&s, "tracing: {endpoint: 'https://yaml.test?x=1'}\n");
  assert_string_equal(s.url, "http://env.test:4318/v1/traces?x=1");
  sbio__trace_settings_free(&s);
  unsetenv("OTEL_EXPORTER_OTLP_ENDPOINT");
  load(&s, "tracing: {endpoint: 'https://yaml.test?x=1'}\n");
  assert_string_equal(s.url, "https://yaml.test/v1/traces?x=1");
  sbio__trace_settings_free(&s);
  assert_string_equal(warnings, "");

  /* An empty port is refused by name, and the reason export is off says
   * which variable was not usable. */
  setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://env.test:/", 1);
  load(&s, NULL);
  assert_int_equal(s.export_on, 0);
  assert_non_null(strstr(warnings, "ignoring OTEL_EXPORTER_OTLP_ENDPOINT: the port after ':' is empty"));
  assert_non_null(strstr(s.off_reason, "OTEL_EXPORTER_OTLP_ENDPOINT is not a usable URL"));
  sbio__trace_settings_free(&s);
  /* With another endpoint configured, that one is used. */
  load(&s, "tracing: {endpoint: 'http://yaml.test'}\n");
  assert_string_equal(s.url, "http://yaml.test/v1/traces");
  sbio__trace_settings_free(&s);
}

static void test_url_validation(void **state) {
  (void)state;
  assert_true(sbio__otlp_url_valid("http://a:1/"));
  assert_true(sbio__otlp_url_valid("http://a:65535?q"));
  assert_true(sbio__otlp_url_valid("http://u:p@a"));
  assert_true(sbio__otlp_url_valid("http://[::1]"));
  assert_false(sbio__otlp_url_valid("http://a:"));
  assert_false(sbio__otlp_url_valid("http://a:/x"));
  assert_false(sbio__otlp_url_valid("http://a:?x"));
  assert_false(sbio__otlp_url_valid("http://a:0"));
  assert_false(sbio__otlp_url_valid("http://a:65536"));
  assert_false(sbio__otlp_url_valid("http://a:4318x"));
  assert_false(sbio__otlp_url_valid("http://[::1]:"));
  assert_false(sbio__otlp_url_valid("http://[::1"));
  assert_false(sbio__otlp_url_valid("http://u@:80"));
  assert_true(sbio__otlp_url_valid("http://a"));
  assert_true(sbio__otlp_url_valid("https://a.b:4318/x?y#z"));
  assert_true(sbio__otlp_url_valid("http://[::1]:4318"));
  assert_false(sbio__otlp_url_valid("http://"));
  assert_false(sbio__otlp_url_valid("http:///path"));
  assert_false(sbio__otlp_url_valid("http://:80"));
  assert_false(sbio__otlp_url_valid("HTTP://a"));
  assert_false(sbio__otlp_url_valid("unix:///run/otel.sock"));
  assert_false(sbio__otlp_url_valid("http://a b"));
  assert_false(sbio__otlp_url_valid("http://a\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_nothing_configured_exports_nothing, reset),
      cmocka_unit_test_setup(test_endpoint_precedence, reset),
      cmocka_unit_test_setup(test_off_switches, reset),
      cmocka_unit_test_setup(test_headers, reset),
      cmocka_unit_test_setup(test_service_name_and_resource, reset),
      cmocka_unit_test_setup(test_numbers_and_bad_values, reset),
      cmocka_unit_test_setup(test_base_url_query_and_port, reset),
      cmocka_unit_test_setup(test_url_validation, reset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
