/* SPDX-License-Identifier: MIT */
/* The daytona backend's pure parts, from its own sources: quoting,
 * allow-lists, records, settings (with the SDK's reader and URL policy),
 * the create body, error messages, path folding, and the operation
 * context (the key, cancellation by a kill). Retries, Retry-After and the
 * URL policy itself are the SDK's, tested in tests/sdk. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "allow.h"
#include "ctx.h"
#include "errmap.h"
#include "record.h"
#include "request.h"
#include "shquote.h"
#include "toolbox.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void test_shell_join(void **state) {
  (void)state;
  const char *argv[] = {"echo", "plain-word_1.2,3:4@5%6+7/8", "two words", "it's", "", "$X", "a=b", "~", "x\ny"};
  char *s = sbio__dt_shell_join(argv, 9);
  assert_string_equal(s, "echo plain-word_1.2,3:4@5%6+7/8 'two words' 'it'\\''s' '' '$X' 'a=b' '~' 'x\ny'");
  free(s);
}

static void test_allow_list_split(void **state) {
  (void)state;
  const char *ok[] = {"1.2.3.4", "10.0.0.0/8", "example.com", "*.pythonhosted.org", "a-b.c-d.io"};
  dt_allow a;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__dt_allow_split(ok, 5, &a, &err), SBIO_OK);
  assert_string_equal(a.cidrs, "1.2.3.4/32,10.0.0.0/8");
  assert_string_equal(a.domains, "example.com,*.pythonhosted.org,a-b.c-d.io");
  sbio__dt_allow_free(&a);
  const char *bad[] = {"::1",      "1.2.3.4/40", "1.2.3.4/", "host:80",   "-bad.com",
                       "bad-.com", "localhost",  "a..b",     "*.*.x.com", "x y.com"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    assert_int_equal(sbio__dt_allow_split(&bad[i], 1, &a, &err), SBIO_E_CONFIG);
    assert_null(a.cidrs);
    assert_null(a.domains);
  }
}

static void test_time_and_records(void **state) {
  (void)state;
  assert_int_equal(sbio__dt_parse_time("1970-01-01T00:00:00Z"), 0);
  assert_int_equal(sbio__dt_parse_time("2026-11-29T09:25:32.773Z"), 1795944332);
  assert_int_equal(sbio__dt_parse_time("2026-11-29T10:25:32+01:00"), 1795944332);
  assert_int_equal(sbio__dt_parse_time("2026-11-29 09:25:32"), -1);
  assert_int_equal(sbio__dt_parse_time("2026-11-29T09:25:32Zjunk"), -1);
  cJSON *doc = cJSON_Parse("{\"id\":\"abc\",\"state\":\"started\",\"labels\":{\"a\":\"1\",\"n\":2},"
                           "\"createdAt\":\"1970-01-01T00:01:00Z\",\"toolboxProxyUrl\":\"https://p/toolbox\"}");
  dt_record r;
  assert_int_equal(sbio__dt_record_parse(doc, &r, NULL), 0);
  assert_string_equal(r.id, "abc");
  assert_string_equal(r.state, "started");
  assert_int_equal(r.created_at, 60);
  assert_int_equal(r.n_labels, 1); /* non-string label values are skipped */
  assert_string_equal(sbio__dt_record_label(&r, "a"), "1");
  assert_null(sbio__dt_record_label(&r, "n"));
  sbio__dt_record_free(&r);
  cJSON_Delete(doc);
  doc = cJSON_Parse("{\"id\":\"\"}");
  assert_int_equal(sbio__dt_record_parse(doc, &r, NULL), -1);
  cJSON_Delete(doc);
  assert_int_equal(sbio__dt_record_parse(NULL, &r, NULL), -1);
}

static void test_normalise(void **state) {
  (void)state;
  const char *cases[][2] = {
      {"/a/b/../c", "/a/c"},    {"/../..", "/"},      {"//x///y/", "/x/y"},    {"/a/./b/.", "/a/b"}, {"/", "/"},
      {"/a/b/c/../../..", "/"}, {"/..a/b", "/..a/b"}, {"/a/.../b", "/a/.../b"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", cases[i][0]);
    sbio__dt_normalise(buf);
    assert_string_equal(buf, cases[i][1]);
  }
}

static void test_settings(void **state) {
  (void)state;
  dt_settings s;
  sbio_bk_error err = {.size = sizeof err};
  unsetenv("DAYTONA_API_URL");
  unsetenv("DAYTONA_TARGET");
  assert_int_equal(sbio__dt_settings_parse("{}", &s, &err), SBIO_OK);
  assert_string_equal(s.api_url, "https://app.daytona.io/api");
  assert_string_equal(s.api_key_env, "DAYTONA_API_KEY");
  assert_null(s.target);
  sbio__dt_settings_free(&s);

  setenv("DAYTONA_API_URL", "http://127.0.0.1:9/api/", 1);
  setenv("DAYTONA_TARGET", "eu", 1);
  assert_int_equal(sbio__dt_settings_parse(NULL, &s, &err), SBIO_OK);
  assert_string_equal(s.api_url, "http://127.0.0.1:9/api");
  assert_string_equal(s.api_url_from, "DAYTONA_API_URL");
  assert_string_equal(s.target, "eu");
  sbio__dt_settings_free(&s);
  setenv("DAYTONA_API_URL", "http://daytona.internal/api", 1);
  assert_int_equal(sbio__dt_settings_parse("{}", &s, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "DAYTONA_API_URL"));
  /* A setting wins over the environment. */
  assert_int_equal(sbio__dt_settings_parse("{\"api_url\":\"https://d.example/api\",\"target\":\"us\"}", &s, &err),
                   SBIO_OK);
  assert_string_equal(s.api_url, "https://d.example/api");
  assert_string_equal(s.target, "us");
  sbio__dt_settings_free(&s);
  unsetenv("DAYTONA_API_URL");
  unsetenv("DAYTONA_TARGET");

  const char *bad[][2] = {
      {"{\"api_urll\":\"x\"}", "unknown key 'api_urll'"},
      {"{\"max_retries\":\"3\"}", "'max_retries' must be an integer from 0 to 20"},
      {"{\"max_retries\":2.5}", "'max_retries' must be an integer from 0 to 20"},
      {"{\"request_timeout_s\":0}", "'request_timeout_s' must be a number from 0.05 to 3600"},
      {"{\"api_url\":\"\"}", "'api_url' must not be empty"},
      {"{\"api_url\":\"https://user:s3cret@d.example/api\"}", "carries credentials"},
      {"{\"retry_base_ms\":100,\"retry_max_ms\":10}", "'retry_max_ms' must not be below"},
      {"{\"api_url\":\"http://10.0.0.1/api\"}", "settings.api_url"},
      {"[1]", "daytona settings must be a mapping"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(sbio__dt_settings_parse(bad[i][0], &s, &err), SBIO_E_CONFIG);
    if (!strstr(err.message, bad[i][1])) fail_msg("'%s' gave '%s'", bad[i][0], err.message);
    assert_null(strstr(err.message, "s3cret")); /* never the value */
  }
}

static sbio_bk_create_req base_request(void) {
  sbio_bk_create_req r;
  memset(&r, 0, sizeof r);
  r.size = sizeof r;
  r.session_id = "0123456789abcdef0123456789abcdef";
  r.timeout_s = 61;
  return r;
}

static void test_create_body(void **state) {
  (void)state;
  dt_settings s;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(
      sbio__dt_settings_parse("{\"snapshot\":\"daytona-medium\",\"target\":\"eu\",\"user\":\"root\"}", &s, &err),
      SBIO_OK);
  sbio_bk_create_req r = base_request();
  sbio_bk_kv env[] = {{"A", "1"}, {"S", "env"}}, secrets[] = {{"S", "secret"}}, labels[] = {{"team", "x"}};
  r.env = env, r.n_env = 2, r.secrets = secrets, r.n_secrets = 1, r.labels = labels, r.n_labels = 1;
  char *body = NULL;
  assert_int_equal(sbio__dt_create_body(&s, &r, "sbio-x-1", &body, &err), SBIO_OK);
  cJSON *doc = cJSON_Parse(body);
  assert_string_equal(cJSON_GetObjectItem(doc, "snapshot")->valuestring, "daytona-medium");
  assert_string_equal(cJSON_GetObjectItem(doc, "target")->valuestring, "eu");
  assert_string_equal(cJSON_GetObjectItem(doc, "user")->valuestring, "root");
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "env"), "S")->valuestring, "secret");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "env")), 2);
  assert_int_equal(cJSON_GetObjectItem(doc, "autoStopInterval")->valueint, 2);
  assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "labels"), "sandboxio.timeout")->valuestring, "61");
  cJSON_Delete(doc);
  free(body);

  r.template_name = "from-uri";
  r.timeout_s = 1;
  assert_int_equal(sbio__dt_create_body(&s, &r, "n", &body, &err), SBIO_OK);
  doc = cJSON_Parse(body);
  assert_string_equal(cJSON_GetObjectItem(doc, "snapshot")->valuestring, "from-uri");
  assert_int_equal(cJSON_GetObjectItem(doc, "autoStopInterval")->valueint, 1);
  cJSON_Delete(doc);
  free(body);

  r = base_request();
  r.memory_mb = 2048;
  assert_int_equal(sbio__dt_check_request(&s, &r, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "memory_mb=2048"));
  assert_non_null(strstr(err.message, "daytona-medium"));
  /* autoStopInterval beyond the maximum is refused, never sent or clamped */
  r = base_request();
  r.timeout_s = 1e20;
  assert_int_equal(sbio__dt_check_request(&s, &r, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "above the maximum of 86400 s"));
  assert_int_equal(sbio__dt_create_body(&s, &r, "n", &body, &err), SBIO_E_CONFIG);
  assert_null(body);
  r.timeout_s = SBIO_MAX_TIMEOUT_S;
  assert_int_equal(sbio__dt_create_body(&s, &r, "n", &body, &err), SBIO_OK);
  doc = cJSON_Parse(body);
  assert_int_equal(cJSON_GetObjectItem(doc, "autoStopInterval")->valueint, 1440);
  cJSON_Delete(doc);
  free(body);
  r = base_request();
  sbio_bk_kv badenv[] = {{"1X", "v"}};
  r.env = badenv, r.n_env = 1;
  assert_int_equal(sbio__dt_check_request(&s, &r, &err), SBIO_E_CONFIG);
  sbio__dt_settings_free(&s);
}

/* ---------------------------------------------------------- errors */
static int64_t mono(void *data) {
  (void)data;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static const sbio_host_services services = {.size = sizeof services, .monotonic_ns = mono};

static void with_instance(dt_instance *inst) {
  sbio_bk_error err = {.size = sizeof err};
  memset(inst, 0, sizeof *inst);
  assert_int_equal(sbio__dt_settings_parse("{\"retry_base_ms\":5,\"retry_max_ms\":10,\"max_retries\":2,"
                                           "\"connect_timeout_s\":1,\"request_timeout_s\":2}",
                                           &inst->settings, &err),
                   SBIO_OK);
  inst->host = services;
  inst->secrets = sbio_sdk_secrets_new();
}

static void instance_done(dt_instance *inst) {
  sbio__dt_settings_free(&inst->settings);
  sbio_sdk_secrets_free(inst->secrets);
}

static sbio_sdk_http_response answer(long status, char *body, char *headers, int attempts) {
  return (sbio_sdk_http_response){.outcome = SBIO_SDK_HTTP_ANSWERED,
                                  .status = status,
                                  .body = body,
                                  .len = body ? strlen(body) : 0,
                                  .headers = headers,
                                  .headers_len = headers ? strlen(headers) : 0,
                                  .attempts = attempts};
}

static void test_error_messages(void **state) {
  (void)state;
  dt_instance inst;
  with_instance(&inst);
  dt_ctx ctx = {.inst = &inst};
  dt_op op = {"creating a Daytona sandbox", SBIO_E_CREATE, SBIO_E_GONE, SBIO_E_CREATE_TIMEOUT};
  sbio_bk_error err = {.size = sizeof err};
  char html[] = "<html><head><title>502 Bad Gateway</title></head></html>";
  sbio_sdk_http_response resp = answer(502, html, NULL, 3);
  assert_int_equal(sbio__dt_fail(&ctx, &op, &resp, &err), SBIO_E_CREATE);
  assert_string_equal(err.message,
                      "Daytona answered 502 Bad Gateway with no details while creating a Daytona sandbox (after 3 "
                      "attempts)");
  assert_int_equal(err.provider_status, 502);

  char api401[] = "{\"path\":\"/api/sandbox\",\"statusCode\":401,\"error\":\"Unauthorized\",\"message\":\"Invalid "
                  "API key\"}";
  sbio_sdk_http_response r401 = answer(401, api401, NULL, 1);
  assert_int_equal(sbio__dt_fail(&ctx, &op, &r401, &err), SBIO_E_AUTH);
  assert_non_null(strstr(err.message, "DAYTONA_API_KEY"));
  assert_non_null(strstr(err.message, "Invalid API key"));
  assert_non_null(strstr(err.hint, "DAYTONA_API_KEY"));

  char list400[] = "{\"statusCode\":400,\"message\":[\"cpu must be an integer number\",\"x\\u0001y\"]}";
  sbio_sdk_http_response r400 = answer(400, list400, NULL, 1);
  assert_int_equal(sbio__dt_fail(&ctx, &op, &r400, &err), SBIO_E_CREATE);
  assert_non_null(strstr(err.message, "cpu must be an integer number, x y"));

  char tb408[] = "{\"statusCode\":408,\"message\":\"request timeout\",\"code\":\"REQUEST_TIMEOUT\"}";
  sbio_sdk_http_response r408 = answer(408, tb408, NULL, 1);
  assert_int_equal(sbio__dt_fail(&ctx, &op, &r408, &err), SBIO_E_CREATE_TIMEOUT);
  sbio_sdk_http_response r404 = answer(404, NULL, NULL, 1);
  assert_int_equal(sbio__dt_fail(&ctx, &op, &r404, &err), SBIO_E_GONE);
  char ra[] = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 30\r\n\r\n";
  sbio_sdk_http_response r429 = answer(429, NULL, ra, 5);
  assert_int_equal(sbio__dt_fail(&ctx, &op, &r429, &err), SBIO_E_RATE_LIMIT);
  assert_non_null(strstr(err.message, "after 5 attempts; it asked to wait 30 s"));
  assert_int_equal(err.provider_status, 429);
  sbio_sdk_http_response late = {.outcome = SBIO_SDK_HTTP_TIMEOUT, .attempts = 1};
  assert_int_equal(sbio__dt_fail(&ctx, &op, &late, &err), SBIO_E_CREATE_TIMEOUT);
  sbio_sdk_http_response lost = {.outcome = SBIO_SDK_HTTP_UNREACHABLE, .attempts = 3, .error = "connection refused"};
  assert_int_equal(sbio__dt_fail(&ctx, &op, &lost, &err), SBIO_E_CREATE);
  assert_string_equal(err.message, "could not reach Daytona while creating a Daytona sandbox (after 3 attempts): "
                                   "connection refused");
  instance_done(&inst);
}

static int never(const sbio_bk_call *call) {
  (void)call;
  return 0;
}

/* The key, read for each operation, checked and wiped; the operation's
 * call, cancelled once the sandbox is killed from elsewhere. */
static void test_operation_context(void **state) {
  (void)state;
  dt_instance inst;
  with_instance(&inst);
  sbio_bk_call call = {.size = sizeof call, .host = &inst.host, .cancelled = never};
  call.deadline_ns = mono(NULL) + 5000000000LL;
  dt_ctx ctx;
  sbio_bk_error err = {.size = sizeof err};
  unsetenv("DAYTONA_API_KEY");
  assert_int_equal(sbio__dt_ctx_init(&ctx, &inst, &call, NULL, &err), SBIO_E_AUTH);
  assert_non_null(strstr(err.message, "DAYTONA_API_KEY is not set"));
  assert_non_null(strstr(err.hint, "export DAYTONA_API_KEY="));
  setenv("DAYTONA_API_KEY", "has space", 1);
  assert_int_equal(sbio__dt_ctx_init(&ctx, &inst, &call, NULL, &err), SBIO_E_AUTH);
  assert_null(strstr(err.message, "has space")); /* never the value */
  setenv("DAYTONA_API_KEY", "dtn_ok", 1);
  atomic_int killed;
  atomic_init(&killed, 0);
  assert_int_equal(sbio__dt_ctx_init(&ctx, &inst, &call, &killed, &err), SBIO_OK);
  sbio_sdk_http_request req = sbio__dt_request(&ctx, "GET", "/sandbox");
  assert_int_equal(req.n_headers, 2);
  assert_string_equal(req.headers[0], "Authorization: Bearer dtn_ok");
  assert_int_equal(ctx.call.deadline_ns, call.deadline_ns);
  assert_false(ctx.call.cancelled(&ctx.call));
  atomic_store(&killed, 1); /* a kill on another thread */
  assert_true(ctx.call.cancelled(&ctx.call));
  /* The key is now one the backend keeps out of every message. */
  char *clean = sbio_sdk_redact(NULL, inst.secrets, "Daytona said: bad key dtn_ok");
  assert_string_equal(clean, "Daytona said: bad key ***");
  free(clean);
  sbio__dt_ctx_done(&ctx);
  assert_int_equal(ctx.auth[0], 0);
  unsetenv("DAYTONA_API_KEY");
  instance_done(&inst);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shell_join),       cmocka_unit_test(test_allow_list_split),
      cmocka_unit_test(test_time_and_records), cmocka_unit_test(test_normalise),
      cmocka_unit_test(test_settings),         cmocka_unit_test(test_create_body),
      cmocka_unit_test(test_error_messages),   cmocka_unit_test(test_operation_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
