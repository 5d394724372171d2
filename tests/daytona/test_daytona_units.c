/* SPDX-License-Identifier: MIT */
/* The daytona backend's pure parts, from its own sources: URL policy,
 * quoting, allow-lists, settings, the create body, error messages,
 * Retry-After, path folding, and the retry loop against a port where
 * nothing listens. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "allow.h"
#include "errmap.h"
#include "record.h"
#include "request.h"
#include "shquote.h"
#include "toolbox.h"
#include "url.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void test_url_policy(void **state) {
  (void)state;
  char why[300];
  assert_int_equal(sbio__dt_url_check("https://app.daytona.io/api", why, sizeof why), 0);
  assert_int_equal(sbio__dt_url_check("http://127.0.0.1:8080/api", why, sizeof why), 0);
  assert_int_equal(sbio__dt_url_check("http://127.8.9.10/api", why, sizeof why), 0);
  assert_int_equal(sbio__dt_url_check("http://localhost:3000/api", why, sizeof why), 0);
  assert_int_equal(sbio__dt_url_check("http://[::1]:3000/api", why, sizeof why), 0);
  assert_int_equal(sbio__dt_url_check("http://app.daytona.io/api", why, sizeof why), -1);
  assert_non_null(strstr(why, "plain http to app.daytona.io"));
  assert_int_equal(sbio__dt_url_check("http://128.0.0.1/api", why, sizeof why), -1);
  assert_int_equal(sbio__dt_url_check("http://localhost.evil.example/api", why, sizeof why), -1);
  assert_int_equal(sbio__dt_url_check("ftp://127.0.0.1/api", why, sizeof why), -1);
  assert_int_equal(sbio__dt_url_check("https://user:pw@app.daytona.io/api", why, sizeof why), -1);
  assert_null(strstr(why, "pw"));
  assert_int_equal(sbio__dt_url_check("https://app.daytona.io/api?x=1", why, sizeof why), -1);
  assert_int_equal(sbio__dt_url_check("app.daytona.io/api", why, sizeof why), -1);
  assert_int_equal(sbio__dt_url_check("https:///api", why, sizeof why), -1);
  assert_int_equal(sbio__dt_url_check("", why, sizeof why), -1);
}

static void test_url_building(void **state) {
  (void)state;
  char *s = sbio__dt_url_escape("a b/c?d=é", 0);
  assert_string_equal(s, "a%20b%2Fc%3Fd%3D%C3%A9");
  free(s);
  s = sbio__dt_url_escape("/home/daytona/x y", 1);
  assert_string_equal(s, "/home/daytona/x%20y");
  free(s);
  s = sbio__dt_url_join("https://h/api//", "/sandbox");
  assert_string_equal(s, "https://h/api/sandbox");
  free(s);
}

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

static void test_retry_after(void **state) {
  (void)state;
  double s = -1;
  assert_int_equal(sbio__dt_parse_retry_after("3", 0, &s), 0);
  assert_true(s == 3.0);
  assert_int_equal(sbio__dt_parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", 40, &s), 0);
  assert_true(s == 60.0);
  assert_int_equal(sbio__dt_parse_retry_after("Thu, 01 Jan 1970 00:00:10 GMT", 40, &s), 0);
  assert_true(s == 0.0); /* in the past: retry now */
  assert_int_equal(sbio__dt_parse_retry_after("soon", 0, &s), -1);
  assert_int_equal(sbio__dt_parse_retry_after("-1", 0, &s), -1);
  assert_int_equal(sbio__dt_parse_retry_after("", 0, &s), -1);
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
      {"{\"max_retries\":\"3\"}", "'max_retries' must be a number"},
      {"{\"max_retries\":2.5}", "'max_retries' must be a whole number"},
      {"{\"request_timeout_s\":0}", "'request_timeout_s' must be a number in"},
      {"{\"api_url\":\"\"}", "'api_url' must be a non-empty string"},
      {"{\"retry_base_ms\":100,\"retry_max_ms\":10}", "'retry_max_ms' must not be below"},
      {"{\"api_url\":\"http://10.0.0.1/api\"}", "settings.api_url"},
      {"[1]", "not a mapping"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(sbio__dt_settings_parse(bad[i][0], &s, &err), SBIO_E_CONFIG);
    if (!strstr(err.message, bad[i][1])) fail_msg("'%s' gave '%s'", bad[i][0], err.message);
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
}

static void test_error_messages(void **state) {
  (void)state;
  dt_instance inst;
  with_instance(&inst);
  dt_ctx ctx = {.inst = &inst};
  dt_op op = {"creating a Daytona sandbox", SBIO_E_CREATE, SBIO_E_GONE, SBIO_E_CREATE_TIMEOUT};
  sbio_bk_error err = {.size = sizeof err};
  char html[] = "<html><head><title>502 Bad Gateway</title></head></html>";
  dt_http_resp resp = {.status = 502, .body = html, .len = strlen(html), .attempts = 3};
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_OK, &resp, &err), SBIO_E_CREATE);
  assert_string_equal(err.message,
                      "Daytona answered 502 Bad Gateway with no details while creating a Daytona sandbox (after 3 "
                      "attempts)");
  assert_int_equal(err.provider_status, 502);

  char api401[] = "{\"path\":\"/api/sandbox\",\"statusCode\":401,\"error\":\"Unauthorized\",\"message\":\"Invalid "
                  "API key\"}";
  dt_http_resp r401 = {.status = 401, .body = api401, .len = strlen(api401), .attempts = 1};
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_OK, &r401, &err), SBIO_E_AUTH);
  assert_non_null(strstr(err.message, "DAYTONA_API_KEY"));
  assert_non_null(strstr(err.message, "Invalid API key"));
  assert_non_null(strstr(err.hint, "DAYTONA_API_KEY"));

  char list400[] = "{\"statusCode\":400,\"message\":[\"cpu must be an integer number\",\"x\\u0001y\"]}";
  dt_http_resp r400 = {.status = 400, .body = list400, .len = strlen(list400), .attempts = 1};
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_OK, &r400, &err), SBIO_E_CREATE);
  assert_non_null(strstr(err.message, "cpu must be an integer number, x y"));

  char tb408[] = "{\"statusCode\":408,\"message\":\"request timeout\",\"code\":\"REQUEST_TIMEOUT\"}";
  dt_http_resp r408 = {.status = 408, .body = tb408, .len = strlen(tb408), .attempts = 1};
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_OK, &r408, &err), SBIO_E_CREATE_TIMEOUT);
  dt_http_resp r404 = {.status = 404, .attempts = 1};
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_OK, &r404, &err), SBIO_E_GONE);
  dt_http_resp r429 = {.status = 429, .has_retry_after = 1, .retry_after_s = 30, .attempts = 5};
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_RATE_LIMITED, &r429, &err), SBIO_E_RATE_LIMIT);
  assert_non_null(strstr(err.message, "wait 30 s"));
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_DEADLINE, &r404, &err), SBIO_E_CREATE_TIMEOUT);
  sbio__dt_settings_free(&inst.settings);
}

static void test_missing_key_is_an_auth_error_naming_the_variable(void **state) {
  (void)state;
  dt_instance inst;
  with_instance(&inst);
  dt_ctx ctx;
  sbio_bk_error err = {.size = sizeof err};
  unsetenv("DAYTONA_API_KEY");
  assert_int_equal(sbio__dt_ctx_init(&ctx, &inst, NULL, NULL, &err), SBIO_E_AUTH);
  assert_string_equal(err.message, "Daytona credentials missing: DAYTONA_API_KEY is not set");
  setenv("DAYTONA_API_KEY", "has space", 1);
  assert_int_equal(sbio__dt_ctx_init(&ctx, &inst, NULL, NULL, &err), SBIO_E_AUTH);
  assert_null(strstr(err.message, "has space")); /* never the value */
  setenv("DAYTONA_API_KEY", "dtn_ok", 1);
  assert_int_equal(sbio__dt_ctx_init(&ctx, &inst, NULL, NULL, &err), SBIO_OK);
  assert_string_equal(ctx.api_key, "dtn_ok");
  sbio__dt_ctx_done(&ctx);
  assert_int_equal(ctx.api_key[0], 0);
  unsetenv("DAYTONA_API_KEY");
  sbio__dt_settings_free(&inst.settings);
}

/* A port nothing listens on: transport failures are retried for an
 * idempotent GET (max_retries + 1 attempts) and not for a POST. */
static void test_transport_failures_and_retries(void **state) {
  (void)state;
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof a;
  assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
  close(fd); /* now nothing listens there */
  char url[100];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/api/sandbox", ntohs(a.sin_port));

  dt_instance inst;
  with_instance(&inst);
  sbio_bk_call call = {.size = sizeof call, .host = &inst.host};
  call.deadline_ns = mono(NULL) + 5000000000LL;
  dt_ctx ctx = {.inst = &inst, .call = &call};
  snprintf(ctx.api_key, sizeof ctx.api_key, "dtn_test");
  dt_http_req get = {.method = "GET", .url = url, .idempotent = 1};
  dt_http_resp resp;
  assert_int_equal(sbio__dt_http(&ctx, &get, &resp), DT_HTTP_TRANSPORT);
  assert_int_equal(resp.attempts, 3);
  sbio__dt_http_resp_free(&resp);
  dt_http_req post = {.method = "POST", .url = url, .json = "{}"};
  assert_int_equal(sbio__dt_http(&ctx, &post, &resp), DT_HTTP_TRANSPORT);
  assert_int_equal(resp.attempts, 1);
  dt_op op = {"creating a Daytona sandbox", SBIO_E_CREATE, SBIO_E_GONE, SBIO_E_CREATE_TIMEOUT};
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__dt_fail(&ctx, &op, DT_HTTP_TRANSPORT, &resp, &err), SBIO_E_CREATE);
  assert_non_null(strstr(err.message, "could not reach Daytona while creating a Daytona sandbox"));
  sbio__dt_http_resp_free(&resp);
  /* A deadline already past: nothing is sent. */
  call.deadline_ns = mono(NULL) - 1;
  assert_int_equal(sbio__dt_http(&ctx, &get, &resp), DT_HTTP_DEADLINE);
  sbio__dt_http_resp_free(&resp);
  sbio__dt_settings_free(&inst.settings);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_url_policy),
      cmocka_unit_test(test_url_building),
      cmocka_unit_test(test_shell_join),
      cmocka_unit_test(test_allow_list_split),
      cmocka_unit_test(test_time_and_records),
      cmocka_unit_test(test_normalise),
      cmocka_unit_test(test_retry_after),
      cmocka_unit_test(test_settings),
      cmocka_unit_test(test_create_body),
      cmocka_unit_test(test_error_messages),
      cmocka_unit_test(test_missing_key_is_an_auth_error_naming_the_variable),
      cmocka_unit_test(test_transport_failures_and_retries),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
