/* SPDX-License-Identifier: MIT */
/* SDK HTTP client, the streaming parts: bodies uploaded through a read
 * callback (known length and chunked, retried only when rewindable),
 * response bodies pulled piece by piece (bounded window, error answers,
 * deadline, early close), upgraded connections (101 and 2xx, refused,
 * half-close), unix-socket errors that name the socket, and sub-calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stream_server.h"
#include "test_host.h"

#include <sandboxio/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
  stream_server *server;
  test_host host;
  sbio_sdk_http *client;
  char base[64];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->server = stream_server_start();
  if (!f->server) return -1;
  snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", stream_server_port(f->server));
  test_host_init(&f->host);
  sbio_sdk_http_options opt = {
      .backend = "acme", .base_url = f->base, .host = &f->host.services, .backoff_initial_ms = 10, .no_proxy = 1};
  sbio_bk_error err = {.size = sizeof err};
  if (sbio_sdk_http_new(&opt, &f->client, &err) != SBIO_OK) return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  sbio_sdk_http_free(f->client);
  stream_server_stop(f->server);
  free(f);
  return 0;
}

/* ---------------------------------------------------------------- upload */
typedef struct source {
  const char *data;
  size_t len, off;
  size_t piece; /* at most this much per read: exercises many calls */
  int rewinds, fail_at;
} source;

static long source_read(void *user, char *buf, size_t size) {
  source *s = user;
  if (s->fail_at && s->off >= (size_t)s->fail_at) return -1;
  size_t k = s->len - s->off;
  if (k > size) k = size;
  if (k > s->piece) k = s->piece;
  memcpy(buf, s->data + s->off, k);
  s->off += k;
  return (long)k;
}

static int source_rewind(void *user) {
  source *s = user;
  s->off = 0;
  s->rewinds++;
  return 0;
}

static char *pattern(size_t n) {
  char *p = malloc(n);
  for (size_t i = 0; i < n; i++) p[i] = (char)('a' + i % 26);
  return p;
}

static void put(fixture *f, const char *path, source *src, int64_t len, int rewind, sbio_sdk_http_response *resp) {
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.method = "PUT",
                               .path = path,
                               .content_type = "application/x-tar",
                               .read = source_read,
                               .rewind = rewind ? source_rewind : NULL,
                               .read_user = src,
                               .read_len = len};
  sbio_sdk_http_send(f->client, &req, &call, resp);
}

static void upload_with_known_length(void **state) {
  fixture *f = *state;
  size_t n = 300000;
  char *data = pattern(n);
  source src = {.data = data, .len = n, .piece = 7000};
  sbio_sdk_http_response resp;
  put(f, "/upload", &src, (int64_t)n, 0, &resp);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_ANSWERED);
  assert_int_equal(resp.status, 200);
  assert_memory_equal(resp.body, "300000|-|", 9); /* Content-Length, not chunked */
  assert_int_equal(resp.len, 7 + 2 + n);
  assert_memory_equal(resp.body + 9, data, n);
  sbio_sdk_http_response_free(&resp);
  free(data);
}

static void upload_of_unknown_length_is_chunked(void **state) {
  fixture *f = *state;
  size_t n = 100001;
  char *data = pattern(n);
  source src = {.data = data, .len = n, .piece = 999};
  sbio_sdk_http_response resp;
  put(f, "/upload", &src, SBIO_SDK_HTTP_UNKNOWN_LENGTH, 0, &resp);
  assert_int_equal(resp.status, 200);
  assert_memory_equal(resp.body, "-|chunked|", 10);
  assert_int_equal(resp.len, 10 + n);
  assert_memory_equal(resp.body + 10, data, n);
  sbio_sdk_http_response_free(&resp);
  free(data);
}

/* A PUT is idempotent, but its body can only be sent again if it can be
 * read again. */
static void upload_is_retried_only_when_rewindable(void **state) {
  fixture *f = *state;
  source src = {.data = "payload", .len = 7, .piece = 100};
  sbio_sdk_http_response resp;
  put(f, "/flaky-upload/1", &src, 7, 0, &resp);
  assert_int_equal(resp.status, 503);
  assert_int_equal(resp.attempts, 1);
  sbio_sdk_http_response_free(&resp);
  assert_int_equal(stream_server_hits(f->server, "/flaky-upload/1"), 1);

  src = (source){.data = "payload", .len = 7, .piece = 100};
  put(f, "/flaky-upload/2", &src, 7, 1, &resp);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 2);
  assert_true(src.rewinds >= 2); /* before each attempt */
  assert_string_equal(resp.body, "7|-|payload");
  sbio_sdk_http_response_free(&resp);
}

static void upload_stopped_by_its_source(void **state) {
  fixture *f = *state;
  size_t n = 200000;
  char *data = pattern(n);
  source src = {.data = data, .len = n, .piece = 4096, .fail_at = 50000};
  sbio_sdk_http_response resp;
  put(f, "/upload", &src, (int64_t)n, 1, &resp);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_STOPPED);
  assert_int_equal(resp.attempts, 1);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_FILE, "upload", &err), SBIO_E_FS);
  sbio_sdk_http_response_free(&resp);
  free(data);
}

/* ---------------------------------------------------------------- stream */
static void stream_reads_a_large_body_in_bounded_pieces(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 30);
  sbio_sdk_http_request req = {.path = "/stream/3000000"};
  sbio_sdk_http_stream *s = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), 0);
  assert_non_null(s);
  assert_int_equal(resp.status, 200);
  char cl[32];
  assert_string_equal(sbio_sdk_http_header(&resp, "Content-Length", cl, sizeof cl), "3000000");
  size_t total = 0, largest = 0;
  int pieces = 0, bad = 0;
  const void *data;
  long n;
  while ((n = sbio_sdk_http_stream_read(s, &data)) > 0) {
    const unsigned char *p = data;
    for (long i = 0; i < n; i++) bad += p[i] != (unsigned char)((total + (size_t)i) % 251);
    total += (size_t)n;
    if ((size_t)n > largest) largest = (size_t)n;
    pieces++;
  }
  assert_int_equal(n, 0);
  assert_int_equal(total, 3000000);
  assert_int_equal(bad, 0);
  assert_true(pieces > 1);
  assert_true(largest <= 256 * 1024 + 64 * 1024);           /* the window, plus at most one of libcurl's chunks */
  assert_int_equal(sbio_sdk_http_stream_read(s, &data), 0); /* stays at its end */
  sbio_sdk_http_stream_close(s);
  sbio_sdk_http_response_free(&resp);
}

static void stream_of_an_error_answer_is_read_whole(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.path = "/status/404"};
  sbio_sdk_http_stream *s = (sbio_sdk_http_stream *)&call; /* overwritten */
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), 0);
  assert_null(s);
  assert_int_equal(resp.status, 404);
  assert_string_equal(resp.body, "{\"message\":\"status 404 from the stream server\"}");
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_FILE, "read", &err), SBIO_E_PATH_NOT_FOUND);
  assert_non_null(strstr(err.message, "status 404 from the stream server"));
  sbio_sdk_http_response_free(&resp);
}

static void stream_of_an_empty_body(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.path = "/stream/0"};
  sbio_sdk_http_stream *s = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), 0);
  assert_non_null(s);
  const void *data;
  assert_int_equal(sbio_sdk_http_stream_read(s, &data), 0);
  sbio_sdk_http_stream_close(s);
  sbio_sdk_http_response_free(&resp);
}

static void stream_stops_at_the_deadline(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 1);
  sbio_sdk_http_request req = {.path = "/stall"};
  sbio_sdk_http_stream *s = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), 0);
  assert_non_null(s);
  const void *data;
  assert_int_equal(sbio_sdk_http_stream_read(s, &data), 10);
  assert_memory_equal(data, "0123456789", 10);
  assert_int_equal(sbio_sdk_http_stream_read(s, &data), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_TIMEOUT);
  sbio_sdk_http_stream_close(s);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_FILE, "read", &err), SBIO_E_FS);
  sbio_sdk_http_response_free(&resp);
}

/* A wait that answers at once and sends its body when the awaited thing
 * happens: stream_open would wait for that body (here it never comes, so
 * the deadline ends it); open_at_head returns with the head, before the
 * thing happens, and the body is read afterwards. */
static void stream_open_at_head_returns_before_the_body(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 1);
  sbio_sdk_http_request req = {.method = "POST", .path = "/wait", .body = "{}", .body_len = 2};
  sbio_sdk_http_stream *s = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), -1);
  assert_null(s);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_TIMEOUT);
  sbio_sdk_http_response_free(&resp);

  test_call_init(&call, &f->host, 10);
  assert_int_equal(sbio_sdk_http_stream_open_at_head(f->client, &req, &call, &s, &resp), 0);
  assert_non_null(s);
  assert_int_equal(resp.status, 200);
  char v[64];
  assert_non_null(sbio_sdk_http_header(&resp, "Content-Type", v, sizeof v));
  assert_string_equal(v, "application/json");
  stream_server_release(f->server);
  const void *data;
  char body[64] = "";
  size_t len = 0;
  for (long n; (n = sbio_sdk_http_stream_read(s, &data)) > 0; len += (size_t)n) {
    assert_true(len + (size_t)n < sizeof body);
    memcpy(body + len, data, (size_t)n);
  }
  assert_string_equal(body, "{\"StatusCode\":7}");
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_ANSWERED);
  sbio_sdk_http_stream_close(s);
  sbio_sdk_http_response_free(&resp);
}

/* An error answer is still read whole: at_head only returns early for a 2xx. */
static void stream_open_at_head_reads_an_error_whole(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.path = "/status/404"};
  sbio_sdk_http_stream *s = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_stream_open_at_head(f->client, &req, &call, &s, &resp), 0);
  assert_null(s);
  assert_int_equal(resp.status, 404);
  assert_non_null(strstr(resp.body, "status 404 from the stream server"));
  sbio_sdk_http_response_free(&resp);
}

static int cancel_now(const sbio_bk_call *call) {
  (void)call;
  return 1;
}

/* Closed in the middle: nothing leaks (ASan) and the client still works. */
static void stream_closed_early_leaves_the_client_usable(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.path = "/stream/2000000"};
  sbio_sdk_http_stream *s = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), 0);
  const void *data;
  assert_true(sbio_sdk_http_stream_read(s, &data) > 0);
  sbio_sdk_http_stream_close(s);
  sbio_sdk_http_response_free(&resp);
  req.path = "/stream/5";
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), 0);
  assert_int_equal(sbio_sdk_http_stream_read(s, &data), 5);
  sbio_sdk_http_stream_close(s);
  sbio_sdk_http_response_free(&resp);
  call.cancelled = cancel_now;
  assert_int_equal(sbio_sdk_http_stream_open(f->client, &req, &call, &s, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_CANCELLED);
  assert_null(s);
  sbio_sdk_http_response_free(&resp);
}

/* --------------------------------------------------------------- upgrade */
static void recv_exactly(sbio_sdk_http_conn *conn, const char *want) {
  char got[256];
  size_t len = 0, need = strlen(want);
  while (len < need) {
    size_t n = 0;
    int io = sbio_sdk_http_conn_recv(conn, got + len, need - len, &n);
    if (io == SBIO_SDK_IO_AGAIN) {
      assert_true(sbio_sdk_http_conn_wait(conn, SBIO_SDK_WAIT_READ, 5000) > 0);
      continue;
    }
    assert_int_equal(io, SBIO_SDK_IO_OK);
    len += n;
  }
  assert_memory_equal(got, want, need);
}

static void expect_eof(sbio_sdk_http_conn *conn) {
  for (;;) {
    char b[16];
    size_t n = 0;
    int io = sbio_sdk_http_conn_recv(conn, b, sizeof b, &n);
    if (io == SBIO_SDK_IO_AGAIN) {
      assert_true(sbio_sdk_http_conn_wait(conn, SBIO_SDK_WAIT_READ, 5000) > 0);
      continue;
    }
    assert_int_equal(io, SBIO_SDK_IO_EOF);
    return;
  }
}

static void upgrade_and_talk(fixture *f, const char *path, long status) {
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.method = "POST", .path = path, .body = "{\"Detach\":false}", .body_len = 16};
  sbio_sdk_http_conn *conn = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_upgrade(f->client, &req, "tcp", &call, &conn, &resp), 0);
  assert_non_null(conn);
  assert_int_equal(resp.status, status);
  recv_exactly(conn, "hello:{\"Detach\":false}");
  size_t n = 0;
  assert_true(sbio_sdk_http_conn_wait(conn, SBIO_SDK_WAIT_WRITE, 5000) & SBIO_SDK_WAIT_WRITE);
  assert_int_equal(sbio_sdk_http_conn_send(conn, "ping", 4, &n), SBIO_SDK_IO_OK);
  assert_int_equal(n, 4);
  recv_exactly(conn, "ping");
  /* Half-closed: the server sees EOF, and its answer still arrives. */
  assert_int_equal(sbio_sdk_http_conn_shutdown_write(conn), 0);
  recv_exactly(conn, "bye");
  expect_eof(conn);
  sbio_sdk_http_conn_close(conn);
  sbio_sdk_http_response_free(&resp);
}

static void upgrade_with_101(void **state) {
  upgrade_and_talk(*state, "/upgrade", 101);
}

static void upgrade_answered_with_200(void **state) {
  upgrade_and_talk(*state, "/upgrade-200", 200);
}

static void upgrade_refused(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.method = "POST", .path = "/upgrade-refused", .body = "{}", .body_len = 2};
  sbio_sdk_http_conn *conn = NULL;
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_upgrade(f->client, &req, "tcp", &call, &conn, &resp), 0);
  assert_null(conn);
  assert_int_equal(resp.status, 404);
  assert_string_equal(resp.body, "{\"message\":\"no such exec\"}");
  char type[8];
  assert_string_equal(sbio_sdk_http_header(&resp, "content-length", type, sizeof type), "26");
  sbio_sdk_http_response_free(&resp);
  /* A protocol that is not one token is refused before anything is sent. */
  int hits = stream_server_hits(f->server, "/upgrade-refused");
  assert_int_equal(sbio_sdk_http_upgrade(f->client, &req, "tcp\r\nX: y", &call, &conn, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_BROKEN);
  assert_int_equal(stream_server_hits(f->server, "/upgrade-refused"), hits);
  sbio_sdk_http_response_free(&resp);
}

/* ------------------------------------------------------------ unix socket */
static void missing_unix_socket_is_named_with_its_error(void **state) {
  fixture *f = *state;
  sbio_sdk_http_options opt = {.backend = "acme",
                               .base_url = "http://localhost",
                               .unix_socket = "/nonexistent/sbio-sdk-test.sock",
                               .host = &f->host.services,
                               .max_attempts = 1};
  sbio_sdk_http *c = NULL;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_new(&opt, &c, &err), SBIO_OK);
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.path = "/_ping"};
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_send(c, &req, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_UNREACHABLE);
  assert_string_equal(resp.error, "connect to /nonexistent/sbio-sdk-test.sock: No such file or directory");
  assert_int_equal(resp.tls_failure, 0);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_conn *conn = NULL;
  req.method = "POST";
  assert_int_equal(sbio_sdk_http_upgrade(c, &req, "tcp", &call, &conn, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_UNREACHABLE);
  assert_string_equal(resp.error, "connect to /nonexistent/sbio-sdk-test.sock: No such file or directory");
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

/* --------------------------------------------------------------- subcall */
static int parent_says, parent_exec_says;
static const sbio_bk_call *parent_seen;

static int parent_cancelled(const sbio_bk_call *call) {
  parent_seen = call;
  return parent_says;
}

static int parent_exec_cancelled(const sbio_bk_call *call) {
  parent_seen = call;
  return parent_exec_says;
}

static void narrow_call_keeps_the_earlier_deadline_and_the_cancellation(void **state) {
  fixture *f = *state;
  sbio_bk_call parent;
  test_call_init(&parent, &f->host, 100);
  parent.cancelled = parent_cancelled;
  sbio_sdk_subcall sub;
  sbio_sdk_call_narrow(&sub, &parent, 2);
  assert_true(sub.call.deadline_ns < parent.deadline_ns);
  assert_true(sub.call.deadline_ns > test_now_ns());
  assert_ptr_equal(sub.call.host, parent.host);
  parent_says = 0;
  assert_int_equal(sub.call.cancelled(&sub.call), 0);
  parent_says = 1;
  assert_int_equal(sub.call.cancelled(&sub.call), 1);
  assert_ptr_equal(parent_seen, &parent);                 /* asked with the parent's own identity */
  assert_int_equal(sbio_bk_exec_cancelled(&sub.call), 0); /* a parent without exec_cancelled */
  parent.exec_cancelled = parent_exec_cancelled;
  parent_exec_says = 1;
  parent_seen = NULL;
  assert_int_equal(sbio_bk_exec_cancelled(&sub.call), 1);
  assert_ptr_equal(parent_seen, &parent);
  sbio_sdk_call_narrow(&sub, &parent, 1000);
  assert_true(sub.call.deadline_ns == parent.deadline_ns);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(upload_with_known_length, setup, teardown),
      cmocka_unit_test_setup_teardown(upload_of_unknown_length_is_chunked, setup, teardown),
      cmocka_unit_test_setup_teardown(upload_is_retried_only_when_rewindable, setup, teardown),
      cmocka_unit_test_setup_teardown(upload_stopped_by_its_source, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_reads_a_large_body_in_bounded_pieces, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_of_an_error_answer_is_read_whole, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_of_an_empty_body, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_stops_at_the_deadline, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_closed_early_leaves_the_client_usable, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_open_at_head_returns_before_the_body, setup, teardown),
      cmocka_unit_test_setup_teardown(stream_open_at_head_reads_an_error_whole, setup, teardown),
      cmocka_unit_test_setup_teardown(upgrade_with_101, setup, teardown),
      cmocka_unit_test_setup_teardown(upgrade_answered_with_200, setup, teardown),
      cmocka_unit_test_setup_teardown(upgrade_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(missing_unix_socket_is_named_with_its_error, setup, teardown),
      cmocka_unit_test_setup_teardown(narrow_call_keeps_the_earlier_deadline_and_the_cancellation, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
