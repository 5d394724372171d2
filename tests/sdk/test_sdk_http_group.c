/* SPDX-License-Identifier: MIT */
/* Several transfers of one operation at once (<sandboxio/sdk/http_group.h>)
 * against the loopback test server: a streamed answer that can only end
 * once a side request got through on another connection, side requests
 * reusing one another's connection, the call's deadline and cancellation
 * ending every transfer, and freeing a group mid-flight. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "http_server.h"
#include "test_host.h"

#include <sandboxio/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  test_server *server;
  test_host host;
  sbio_sdk_http *client;
  char base[64];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->server = test_server_start(NULL);
  if (!f->server) return -1;
  snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", test_server_port(f->server));
  test_host_init(&f->host);
  sbio_sdk_http_options opt = {.backend = "acme", .base_url = f->base, .host = &f->host.services};
  sbio_bk_error err = {.size = sizeof err};
  if (sbio_sdk_http_new(&opt, &f->client, &err) != SBIO_OK) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  sbio_sdk_http_free(f->client);
  test_server_stop(f->server);
  free(f);
  return 0;
}

typedef struct collected {
  char text[256];
  size_t len;
} collected;

static int collect(void *user, const char *data, size_t len) {
  collected *c = user;
  if (c->len + len < sizeof c->text) {
    memcpy(c->text + c->len, data, len);
    c->len += len;
    c->text[c->len] = '\0';
  }
  return 0;
}

/* Drives the group until `t` is done (bounded by the group's call). */
static void run_until_done(sbio_sdk_http_group *g, sbio_sdk_http_transfer *t) {
  for (int i = 0; i < 1000 && !sbio_sdk_http_transfer_done(t); i++) assert_true(sbio_sdk_http_group_wait(g, 20) >= 0);
  assert_true(sbio_sdk_http_transfer_done(t));
}

static void stream_with_side_requests(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_group *g = NULL;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_group_new(f->client, &call, &g, &err), SBIO_OK);
  collected out = {0};
  sbio_sdk_http_request stream = {
      .path = "/gate", .sink = collect, .sink_user = &out, .timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT};
  sbio_sdk_http_transfer *s = sbio_sdk_http_group_start(g, &stream);
  assert_non_null(s);
  /* The stream is open and has said its first word... */
  for (int i = 0; i < 500 && !strstr(out.text, "waiting"); i++) assert_true(sbio_sdk_http_group_wait(g, 20) >= 0);
  assert_string_equal(out.text, "waiting\n");
  assert_false(sbio_sdk_http_transfer_done(s));
  /* ...and only ends once a request next to it got through. */
  sbio_sdk_http_request open = {.method = "POST", .path = "/open", .body = "{}", .body_len = 2};
  sbio_sdk_http_transfer *o = sbio_sdk_http_group_start(g, &open);
  run_until_done(g, o);
  const sbio_sdk_http_response * or = sbio_sdk_http_transfer_response(o);
  assert_int_equal(or->outcome, SBIO_SDK_HTTP_ANSWERED);
  assert_int_equal(or->status, 200);
  assert_string_equal(or->body, "open");
  sbio_sdk_http_transfer_free(g, o);
  run_until_done(g, s);
  const sbio_sdk_http_response *sr = sbio_sdk_http_transfer_response(s);
  assert_int_equal(sr->outcome, SBIO_SDK_HTTP_ANSWERED);
  assert_int_equal(sr->status, 200);
  assert_string_equal(out.text, "waiting\nopened\n");
  assert_int_equal(sr->len, 0); /* it went to the sink */

  /* Side requests one after another share a connection. */
  int before = test_server_connections(f->server);
  for (int i = 0; i < 3; i++) {
    sbio_sdk_http_request ok = {.path = "/ok"};
    sbio_sdk_http_transfer *t = sbio_sdk_http_group_start(g, &ok);
    run_until_done(g, t);
    assert_int_equal(sbio_sdk_http_transfer_response(t)->status, 200);
    sbio_sdk_http_transfer_free(g, t);
  }
  assert_true(test_server_connections(f->server) <= before + 1);
  sbio_sdk_http_group_free(g);
}

static void errors_stay_in_their_transfer(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_group *g = NULL;
  assert_int_equal(sbio_sdk_http_group_new(f->client, &call, &g, NULL), SBIO_OK);
  sbio_sdk_http_request missing = {.path = "/status/404"}, fine = {.path = "/ok"}, flaky = {.path = "/flaky/1/503"};
  sbio_sdk_http_transfer *a = sbio_sdk_http_group_start(g, &missing);
  sbio_sdk_http_transfer *b = sbio_sdk_http_group_start(g, &fine);
  sbio_sdk_http_transfer *c = sbio_sdk_http_group_start(g, &flaky);
  run_until_done(g, a);
  run_until_done(g, b);
  run_until_done(g, c);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, sbio_sdk_http_transfer_response(a), SBIO_SDK_OP_FILE, "read", &err),
                   SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(sbio_sdk_http_transfer_response(b)->status, 200);
  /* No retries inside a group: the transfer reports the 503. */
  assert_int_equal(sbio_sdk_http_transfer_response(c)->status, 503);
  assert_int_equal(sbio_sdk_http_transfer_response(c)->attempts, 1);
  /* A malformed header: done at once, nothing sent. */
  const char *evil[] = {"X-A: 1\r\nX-B: 2"};
  sbio_sdk_http_request bad = {.path = "/echo", .headers = evil, .n_headers = 1};
  sbio_sdk_http_transfer *d = sbio_sdk_http_group_start(g, &bad);
  assert_true(sbio_sdk_http_transfer_done(d));
  assert_int_equal(sbio_sdk_http_transfer_response(d)->outcome, SBIO_SDK_HTTP_BROKEN);
  assert_int_equal(test_server_hits(f->server, "/echo"), 0);
  sbio_sdk_http_group_free(g); /* frees a, b, c, d */
}

static void deadline_ends_everything(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 0.3);
  sbio_sdk_http_group *g = NULL;
  assert_int_equal(sbio_sdk_http_group_new(f->client, &call, &g, NULL), SBIO_OK);
  sbio_sdk_http_request hang = {.path = "/hang", .timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT}, slow = {.path = "/slow/5000"};
  sbio_sdk_http_transfer *a = sbio_sdk_http_group_start(g, &hang);
  sbio_sdk_http_transfer *b = sbio_sdk_http_group_start(g, &slow);
  int64_t start = test_now_ns();
  while (!sbio_sdk_http_transfer_done(a) || !sbio_sdk_http_transfer_done(b))
    assert_true(sbio_sdk_http_group_wait(g, 1000) >= 0);
  /* The deadline ended both: /hang never answers, /slow would at 5 s (the
   * outcomes below say which ended them); the bound only catches a wait
   * far past both. */
  assert_true((test_now_ns() - start) / 1000000 < 30000);
  assert_int_equal(sbio_sdk_http_transfer_response(a)->outcome, SBIO_SDK_HTTP_TIMEOUT);
  assert_int_equal(sbio_sdk_http_transfer_response(b)->outcome, SBIO_SDK_HTTP_TIMEOUT);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, sbio_sdk_http_transfer_response(a), SBIO_SDK_OP_EXEC, "run", &err),
                   SBIO_E_EXEC_TIMEOUT);
  /* Once the deadline passed, nothing more starts. */
  sbio_sdk_http_request ok = {.path = "/ok"};
  int before = test_server_hits(f->server, "/ok");
  sbio_sdk_http_transfer *late = sbio_sdk_http_group_start(g, &ok);
  assert_true(sbio_sdk_http_transfer_done(late));
  assert_int_equal(sbio_sdk_http_transfer_response(late)->outcome, SBIO_SDK_HTTP_TIMEOUT);
  assert_int_equal(test_server_hits(f->server, "/ok"), before);
  sbio_sdk_http_group_free(g);
}

static int64_t cancel_at_ns;
static int cancel_after(const sbio_bk_call *call) {
  (void)call;
  return test_now_ns() >= cancel_at_ns;
}

static void cancellation_ends_everything(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 30);
  call.cancelled = cancel_after;
  cancel_at_ns = test_now_ns() + 200 * 1000000LL;
  sbio_sdk_http_group *g = NULL;
  assert_int_equal(sbio_sdk_http_group_new(f->client, &call, &g, NULL), SBIO_OK);
  sbio_sdk_http_request hang = {.path = "/hang"};
  sbio_sdk_http_transfer *a = sbio_sdk_http_group_start(g, &hang);
  sbio_sdk_http_transfer *b = sbio_sdk_http_group_start(g, &hang);
  while (!sbio_sdk_http_transfer_done(a) || !sbio_sdk_http_transfer_done(b))
    assert_true(sbio_sdk_http_group_wait(g, 1000) >= 0);
  assert_int_equal(sbio_sdk_http_transfer_response(a)->outcome, SBIO_SDK_HTTP_CANCELLED);
  assert_int_equal(sbio_sdk_http_transfer_response(b)->outcome, SBIO_SDK_HTTP_CANCELLED);
  sbio_sdk_http_group_free(g);
}

/* Freeing a group (or one transfer) while transfers run abandons them:
 * no leak, no hang, and the client still works. */
static void freeing_mid_flight(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_group *g = NULL;
  assert_int_equal(sbio_sdk_http_group_new(f->client, &call, &g, NULL), SBIO_OK);
  sbio_sdk_http_request hang = {.path = "/hang"};
  sbio_sdk_http_transfer *a = sbio_sdk_http_group_start(g, &hang);
  sbio_sdk_http_group_start(g, &hang);
  assert_true(sbio_sdk_http_group_wait(g, 100) == 2);
  sbio_sdk_http_transfer_free(g, a);
  assert_true(sbio_sdk_http_group_wait(g, 50) == 1);
  sbio_sdk_http_group_free(g);
  sbio_sdk_http_response resp;
  sbio_sdk_http_request ok = {.path = "/ok"};
  assert_int_equal(sbio_sdk_http_send(f->client, &ok, &call, &resp), 0);
  assert_int_equal(resp.status, 200);
  sbio_sdk_http_response_free(&resp);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(stream_with_side_requests, setup, teardown),
      cmocka_unit_test_setup_teardown(errors_stay_in_their_transfer, setup, teardown),
      cmocka_unit_test_setup_teardown(deadline_ends_everything, setup, teardown),
      cmocka_unit_test_setup_teardown(cancellation_ends_everything, setup, teardown),
      cmocka_unit_test_setup_teardown(freeing_mid_flight, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
