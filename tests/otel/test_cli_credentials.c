/* SPDX-License-Identifier: MIT */
/* A provider's echo of a declared credential never leaves the library.
 * The fake declares SBIO_FAKE_TOKEN in its note (ABI 1.4); its simulated
 * provider refuses the create with a message quoting the token, which the
 * fake passes on unredacted, as a careless backend would. The token is in
 * none of: sbio's stderr (the error, its hint, the -vv log lines), the
 * audit log, the spans sent to the collector. */
#include "../cli/harness.h"
#include "collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN "fk_live_7c1d9e0b2a4f46d3a8e5"

static void test_an_echoed_credential_reaches_no_output(void **state) {
  (void)state;
  collector *c = collector_start(COLLECTOR_ANSWER, 200, 0);
  char *audit = h_path("cred-audit.log");
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "backends:\n"
           "  fake:\n"
           "    settings:\n"
           "      simulate:\n"
           "        create_fails: \"the provider refused token " TOKEN " for this project\"\n"
           "audit:\n"
           "  path: %s\n",
           audit);
  char *cfg = h_write("cred.yaml", yaml);
  char endpoint[160];
  snprintf(endpoint, sizeof endpoint, "OTEL_EXPORTER_OTLP_ENDPOINT=%s", collector_url(c));
  const char *env[] = {endpoint, "SBIO_FAKE_TOKEN=" TOKEN, NULL};
  h_opts o = {.env = env};
  h_result r;
  H_RUN(&r, &o, "-vv", "--config", cfg, "run", "--backend", "fake://", "--", "echo", "hi");
  if (r.status == 0) fail_msg("the create succeeded");
  assert_true(h_contains(r.err, r.err_len, "the provider refused token *** for this project"));
  if (h_contains(r.err, r.err_len, TOKEN)) fail_msg("the token is in stderr:\n%s", r.err);
  char *text = h_read(audit);
  assert_non_null(strstr(text, "\"event\":\"create_failed\""));
  if (strstr(text, TOKEN)) fail_msg("the token is in the audit log:\n%s", text);
  free(text);
  assert_true(collector_wait_spans(c, 1, 10));
  for (size_t i = 0; i < collector_requests(c); i++) {
    const char *body = collector_raw_body(c, i);
    if (body && strstr(body, TOKEN)) fail_msg("the token is in span export %zu:\n%s", i, body);
  }
  const cJSON *spans[8];
  assert_true(collector_spans(c, spans, 8) >= 1);
  h_result_free(&r);
  free(cfg);
  free(audit);
  collector_stop(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_an_echoed_credential_reaches_no_output),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
