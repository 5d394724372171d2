/* SPDX-License-Identifier: MIT */
/* The E2B backend's pure parts, built from its sources: the Connect
 * envelope parser under randomized splits and hostile input (a fuzz-style
 * test), base64, path resolution, settings (with the SDK's URL policy),
 * version gates, process events and the create request. (Retry-After,
 * backoff and the URL policy itself are the SDK's, tested in tests/sdk.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "createreq.h"
#include "e2b.h"
#include "envelope.h"
#include "paths.h"
#include "procevent.h"
#include "settings.h"

/* ------------------------------------------------------------ envelopes */
typedef struct {
  unsigned char data[1 << 16];
  size_t len;
  unsigned flags[64];
  size_t sizes[64];
  int n;
} collected;

static int collect(void *user, unsigned flags, const unsigned char *msg, size_t len) {
  collected *c = user;
  if (c->n < 64) {
    c->flags[c->n] = flags;
    c->sizes[c->n] = len;
  }
  c->n++;
  if (c->len + len <= sizeof c->data) {
    memcpy(c->data + c->len, msg, len);
    c->len += len;
  }
  return 0;
}

static size_t put_envelope(unsigned char *out, unsigned flags, const char *msg, size_t len) {
  out[0] = (unsigned char)flags;
  out[1] = (unsigned char)(len >> 24);
  out[2] = (unsigned char)(len >> 16);
  out[3] = (unsigned char)(len >> 8);
  out[4] = (unsigned char)len;
  memcpy(out + 5, msg, len);
  return len + 5;
}

static void test_envelopes_survive_any_split(void **state) {
  (void)state;
  static unsigned char stream[1 << 16];
  static char big[3000];
  memset(big, 'b', sizeof big);
  size_t n = 0;
  n += put_envelope(stream + n, 0, "{\"event\":{\"start\":{\"pid\":7}}}", 29);
  n += put_envelope(stream + n, 0, "", 0); /* empty message */
  n += put_envelope(stream + n, 0, big, sizeof big);
  n += put_envelope(stream + n, 0, "x", 1);
  n += put_envelope(stream + n, E2B_ENV_END_STREAM, "{}", 2);
  unsigned seed = 12345;
  for (int round = 0; round < 2000; round++) {
    e2b_env_parser p;
    sbio__e2b_env_init(&p, 0);
    collected *c = calloc(1, sizeof *c);
    size_t off = 0;
    while (off < n) {
      /* byte by byte, small pieces, or big gulps */
      size_t max = round % 3 == 0 ? 1 : round % 3 == 1 ? 7 : 4096;
      size_t take = 1 + (size_t)rand_r(&seed) % max;
      if (take > n - off) take = n - off;
      assert_int_equal(sbio__e2b_env_feed(&p, stream + off, take, collect, c), E2B_ENV_OK);
      off += take;
    }
    assert_int_equal(c->n, 5);
    assert_int_equal(c->sizes[0], 29);
    assert_int_equal(c->sizes[1], 0);
    assert_int_equal(c->sizes[2], sizeof big);
    assert_int_equal(c->flags[4], E2B_ENV_END_STREAM);
    assert_true(p.ended);
    assert_true(sbio__e2b_env_at_boundary(&p));
    free(c);
    sbio__e2b_env_free(&p);
  }
}

static void test_envelope_hostile_input(void **state) {
  (void)state;
  e2b_env_parser p;
  collected *c = calloc(1, sizeof *c);
  /* a length over the limit is refused before any allocation */
  sbio__e2b_env_init(&p, 1024);
  unsigned char huge[5] = {0, 0xff, 0xff, 0xff, 0xff};
  assert_int_equal(sbio__e2b_env_feed(&p, huge, 5, collect, c), E2B_ENV_TOO_BIG);
  assert_int_equal(sbio__e2b_env_feed(&p, "x", 1, collect, c), E2B_ENV_TOO_BIG); /* sticky */
  sbio__e2b_env_free(&p);
  /* compressed without negotiation */
  sbio__e2b_env_init(&p, 0);
  unsigned char comp[6] = {1, 0, 0, 0, 1, 'x'};
  assert_int_equal(sbio__e2b_env_feed(&p, comp, 6, collect, c), E2B_ENV_COMPRESSED_ERR);
  sbio__e2b_env_free(&p);
  /* undefined flag bits */
  sbio__e2b_env_init(&p, 0);
  unsigned char flags[5] = {0x80, 0, 0, 0, 0};
  assert_int_equal(sbio__e2b_env_feed(&p, flags, 5, collect, c), E2B_ENV_BAD_FLAGS);
  sbio__e2b_env_free(&p);
  /* data after the end */
  sbio__e2b_env_init(&p, 0);
  unsigned char end[9];
  size_t n = put_envelope(end, E2B_ENV_END_STREAM, "{}", 2);
  end[n] = 0;
  assert_int_equal(sbio__e2b_env_feed(&p, end, n + 1, collect, c), E2B_ENV_AFTER_END);
  sbio__e2b_env_free(&p);
  /* a stream that stops inside a message is not at a boundary */
  sbio__e2b_env_init(&p, 0);
  unsigned char part[8];
  put_envelope(part, 0, "abc", 3);
  assert_int_equal(sbio__e2b_env_feed(&p, part, 6, collect, c), E2B_ENV_OK);
  assert_false(sbio__e2b_env_at_boundary(&p));
  sbio__e2b_env_free(&p);
  /* random garbage, fed in random pieces, never crashes or leaks */
  unsigned seed = 99;
  for (int round = 0; round < 3000; round++) {
    unsigned char junk[256];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)rand_r(&seed);
    if (round % 2) junk[1] = junk[2] = junk[3] = 0; /* plausible lengths */
    sbio__e2b_env_init(&p, 4096);
    c->len = 0;
    c->n = 0;
    size_t total = 1 + (size_t)rand_r(&seed) % sizeof junk;
    for (size_t off = 0; off < total;) {
      size_t take = 1 + (size_t)rand_r(&seed) % 17;
      if (take > total - off) take = total - off;
      sbio__e2b_env_feed(&p, junk + off, take, collect, c);
      off += take;
    }
    sbio__e2b_env_free(&p);
  }
  free(c);
}

static void test_process_events_from_random_splits(void **state) {
  (void)state;
  const char *msgs[] = {
      "{\"event\":{\"start\":{\"pid\":4242}}}",
      "{\"event\":{\"data\":{\"stdout\":\"aGVsbG8K\"}}}",
      "{\"event\":{\"keepalive\":{}}}",
      "{\"event\":{\"data\":{\"stderr\":\"b29wcw==\"}}}",
      "{\"event\":{\"end\":{\"exitCode\":3,\"exited\":true,\"status\":\"exit status 3\"}}}",
  };
  unsigned char stream[1024];
  size_t n = 0;
  for (size_t i = 0; i < 5; i++) n += put_envelope(stream + n, 0, msgs[i], strlen(msgs[i]));
  n += put_envelope(stream + n, E2B_ENV_END_STREAM, "{}", 2);
  unsigned seed = 7;
  for (int round = 0; round < 500; round++) {
    e2b_proc_events ev;
    memset(&ev, 0, sizeof ev);
    e2b_env_parser p;
    sbio__e2b_env_init(&p, 0);
    for (size_t off = 0; off < n;) {
      size_t take = 1 + (size_t)rand_r(&seed) % 13;
      if (take > n - off) take = n - off;
      assert_int_equal(sbio__e2b_env_feed(&p, stream + off, take, sbio__e2b_proc_on_envelope, &ev), E2B_ENV_OK);
      off += take;
    }
    assert_true(ev.started && ev.ended && ev.eos);
    assert_int_equal(ev.pid, 4242);
    assert_int_equal(ev.keepalives, 1);
    assert_int_equal(sbio__e2b_proc_exit_status(&ev), 3);
    assert_string_equal(ev.eos_code, "");
    sbio__e2b_env_free(&p);
  }
}

static void test_exit_status_mapping(void **state) {
  (void)state;
  e2b_proc_events ev;
  memset(&ev, 0, sizeof ev);
  const char *zero = "{\"event\":{\"end\":{\"exited\":true,\"status\":\"exit status 0\"}}}";
  assert_int_equal(sbio__e2b_proc_on_envelope(&ev, 0, (const unsigned char *)zero, strlen(zero)), 0);
  assert_int_equal(sbio__e2b_proc_exit_status(&ev), 0); /* exitCode absent means 0 */
  memset(&ev, 0, sizeof ev);
  const char *killed = "{\"event\":{\"end\":{\"exitCode\":-1,\"status\":\"signal: killed\"}}}";
  sbio__e2b_proc_on_envelope(&ev, 0, (const unsigned char *)killed, strlen(killed));
  assert_int_equal(sbio__e2b_proc_exit_status(&ev), 137);
  memset(&ev, 0, sizeof ev);
  const char *term = "{\"event\":{\"end\":{\"exitCode\":-1,\"status\":\"signal: terminated\"}}}";
  sbio__e2b_proc_on_envelope(&ev, 0, (const unsigned char *)term, strlen(term));
  assert_int_equal(sbio__e2b_proc_exit_status(&ev), 143);
  memset(&ev, 0, sizeof ev);
  const char *err = "{\"error\":{\"code\":\"deadline_exceeded\",\"message\":\"context deadline exceeded\"}}";
  sbio__e2b_proc_on_envelope(&ev, E2B_ENV_END_STREAM, (const unsigned char *)err, strlen(err));
  assert_true(ev.eos);
  assert_string_equal(ev.eos_code, "deadline_exceeded");
  memset(&ev, 0, sizeof ev);
  assert_int_not_equal(sbio__e2b_proc_on_envelope(&ev, 0, (const unsigned char *)"[1]", 3), 0);
  assert_true(ev.bad);
  const char *badb64 = "{\"event\":{\"data\":{\"stdout\":\"!!!\"}}}";
  memset(&ev, 0, sizeof ev);
  assert_int_not_equal(sbio__e2b_proc_on_envelope(&ev, 0, (const unsigned char *)badb64, strlen(badb64)), 0);
}

/* --------------------------------------------------------------- base64 */
static void test_base64(void **state) {
  (void)state;
  char *e = sbio__e2b_b64_encode("hello\n", 6);
  assert_string_equal(e, "aGVsbG8K");
  free(e);
  e = sbio__e2b_b64_encode("", 0);
  assert_string_equal(e, "");
  free(e);
  unsigned char *d;
  size_t n;
  assert_int_equal(sbio__e2b_b64_decode("b29wcw==", 8, &d, &n), 0);
  assert_int_equal(n, 4);
  assert_memory_equal(d, "oops", 4);
  free(d);
  assert_int_equal(sbio__e2b_b64_decode("b29wcw", 6, &d, &n), 0); /* no padding */
  assert_int_equal(n, 4);
  free(d);
  assert_int_equal(sbio__e2b_b64_decode("_-8", 3, &d, &n), 0); /* URL-safe */
  assert_int_equal(d[0], 0xff);
  free(d);
  assert_int_equal(sbio__e2b_b64_decode("a", 1, &d, &n), -1);
  assert_int_equal(sbio__e2b_b64_decode("ab$d", 4, &d, &n), -1);
  unsigned char all[256];
  for (int i = 0; i < 256; i++) all[i] = (unsigned char)i;
  for (size_t len = 0; len < 256; len += 7) {
    e = sbio__e2b_b64_encode(all, len);
    assert_int_equal(sbio__e2b_b64_decode(e, strlen(e), &d, &n), 0);
    assert_int_equal(n, len);
    assert_memory_equal(d, all, len);
    free(d);
    free(e);
  }
}

/* ---------------------------------------------------------------- paths */
static void check_path(const char *path, const char *want) {
  char *out = NULL;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__e2b_path_resolve("/home/user", path, &out, &err), SBIO_OK);
  assert_string_equal(out, want);
  free(out);
}

static void test_paths(void **state) {
  (void)state;
  check_path("a.txt", "/home/user/a.txt");
  check_path(".", "/home/user");
  check_path("./x/../y//z/", "/home/user/y/z");
  check_path("/tmp/./a", "/tmp/a");
  check_path("../../../..", "/");
  check_path("/", "/");
  char *out;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__e2b_path_resolve("/home/user", "", &out, &err), SBIO_E_INVALID_ARGUMENT);
  assert_int_equal(sbio__e2b_path_resolve("/home/user", "a\nb", &out, &err), SBIO_E_INVALID_ARGUMENT);
  char *p = sbio__e2b_path_parent("/home/user/a");
  assert_string_equal(p, "/home/user");
  free(p);
  p = sbio__e2b_path_parent("/a");
  assert_string_equal(p, "/");
  free(p);
}

/* ------------------------------------------------------------ settings */
static void test_settings(void **state) {
  (void)state;
  unsetenv("E2B_API_URL");
  unsetenv("E2B_SANDBOX_URL");
  unsetenv("E2B_DOMAIN");
  e2b_settings s;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__e2b_settings_parse("{}", &s, &err), SBIO_OK);
  assert_string_equal(s.api_url, "https://api.e2b.app");
  assert_null(s.sandbox_url);
  assert_string_equal(s.api_key_env, "E2B_API_KEY");
  assert_string_equal(s.workdir, "/home/user");
  sbio__e2b_settings_free(&s);
  setenv("E2B_DOMAIN", "e2b.dev", 1);
  assert_int_equal(sbio__e2b_settings_parse(NULL, &s, &err), SBIO_OK);
  assert_string_equal(s.api_url, "https://api.e2b.dev");
  sbio__e2b_settings_free(&s);
  unsetenv("E2B_DOMAIN");
  assert_int_equal(sbio__e2b_settings_parse("{\"api_key\":\"e2b_x\"}", &s, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "unknown key 'api_key'"));
  assert_int_equal(sbio__e2b_settings_parse("{\"max_retries\":2.5}", &s, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__e2b_settings_parse("{\"workdir\":\"rel\"}", &s, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__e2b_settings_parse("{\"api_key_env\":\"1BAD\"}", &s, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__e2b_settings_parse("{\"domain\":\"E2B.APP/x\"}", &s, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__e2b_settings_parse("[1]", &s, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__e2b_settings_parse("{\"a\":", &s, &err), SBIO_E_CONFIG);
  /* URLs that will carry the key: https, or plain http to this machine. */
  assert_int_equal(sbio__e2b_settings_parse("{\"api_url\":\"https://api.e2b.app/\"}", &s, &err), SBIO_OK);
  assert_string_equal(s.api_url, "https://api.e2b.app");
  sbio__e2b_settings_free(&s);
  assert_int_equal(sbio__e2b_settings_parse("{\"sandbox_url\":\"http://[::1]:9/\"}", &s, &err), SBIO_OK);
  assert_string_equal(s.sandbox_url, "http://[::1]:9");
  sbio__e2b_settings_free(&s);
  assert_int_equal(sbio__e2b_settings_parse("{\"api_url\":\"http://10.0.0.1\"}", &s, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "e2b setting api_url: plain http to 10.0.0.1"));
  assert_int_equal(sbio__e2b_settings_parse("{\"api_url\":\"https://a:pw0rd@x\"}", &s, &err), SBIO_E_CONFIG);
  assert_null(strstr(err.message, "pw0rd"));
  assert_int_equal(sbio__e2b_settings_parse("{\"api_url\":\"https://x/?q=t0ken\"}", &s, &err), SBIO_E_CONFIG);
  assert_null(strstr(err.message, "t0ken"));
  setenv("E2B_SANDBOX_URL", "http://127.0.0.1.evil.example", 1);
  assert_int_equal(sbio__e2b_settings_parse("{}", &s, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "environment variable E2B_SANDBOX_URL"));
  unsetenv("E2B_SANDBOX_URL");
}

/* ------------------------------------------------------------ versions */
static void test_versions(void **state) {
  (void)state;
  assert_true(sbio__e2b_version_at_least("0.5.7", "0.5.7"));
  assert_true(sbio__e2b_version_at_least("0.5.10", "0.5.7"));
  assert_true(sbio__e2b_version_at_least("v1.0.0", "0.5.7"));
  assert_false(sbio__e2b_version_at_least("0.5.2", "0.5.7"));
  assert_false(sbio__e2b_version_at_least("0.3.5", "0.4.0"));
  assert_false(sbio__e2b_version_at_least(NULL, "0.1.0"));
  assert_true(sbio__e2b_version_at_least("0.6", "0.5.7"));
}

/* ------------------------------------------------------- create request */
static void test_create_body(void **state) {
  (void)state;
  e2b_instance inst;
  memset(&inst, 0, sizeof inst);
  sbio_bk_error err = {.size = sizeof err};
  unsetenv("E2B_DOMAIN");
  assert_int_equal(sbio__e2b_settings_parse("{}", &inst.settings, &err), SBIO_OK);
  sbio_bk_kv labels[] = {{"tenant_id", "acme"}};
  sbio_bk_kv env[] = {{"A", "1"}, {"A", "2"}};
  sbio_bk_kv secrets[] = {{"TOKEN", "s"}};
  const char *allow[] = {"example.com", "*.pypi.org", "10.0.0.0/8", "8.8.8.8"};
  sbio_bk_create_req req = {.size = sizeof req,
                            .labels = labels,
                            .n_labels = 1,
                            .env = env,
                            .n_env = 2,
                            .secrets = secrets,
                            .n_secrets = 1,
                            .session_id = "sess1",
                            .timeout_s = 2.1,
                            .allow = allow,
                            .n_allow = 4};
  assert_int_equal(sbio__e2b_check_request(&inst, &req, &err), SBIO_OK);
  char *body = sbio__e2b_create_body(&inst, &req);
  cJSON *j = cJSON_Parse(body);
  assert_string_equal(cJSON_GetObjectItem(j, "templateID")->valuestring, "base");
  assert_int_equal(cJSON_GetObjectItem(j, "timeout")->valueint, 3); /* rounded up */
  assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "secure")));
  assert_null(cJSON_GetObjectItem(j, "allow_internet_access"));
  const cJSON *meta = cJSON_GetObjectItem(j, "metadata");
  assert_string_equal(cJSON_GetObjectItem(meta, "sandboxio_session")->valuestring, "sess1");
  const cJSON *envs = cJSON_GetObjectItem(j, "envVars");
  assert_string_equal(cJSON_GetObjectItem(envs, "A")->valuestring, "2");
  assert_string_equal(cJSON_GetObjectItem(envs, "TOKEN")->valuestring, "s");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "network"), "allowOut")), 4);
  cJSON_Delete(j);
  free(body);
  const char *bad[] = {"http://x.com", "a b", "x.com:443", "", "1.2.3.4/x"};
  for (size_t i = 0; i < 5; i++) {
    sbio_bk_create_req r2 = req;
    r2.allow = &bad[i];
    r2.n_allow = 1;
    assert_int_equal(sbio__e2b_check_request(&inst, &r2, &err), SBIO_E_CONFIG);
  }
  sbio_bk_kv reserved[] = {{"sandboxio_managed", "false"}};
  sbio_bk_create_req r3 = req;
  r3.labels = reserved;
  assert_int_equal(sbio__e2b_check_request(&inst, &r3, &err), SBIO_E_CONFIG);
  sbio_bk_create_req r4 = req;
  r4.cpu = 2;
  r4.template_name = "big-tpl";
  assert_int_equal(sbio__e2b_check_request(&inst, &r4, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "big-tpl"));
  char *q = sbio__e2b_metadata_query(labels, 1);
  assert_string_equal(q, "sandboxio_managed=true&tenant_id=acme");
  free(q);
  sbio_bk_kv odd[] = {{"k&=", "v w"}};
  q = sbio__e2b_metadata_query(odd, 1);
  assert_string_equal(q, "sandboxio_managed=true&k%26%3D=v%20w");
  free(q);
  assert_int_equal(sbio__e2b_lifetime_s(0.001), 1);
  /* A lifetime above the maximum is refused, never clamped (it was cut to
   * INT32_MAX seconds); the maximum itself goes out as asked. */
  sbio_bk_create_req r5 = req;
  r5.timeout_s = 1e20;
  assert_int_equal(sbio__e2b_check_request(&inst, &r5, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "above the maximum of 86400 s"));
  r5.timeout_s = SBIO_MAX_TIMEOUT_S;
  assert_int_equal(sbio__e2b_check_request(&inst, &r5, &err), SBIO_OK);
  assert_int_equal(sbio__e2b_lifetime_s(SBIO_MAX_TIMEOUT_S), 86400);
  sbio__e2b_settings_free(&inst.settings);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_envelopes_survive_any_split),
      cmocka_unit_test(test_envelope_hostile_input),
      cmocka_unit_test(test_process_events_from_random_splits),
      cmocka_unit_test(test_exit_status_mapping),
      cmocka_unit_test(test_base64),
      cmocka_unit_test(test_paths),
      cmocka_unit_test(test_settings),
      cmocka_unit_test(test_versions),
      cmocka_unit_test(test_create_body),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
