/* SPDX-License-Identifier: MIT */
/* `sbio doctor`: the real binary against test backends (probebk.c) whose
 * probe answers as each test asks. Every run uses an allow-list config
 * (backends_default: disabled) so that whatever other backends the build
 * holds cannot change the outcome. */
#include "../cli/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *config_with(const char *name, const char *body) {
  char text[4096];
  snprintf(text, sizeof text, "backends_default: disabled\n%s", body);
  return h_write(name, text);
}

static int marker(const char *name) {
  char file[256];
  snprintf(file, sizeof file, "%s", name);
  char *p = h_path(file);
  int exists = access(p, F_OK) == 0;
  free(p);
  return exists;
}

static void clear_markers(void) {
  const char *names[] = {"docker.opened", "docker.probed",  "e2b.opened", "e2b.probed",
                         "oldie.probed",  "noprobe.opened", NULL};
  for (size_t i = 0; names[i]; i++) {
    char *p = h_path(names[i]);
    unlink(p);
    free(p);
  }
}

/* Runs `sbio --backend-path TEST --config CONFIG doctor ARGS...` with extra
 * environment entries. */
static void doctor(h_result *r, const char *config, const char *const *env, const char *const *args) {
  clear_markers();
  char dir_env[4200];
  snprintf(dir_env, sizeof dir_env, "PROBEBK_DIR=%s", h_scratch());
  const char *full_env[16] = {dir_env};
  size_t n = 1;
  for (size_t i = 0; env && env[i] && n < 15; i++) full_env[n++] = env[i];
  full_env[n] = NULL;
  const char *argv[16] = {"--backend-path", DOCTOR_BACKENDS};
  size_t a = 2;
  if (config) {
    argv[a++] = "--config";
    argv[a++] = config;
  }
  argv[a++] = "doctor";
  for (size_t i = 0; args && args[i] && a < 15; i++) argv[a++] = args[i];
  argv[a] = NULL;
  h_opts o = {.env = full_env};
  h_run(r, &o, argv);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ENV(...) ((const char *const[]){__VA_ARGS__, NULL})

static const cJSON *backend(const cJSON *doc, const char *name) {
  const cJSON *b;
  cJSON_ArrayForEach(b, cJSON_GetObjectItem(doc, "backends")) {
    if (!strcmp(cJSON_GetObjectItem(b, "name")->valuestring, name) &&
        strcmp(cJSON_GetObjectItem(b, "status")->valuestring, "shadowed") != 0)
      return b;
  }
  fail_msg("no backend %s in the report", name);
  return NULL;
}

static const char *field(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItem(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_healthy(void **state) {
  (void)state;
  char *cfg = config_with("ok.yaml", "backends: {docker: {enabled: true}, fake: {enabled: true}}\n");
  h_result r;
  doctor(&r, cfg, NULL, NULL);
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "sbio 0.1.0 (libsandboxio 0.1.0)\n"));
  assert_true(h_contains(r.out, r.out_len, cfg));
  assert_true(h_contains(r.out, r.out_len, DOCTOR_BACKENDS));
  /* The probe's detail, cut to one line. */
  assert_true(h_contains(r.out, r.out_len, "probe ok (docker) second line"));
  assert_true(h_contains(r.out, r.out_len, "DOCKER_HOST unset"));
  assert_true(h_contains(r.out, r.out_len, "\nall enabled backends are healthy\n"));
  assert_false(h_contains(r.out, r.out_len, "problems:"));
  assert_int_equal(r.err_len, 0);
  assert_true(marker("docker.probed"));
  h_result_free(&r);
  free(cfg);
}

static void test_unreachable_docker(void **state) {
  (void)state;
  char *cfg = config_with("docker.yaml", "backends: {docker: {enabled: true}}\n");
  h_result r;
  doctor(&r, cfg, ENV("PROBEBK_DOCKER=fail"), NULL);
  H_ASSERT_STATUS(&r, 69);
  assert_true(h_contains(r.out, r.out_len,
                         "\nproblems:\n  docker: unreachable: [SBX_E1202] cannot reach the daemon at "
                         "unix:///nowhere.sock\n    fix: start the daemon, or point the backend at a running one\n"));
  assert_true(h_contains(r.out, r.out_len, "\n1 problem found; the fixes are above\n"));
  assert_true(h_contains(r.out, r.out_len, "PROBLEM"));
  h_result_free(&r);

  doctor(&r, cfg, ENV("PROBEBK_DOCKER=fail"), ARGS("--json"));
  H_ASSERT_STATUS(&r, 69);
  cJSON *doc = h_json(&r);
  assert_int_equal(cJSON_GetObjectItem(doc, "schema_version")->valueint, 1);
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(doc, "ok")));
  const cJSON *d = backend(doc, "docker");
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(d, "healthy")));
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(d, "reachable")));
  assert_string_equal(field(d, "status"), "loaded");
  assert_string_equal(field(d, "tier"), "CONTAINER");
  assert_string_equal(field(cJSON_GetObjectItem(d, "source"), "verified_on"), "2026-11-01");
  assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "credentials"), "DOCKER_HOST")));
  const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "problems"), 0);
  assert_string_equal(field(p, "backend"), "docker");
  assert_string_equal(field(p, "fix"), "start the daemon, or point the backend at a running one");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "config"), "error")));
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

/* Credentials are reported by name, set or unset, never by value; cloud
 * backends are asked only with --probe. */
/* A backend's declared credential variables (its note, ABI 1.4) are
 * listed by name with whether they are set, even when no first-party
 * table knows them; their values appear nowhere. The fake declares
 * SBIO_FAKE_TOKEN. */
static void test_declared_credentials_are_listed_by_name(void **state) {
  (void)state;
  h_result r;
  doctor(&r, NULL, ENV("SBIO_FAKE_TOKEN=fk-canary-value-9921"), ARGS("--json"));
  assert_false(h_contains(r.out, r.out_len, "fk-canary"));
  assert_false(h_contains(r.err, r.err_len, "fk-canary"));
  cJSON *doc = h_json(&r);
  const cJSON *f = backend(doc, "fake");
  if (!f) skip(); /* the fake is not on this search path */
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(f, "credentials"), "SBIO_FAKE_TOKEN")));
  cJSON_Delete(doc);
  h_result_free(&r);
}

static void test_cloud_credentials_and_probe(void **state) {
  (void)state;
  char *cfg = config_with("e2b.yaml", "backends: {e2b: {enabled: true}}\n");
  h_result r;
  doctor(&r, cfg, NULL, NULL);
  H_ASSERT_STATUS(&r, 69);
  assert_true(h_contains(r.out, r.out_len, "  e2b: E2B_API_KEY is not set\n    fix: export E2B_API_KEY"));
  assert_true(h_contains(r.out, r.out_len, "not checked: credentials missing"));
  assert_false(marker("e2b.probed"));
  h_result_free(&r);

  doctor(&r, cfg, ENV("E2B_API_KEY=sekret-value-123"), ARGS("--json"));
  H_ASSERT_STATUS(&r, 0);
  assert_false(h_contains(r.out, r.out_len, "sekret"));
  cJSON *doc = h_json(&r);
  const cJSON *e = backend(doc, "e2b");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "credentials"), "E2B_API_KEY")));
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "reachable")));
  assert_string_equal(field(e, "reachability"), "not probed: asking may contact the provider; use --probe");
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(e, "healthy")));
  assert_string_equal(field(e, "tier"), "MICROVM");
  /* The variable's name is listed among those set; its value nowhere. */
  const cJSON *env = cJSON_GetObjectItem(doc, "environment"), *name;
  int listed = 0;
  cJSON_ArrayForEach(name, env) listed |= !strcmp(name->valuestring, "E2B_API_KEY");
  assert_true(listed);
  cJSON_Delete(doc);
  assert_false(marker("e2b.probed"));
  h_result_free(&r);

  doctor(&r, cfg, ENV("E2B_API_KEY=sekret-value-123"), ARGS("--probe"));
  H_ASSERT_STATUS(&r, 0);
  assert_true(marker("e2b.probed"));
  assert_true(h_contains(r.out, r.out_len, "probe ok (e2b)"));
  assert_true(h_contains(r.out, r.out_len, "E2B_API_KEY set"));
  assert_false(h_contains(r.out, r.out_len, "sekret"));
  assert_false(h_contains(r.err, r.err_len, "sekret"));
  h_result_free(&r);
  free(cfg);
}

/* With settings.api_key_env, the variable doctor asks for is the one the
 * backend reads, not E2B_API_KEY. While that variable is unset, the
 * setting's text is never shown (it may be the key itself, pasted where
 * its name belongs): the problem names the setting instead. */
static void test_the_hint_names_the_variable_api_key_env_names(void **state) {
  (void)state;
  static const char *const pasted = "e2b_5ecretPastedIntoApiKeyEnvForDoctor42";
  char body[300];
  snprintf(body, sizeof body, "backends: {e2b: {enabled: true, settings: {api_key_env: %s}}}\n", pasted);
  char *cfg = config_with("e2b-pasted.yaml", body);
  h_result r;
  /* E2B_API_KEY being set does not help: the backend does not read it. */
  doctor(&r, cfg, ENV("E2B_API_KEY=sekret-value-123"), NULL);
  H_ASSERT_STATUS(&r, 69);
  assert_true(h_contains(r.out, r.out_len,
                         "  e2b: the variable that settings.api_key_env names is not set\n"
                         "    fix: export the variable that settings.api_key_env names with an API key from the E2B "
                         "dashboard, or disable the backend\n"));
  assert_false(h_contains(r.out, r.out_len, "fix: export E2B_API_KEY"));
  assert_true(h_contains(r.out, r.out_len, "not checked: credentials missing"));
  h_result_free(&r);
  doctor(&r, cfg, NULL, ARGS("--json"));
  H_ASSERT_STATUS(&r, 69);
  if (h_contains(r.out, r.out_len, pasted)) fail_msg("the setting's text is in doctor's output:\n%s", r.out);
  assert_false(h_contains(r.err, r.err_len, pasted));
  h_result_free(&r);
  free(cfg);

  cfg = config_with("e2b-named.yaml", "backends: {e2b: {enabled: true, settings: {api_key_env: MY_E2B_KEY}}}\n");
  doctor(&r, cfg, NULL, NULL);
  H_ASSERT_STATUS(&r, 69);
  assert_true(h_contains(r.out, r.out_len, "  e2b: the variable that settings.api_key_env names is not set\n"));
  assert_false(h_contains(r.out, r.out_len, "MY_E2B_KEY"));
  h_result_free(&r);
  /* Set, it is named, and it is enough: E2B_API_KEY is not asked for. */
  doctor(&r, cfg, ENV("MY_E2B_KEY=sekret-value-456"), NULL);
  H_ASSERT_STATUS(&r, 0);
  assert_false(h_contains(r.out, r.out_len, "is not set"));
  assert_true(h_contains(r.out, r.out_len, "MY_E2B_KEY set"));
  assert_false(h_contains(r.out, r.out_len, "sekret"));
  h_result_free(&r);
  free(cfg);

  /* Named explicitly, the default is named as ever. */
  cfg = config_with("e2b-default.yaml", "backends: {e2b: {enabled: true, settings: {api_key_env: E2B_API_KEY}}}\n");
  doctor(&r, cfg, NULL, NULL);
  H_ASSERT_STATUS(&r, 69);
  assert_true(
      h_contains(r.out, r.out_len, "  e2b: E2B_API_KEY is not set\n    fix: export E2B_API_KEY with an API key"));
  h_result_free(&r);
  free(cfg);
}

/* A broken configuration is reported, and the rest of the report is made
 * with the built-in defaults. */
static void test_broken_config(void **state) {
  (void)state;
  char *cfg = h_write("broken.yaml", "backends:\n  docker:\n    enabeld: true\n");
  h_result r;
  doctor(&r, cfg, NULL, NULL);
  H_ASSERT_STATUS(&r, 78);
  char expect[4400];
  snprintf(expect, sizeof expect, "  %s:3:5: unknown key \"enabeld\" in backends.docker (did you mean \"enabled\"?)\n",
           cfg);
  assert_true(h_contains(r.out, r.out_len, expect));
  assert_true(h_contains(r.out, r.out_len, "could not be read (see problems)"));
  assert_true(h_contains(r.out, r.out_len, "\nfake ")); /* backends are still listed */
  assert_true(h_contains(r.out, r.out_len, "\ndocker "));
  h_result_free(&r);

  doctor(&r, cfg, NULL, ARGS("--json"));
  H_ASSERT_STATUS(&r, 78);
  cJSON *doc = h_json(&r);
  const cJSON *error = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "config"), "error");
  assert_string_equal(field(error, "code"), "SBX_E1000");
  assert_non_null(strstr(field(error, "message"), "unknown key \"enabeld\""));
  assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "backends")) >= 2);
  cJSON_Delete(doc);
  h_result_free(&r);
  free(cfg);
}

static void test_refused_backend(void **state) {
  (void)state;
  char *cfg = config_with("pin.yaml", "backends: {docker: {enabled: true, expect_tier: gvisor}}\n");
  h_result r;
  doctor(&r, cfg, NULL, NULL);
  H_ASSERT_STATUS(&r, 69);
  assert_true(h_contains(r.out, r.out_len,
                         "  docker: refused: expect_tier pin mismatch: expected tier GVISOR, backend provides "
                         "CONTAINER\n    fix: the provider's isolation changed or the pin is out of date: re-verify "
                         "it, then update backends.docker.expect_tier in the configuration\n"));
  assert_false(marker("docker.probed"));
  assert_false(marker("docker.opened"));
  /* The library's own warning about the refusal is not repeated. */
  assert_int_equal(r.err_len, 0);
  h_result_free(&r);
  free(cfg);
}

/* A disabled backend is listed, never loaded, and does not count. */
static void test_disabled_backend_untouched(void **state) {
  (void)state;
  char *cfg = config_with("disabled.yaml", "backends: {fake: {enabled: true}, e2b: {enabled: false}}\n");
  h_result r;
  doctor(&r, cfg, ENV("PROBEBK_DOCKER=fail"), ARGS("--json", "--probe"));
  H_ASSERT_STATUS(&r, 0); /* docker (failing) is disabled by the allow-list */
  cJSON *doc = h_json(&r);
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "ok")));
  const cJSON *d = backend(doc, "docker");
  assert_string_equal(field(d, "status"), "disabled");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(d, "healthy")));
  assert_string_equal(field(d, "reachability"), "not checked: disabled by configuration");
  /* Missing credentials of a disabled backend are no problem. */
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "problems")), 0);
  cJSON_Delete(doc);
  assert_false(marker("docker.opened"));
  assert_false(marker("e2b.opened"));
  h_result_free(&r);
  free(cfg);
}

/* A stale source is a warning: the backend still works. */
static void test_stale_source_warns(void **state) {
  (void)state;
  char *cfg = config_with("stale.yaml", "backends: {oldie: {enabled: true}, noprobe: {enabled: true}}\n");
  h_result r;
  doctor(&r, cfg, NULL, ARGS("--probe"));
  H_ASSERT_STATUS(&r, 0);
  /* Among the warnings (other backends' sources may be getting old too,
   * depending on the day the suite runs). */
  const char *warnings = strstr(r.out, "\nwarnings:\n");
  assert_non_null(warnings);
  assert_non_null(strstr(warnings, "\n  oldie: mechanism runc: "));
  assert_true(h_contains(r.out, r.out_len, "re-verify the claim against the provider's documentation"));
  assert_true(h_contains(r.out, r.out_len, "2020-01-01 (stale)"));
  assert_true(h_contains(r.out, r.out_len, "not checked: the backend has no probe operation"));
  assert_true(h_contains(r.out, r.out_len, "all enabled backends are healthy"));
  h_result_free(&r);
  free(cfg);
}

static void test_default_backend_must_exist(void **state) {
  (void)state;
  char *cfg = config_with("default.yaml", "default_backend: nosuch://img\nbackends: {fake: {enabled: true}}\n");
  h_result r;
  doctor(&r, cfg, NULL, NULL);
  H_ASSERT_STATUS(&r, 69);
  assert_true(h_contains(r.out, r.out_len, "  default_backend names nosuch, which is not installed\n    fix: "));
  h_result_free(&r);
  free(cfg);
}

static void test_environment_names_only(void **state) {
  (void)state;
  char *cfg = config_with("env.yaml", "backends: {fake: {enabled: true}}\n");
  h_result r;
  doctor(&r, cfg, ENV("OTEL_SERVICE_NAME=value-not-shown", "SBIO_TEARDOWN_GRACE=7", "UNRELATED=1"), NULL);
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "environment:  OTEL_SERVICE_NAME, SBIO_TEARDOWN_GRACE\n"));
  assert_false(h_contains(r.out, r.out_len, "value-not-shown"));
  assert_false(h_contains(r.out, r.out_len, "UNRELATED"));
  h_result_free(&r);
  free(cfg);
}

/* The tracing line gives the true reason export is off (issue 11: it said
 * "no endpoint configured" whatever switched it off). */
static void test_tracing_off_reasons(void **state) {
  (void)state;
  char *plain = config_with("trace-plain.yaml", "backends: {fake: {enabled: true}}\n");
  char *off = config_with("trace-off.yaml", "backends: {fake: {enabled: true}}\ntracing: {enabled: false}\n");
  static const char endpoint[] = "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9";
  struct {
    const char *config;
    const char *env[3];
    const char *line;
  } cases[] = {
      {plain,
       {NULL},
       "tracing:      off (no endpoint is configured (tracing.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT))\n"},
      {plain, {"OTEL_SDK_DISABLED=true", endpoint, NULL}, "tracing:      off (OTEL_SDK_DISABLED=true)\n"},
      {off, {endpoint, NULL}, "tracing:      off (tracing.enabled is false in the configuration)\n"},
      {plain,
       {"OTEL_TRACES_EXPORTER=zipkin", endpoint, NULL},
       "tracing:      off (OTEL_TRACES_EXPORTER names an exporter sandboxio does not have)\n"},
      {plain,
       {"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:/", NULL},
       "tracing:      off (OTEL_EXPORTER_OTLP_ENDPOINT is not a usable URL (see its warning), and no other endpoint "
       "is configured)\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    h_result r;
    doctor(&r, cases[i].config, cases[i].env, NULL);
    H_ASSERT_STATUS(&r, 0);
    if (!h_contains(r.out, r.out_len, cases[i].line)) fail_msg("case %zu: no line %s in:\n%s", i, cases[i].line, r.out);
    h_result_free(&r);
  }
  h_result r;
  doctor(&r, plain, ENV("OTEL_SDK_DISABLED=true", endpoint), ARGS("--json"));
  H_ASSERT_STATUS(&r, 0);
  cJSON *doc = h_json(&r);
  const cJSON *tracing = cJSON_GetObjectItem(doc, "tracing");
  assert_true(cJSON_IsNull(cJSON_GetObjectItem(tracing, "endpoint")));
  assert_string_equal(field(tracing, "off_reason"), "OTEL_SDK_DISABLED=true");
  cJSON_Delete(doc);
  h_result_free(&r);
  free(plain);
  free(off);
}

static void test_usage(void **state) {
  (void)state;
  h_result r;
  H_RUN(&r, NULL, "doctor", "--help");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "usage: sbio doctor [--json] [--probe]"));
  h_result_free(&r);
  H_RUN(&r, NULL, "doctor", "now");
  H_ASSERT_STATUS(&r, 64);
  assert_true(h_contains(r.err, r.err_len, "unexpected argument 'now'"));
  h_result_free(&r);
  H_RUN(&r, NULL, "help");
  assert_true(h_contains(r.out, r.out_len, "  doctor [--json] [--probe]"));
  h_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_healthy),
      cmocka_unit_test(test_unreachable_docker),
      cmocka_unit_test(test_declared_credentials_are_listed_by_name),
      cmocka_unit_test(test_cloud_credentials_and_probe),
      cmocka_unit_test(test_the_hint_names_the_variable_api_key_env_names),
      cmocka_unit_test(test_broken_config),
      cmocka_unit_test(test_refused_backend),
      cmocka_unit_test(test_disabled_backend_untouched),
      cmocka_unit_test(test_stale_source_warns),
      cmocka_unit_test(test_default_backend_must_exist),
      cmocka_unit_test(test_environment_names_only),
      cmocka_unit_test(test_tracing_off_reasons),
      cmocka_unit_test(test_usage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
