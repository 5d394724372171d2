/* SPDX-License-Identifier: MIT */
/* The pure parts of sbio mcp: the strict JSON reader, the writer's UTF-8
 * guarantee, JSON-RPC classification, base64 and the Host/Origin guard. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "http_guard.h"
#include "json.h"
#include "jsonrpc.h"

static mj_doc *parse(const char *text) {
  mj_error e;
  return mj_parse(text, strlen(text), 64, &e);
}

static const char *reason(const char *text) {
  static mj_error e;
  mj_doc *d = mj_parse(text, strlen(text), 8, &e);
  if (d) {
    mj_free(d);
    return NULL;
  }
  return e.reason;
}

static void test_reader_accepts_rfc8259(void **state) {
  (void)state;
  const char *ok[] = {"0",
                      "-0",
                      "1.5e-3",
                      "\"\"",
                      "[]",
                      "{}",
                      "  {\"a\" : [1, {\"b\":null}]}\r\n",
                      "\"\\u00e9\"",
                      "true",
                      "\"\\ud83d\\ude00\"",
                      "-12.0E+2"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    mj_doc *d = parse(ok[i]);
    assert_non_null(d);
    mj_free(d);
  }
}

static void test_reader_refuses_the_rest(void **state) {
  (void)state;
  const char *bad[][2] = {
      {"01", "unexpected data after the JSON value"},
      {"[1,]", "unexpected character"},
      {"{\"a\":1,}", "expected a string key in an object"},
      {"NaN", "unexpected character"},
      {"\"a\tb\"", "control character in a string (must be escaped)"},
      {"\"\\x\"", "invalid escape in a string"},
      {"\"\\ud800\"", "unpaired high surrogate in a \\u escape"},
      {"\"\\udc00\"", "unpaired low surrogate in a \\u escape"},
      {"\"\xc0\xaf\"", "invalid UTF-8 in a string"},         /* overlong '/' */
      {"\"\xed\xa0\x80\"", "invalid UTF-8 in a string"},     /* an encoded surrogate */
      {"\"\xf4\x90\x80\x80\"", "invalid UTF-8 in a string"}, /* above U+10FFFF */
      {"{\"id\":1,\"id\":2}", "duplicate key in an object"},
      {"[[[[[[[[[1]]]]]]]]]", "nesting deeper than 8 levels"},
      {"\xef\xbb\xbf{}", "unexpected byte"}, /* a BOM */
      {"", "unexpected end of input"},
      {"{} {}", "unexpected data after the JSON value"},
      {"1.", "invalid number: digits must follow '.'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const char *why = reason(bad[i][0]);
    assert_non_null(why);
    assert_string_equal(why, bad[i][1]);
  }
}

/* {"k000":0,...} with n distinct keys, then `tail` before the brace. */
static char *many_keys(size_t n, const char *tail) {
  char *text = malloc(n * 12 + strlen(tail) + 4);
  size_t len = 0;
  text[len++] = '{';
  for (size_t i = 0; i < n; i++) len += (size_t)sprintf(text + len, "%s\"k%03zu\":0", i ? "," : "", i);
  len += (size_t)sprintf(text + len, "%s}", tail);
  return text;
}

/* Large objects are checked for duplicates by sorting when they close:
 * the same answer, and the same offset (the first repeated key in document
 * order), as the scan of small ones. */
static void test_duplicate_keys_in_large_objects(void **state) {
  (void)state;
  for (size_t n = 15; n <= 300; n += 57) {
    char *text = many_keys(n, "");
    mj_doc *d = parse(text);
    assert_non_null(d);
    assert_int_equal(mj_root(d)->n, n);
    mj_free(d);
    free(text);
    /* Two repeats: the earlier one is reported. */
    text = many_keys(n, ",\"k007\":1,\"k003\":2");
    mj_error e;
    assert_null(mj_parse(text, strlen(text), 64, &e));
    assert_string_equal(e.reason, "duplicate key in an object");
    assert_int_equal(e.offset, strlen(text) - strlen("\"k007\":1,\"k003\":2}"));
    free(text);
  }
  /* Keys that differ only after an escaped NUL, or only in length, are
   * distinct; equal ones with a NUL are not. */
  char *text = many_keys(20, ",\"a\\u0000b\":1,\"a\\u0000c\":1,\"a\":1,\"a\\u0000\":1");
  mj_doc *d = parse(text);
  assert_non_null(d);
  mj_free(d);
  free(text);
  text = many_keys(20, ",\"a\\u0000b\":1,\"x\":1,\"a\\u0000b\":1");
  assert_string_equal(reason(text), "duplicate key in an object");
  free(text);
}

static void test_strings_keep_nul_and_numbers_keep_their_lexeme(void **state) {
  (void)state;
  mj_doc *d = parse("{\"s\":\"a\\u0000b\",\"n\":123456789012345678901234567890}");
  assert_non_null(d);
  const mj_value *s = mj_get(mj_root(d), "s"), *n = mj_get(mj_root(d), "n");
  assert_int_equal(s->len, 3);
  assert_memory_equal(s->text, "a\0b", 3);
  assert_false(mj_is_c_string(s));
  assert_string_equal(n->text, "123456789012345678901234567890");
  mj_writer w;
  mj_w_init(&w, 1024);
  mj_w_value(&w, mj_root(d));
  char *out = mj_w_take(&w, NULL);
  assert_string_equal(out, "{\"s\":\"a\\u0000b\",\"n\":123456789012345678901234567890}");
  free(out);
  mj_free(d);
}

static void test_writer_output_is_valid_utf8_whatever_came_in(void **state) {
  (void)state;
  const char raw[] = "ok \xff\xfe caf\xc3\xa9 \xe2\x82 \x01\"\\\n\x7f";
  mj_writer w;
  mj_w_init(&w, 1024);
  mj_w_strn(&w, raw, sizeof raw - 1);
  size_t n;
  char *out = mj_w_take(&w, &n);
  assert_true(mj_utf8_valid(out, n));
  assert_string_equal(out,
                      "\"ok \xef\xbf\xbd\xef\xbf\xbd caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \\u0001\\\"\\\\\\n\\u007f\"");
  free(out);
}

static void test_writer_limits_and_misuse_fail(void **state) {
  (void)state;
  mj_writer w;
  mj_w_init(&w, 16);
  mj_w_str(&w, "a string longer than sixteen bytes");
  assert_null(mj_w_take(&w, NULL));
  mj_w_init(&w, 1024);
  mj_w_obj(&w); /* never closed */
  assert_null(mj_w_take(&w, NULL));
  mj_w_init(&w, 1024);
  mj_w_int(&w, 1);
  mj_w_int(&w, 2); /* two top-level values */
  assert_null(mj_w_take(&w, NULL));
  mj_w_init(&w, 1024);
  mj_w_obj(&w);
  mj_w_key(&w, "t");
  mj_w_double(&w, 300);
  mj_w_key(&w, "u");
  mj_w_double(&w, 0.25);
  mj_w_obj_end(&w);
  char *out = mj_w_take(&w, NULL);
  assert_string_equal(out, "{\"t\":300,\"u\":0.25}");
  free(out);
}

static rpc_msg classify_one(const char *text, rpc_frame *f) {
  assert_int_equal(rpc_frame_parse(text, strlen(text), f), 0);
  assert_int_equal(f->n, 1);
  return f->msgs[0];
}

static void test_jsonrpc_classification(void **state) {
  (void)state;
  const struct {
    const char *text;
    rpc_kind kind;
    int error;
  } cases[] = {
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", RPC_REQUEST, 0},
      {"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", RPC_NOTIFICATION, 0},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", RPC_RESPONSE, 0},
      {"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", RPC_INVALID, RPC_INVALID_REQUEST},
      {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", RPC_INVALID, RPC_INVALID_REQUEST},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[]}", RPC_INVALID, RPC_INVALID_REQUEST},
      {"{\"id\":1,\"method\":\"ping\"}", RPC_INVALID, RPC_INVALID_REQUEST},
      {"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", RPC_INVALID, RPC_INVALID_REQUEST},
      {"[1,2", RPC_INVALID, RPC_PARSE_ERROR},
      {"[]", RPC_INVALID, RPC_INVALID_REQUEST},
      {"7", RPC_INVALID, RPC_INVALID_REQUEST},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    rpc_frame f;
    rpc_msg m = classify_one(cases[i].text, &f);
    assert_int_equal(m.kind, cases[i].kind);
    if (m.kind == RPC_INVALID) {
      assert_int_equal(m.error, cases[i].error);
      assert_true(strlen(m.why) > 10);
    }
    rpc_frame_free(&f);
  }
  /* An invalid request keeps its id, so the client can match the error. */
  rpc_frame f;
  rpc_msg m = classify_one("{\"jsonrpc\":\"1.0\",\"id\":\"x\",\"method\":\"ping\"}", &f);
  assert_int_equal(m.kind, RPC_INVALID);
  assert_string_equal(m.id->text, "x");
  rpc_frame_free(&f);
  /* A batch: one message each; 101 is too many. */
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"},3]";
  assert_int_equal(rpc_frame_parse(batch, strlen(batch), &f), 0);
  assert_int_equal(f.n, 2);
  assert_true(f.batch);
  assert_int_equal(f.msgs[1].kind, RPC_INVALID);
  rpc_frame_free(&f);
  char big[1024] = "[";
  for (int i = 0; i < 101; i++) strcat(big, i ? ",1" : "1");
  strcat(big, "]");
  assert_int_equal(rpc_frame_parse(big, strlen(big), &f), 0);
  assert_int_equal(f.n, 1);
  assert_int_equal(f.msgs[0].kind, RPC_INVALID);
  rpc_frame_free(&f);
}

static void test_id_keys_tell_strings_from_numbers(void **state) {
  (void)state;
  mj_doc *d = parse("[1,\"1\",\"a\\u0000b\",\"a\\u0000c\"]");
  char *k[4];
  for (int i = 0; i < 4; i++) k[i] = rpc_id_key(mj_root(d)->items[i]);
  assert_string_not_equal(k[0], k[1]);
  assert_string_not_equal(k[2], k[3]);
  for (int i = 0; i < 4; i++) free(k[i]);
  mj_free(d);
}

static void test_base64(void **state) {
  (void)state;
  const unsigned char bin[] = {0, 0xff, 0x10, 'a'};
  char *e = mcp_base64_encode(bin, sizeof bin, NULL);
  assert_string_equal(e, "AP8QYQ==");
  unsigned char *out;
  size_t n;
  assert_int_equal(mcp_base64_decode(e, strlen(e), &out, &n), 0);
  assert_int_equal(n, 4);
  assert_memory_equal(out, bin, 4);
  free(out);
  free(e);
  const char *bad[] = {"AP8", "A=P8", "AP8Q YQ=", "AP8QYQ=A", "****"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(mcp_base64_decode(bad[i], strlen(bad[i]), &out, &n), -1);
}

static void test_guard_against_dns_rebinding(void **state) {
  (void)state;
  static const char *const allow[] = {"https://app.example"};
  mcp_http_guard g = {1, 8000, allow, 1};
  char why[256];
  /* A local client: loopback Host, no Origin. */
  assert_int_equal(mcp_guard_check(&g, "127.0.0.1:8000", NULL, why, sizeof why), 0);
  assert_int_equal(mcp_guard_check(&g, "localhost:8000", "http://localhost:8000", why, sizeof why), 0);
  assert_int_equal(mcp_guard_check(&g, "[::1]:8000", "http://[::1]:8000", why, sizeof why), 0);
  assert_int_equal(mcp_guard_check(&g, "localhost:8000", "https://app.example", why, sizeof why), 0);
  /* A rebound page: its own name in Host and Origin. */
  assert_int_equal(mcp_guard_check(&g, "evil.example.com", "http://evil.example.com", why, sizeof why), -1);
  assert_non_null(strstr(why, "Host"));
  assert_int_equal(mcp_guard_check(&g, "localhost:8000", "http://evil.example.com", why, sizeof why), -1);
  assert_non_null(strstr(why, "Origin"));
  /* Another local port, "null", and malformed values. */
  assert_int_equal(mcp_guard_check(&g, "localhost:8000", "http://localhost:3000", why, sizeof why), -1);
  assert_int_equal(mcp_guard_check(&g, "localhost:8000", "null", why, sizeof why), -1);
  assert_int_equal(mcp_guard_check(&g, NULL, NULL, why, sizeof why), -1);
  assert_int_equal(mcp_guard_check(&g, "localhost:99999", NULL, why, sizeof why), -1);
  assert_int_equal(mcp_guard_check(&g, "::1", NULL, why, sizeof why), -1);
  assert_true(mcp_guard_is_loopback("127.0.0.1"));
  assert_true(mcp_guard_is_loopback("127.1.2.3"));
  assert_true(mcp_guard_is_loopback("::1"));
  assert_false(mcp_guard_is_loopback("0.0.0.0"));
  assert_false(mcp_guard_is_loopback("127.evil.com"));
  /* Bound elsewhere: same-origin only (or the allow-list). */
  g.loopback = 0;
  assert_int_equal(mcp_guard_check(&g, "mcp.lan:8000", "http://mcp.lan:8000", why, sizeof why), 0);
  assert_int_equal(mcp_guard_check(&g, "mcp.lan:8000", "http://other.lan:8000", why, sizeof why), -1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reader_accepts_rfc8259),
      cmocka_unit_test(test_reader_refuses_the_rest),
      cmocka_unit_test(test_duplicate_keys_in_large_objects),
      cmocka_unit_test(test_strings_keep_nul_and_numbers_keep_their_lexeme),
      cmocka_unit_test(test_writer_output_is_valid_utf8_whatever_came_in),
      cmocka_unit_test(test_writer_limits_and_misuse_fail),
      cmocka_unit_test(test_jsonrpc_classification),
      cmocka_unit_test(test_id_keys_tell_strings_from_numbers),
      cmocka_unit_test(test_base64),
      cmocka_unit_test(test_guard_against_dns_rebinding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
