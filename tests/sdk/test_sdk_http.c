/* SPDX-License-Identifier: MIT */
/* SDK HTTP client against a scripted loopback server: answers, error
 * mapping, the retry rules (429 whatever the method, never-sent requests,
 * the rest only when idempotent), Retry-After, deadlines, an attempt's own
 * time limit, cancellation, limits, multipart bodies, secrets, unix
 * sockets, connection reuse and concurrent use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "http_server.h"
#include "test_host.h"

#include <netinet/in.h>
#include <pthread.h>
#include <sandboxio/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef struct fixture {
  test_server *server;
  test_host host;
  sbio_sdk_http *client;
  char base[64];
} fixture;

/* A client on the fixture's server with small backoffs so tests are quick. */
static sbio_sdk_http *client_with(fixture *f, sbio_sdk_http_options opt) {
  opt.backend = "acme";
  if (!opt.base_url) opt.base_url = f->base;
  opt.host = &f->host.services;
  if (!opt.backoff_initial_ms) opt.backoff_initial_ms = 10;
  sbio_sdk_http *c = NULL;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_new(&opt, &c, &err), SBIO_OK);
  return c;
}

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->server = test_server_start(NULL);
  if (!f->server) return -1;
  snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", test_server_port(f->server));
  test_host_init(&f->host);
  f->client = client_with(f, (sbio_sdk_http_options){0});
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

static int get(fixture *f, sbio_sdk_http *c, const char *path, double seconds, sbio_sdk_http_response *resp) {
  sbio_bk_call call;
  test_call_init(&call, &f->host, seconds);
  sbio_sdk_http_request req = {.path = path};
  return sbio_sdk_http_send(c ? c : f->client, &req, &call, resp);
}

static void answers(void **state) {
  fixture *f = *state;
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, NULL, "/ok", 10, &resp), 0);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_ANSWERED);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 1);
  assert_int_equal(resp.failed_at, SBIO_SDK_HTTP_AT_NONE);
  assert_string_equal(resp.body, "{\"ok\":true}");
  assert_int_equal(resp.len, 11);
  char type[64];
  assert_non_null(sbio_sdk_http_header(&resp, "content-type", type, sizeof type));
  assert_string_equal(type, "application/json");
  assert_null(sbio_sdk_http_header(&resp, "X-Missing", type, sizeof type));
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_EXEC, "run", &err), SBIO_OK);
  sbio_sdk_http_response_free(&resp);

  /* Bodies may hold NUL bytes. */
  assert_int_equal(get(f, NULL, "/binary", 10, &resp), 0);
  assert_int_equal(resp.len, 3);
  assert_memory_equal(resp.body, "a\0b", 3);
  sbio_sdk_http_response_free(&resp);
}

static void request_shape(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  const char *headers[] = {"X-Test: hello"};
  sbio_sdk_http_request req = {
      .method = "PUT", .path = "echo", .headers = headers, .n_headers = 1, .body = "{\"a\":1}", .body_len = 7};
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_send(f->client, &req, &call, &resp), 0);
  assert_string_equal(resp.body, "PUT|hello|application/json|{\"a\":1}");
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_request post = {.method = "POST",
                                .path = "/echo",
                                .body = "x=1",
                                .body_len = 3,
                                .content_type = "application/x-www-form-urlencoded"};
  assert_int_equal(sbio_sdk_http_send(f->client, &post, &call, &resp), 0);
  assert_string_equal(resp.body, "POST||application/x-www-form-urlencoded|x=1");
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_request del = {.method = "DELETE", .path = "/echo"};
  assert_int_equal(sbio_sdk_http_send(f->client, &del, &call, &resp), 0);
  assert_string_equal(resp.body, "DELETE|||");
  sbio_sdk_http_response_free(&resp);
  /* A header that would inject another line is refused, nothing is sent. */
  const char *evil[] = {"X-Test: a\r\nX-Other: b"};
  sbio_sdk_http_request bad = {.path = "/echo", .headers = evil, .n_headers = 1};
  int before = test_server_hits(f->server, "/echo");
  assert_int_equal(sbio_sdk_http_send(f->client, &bad, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_BROKEN);
  assert_int_equal(test_server_hits(f->server, "/echo"), before);
  sbio_sdk_http_response_free(&resp);
}

static void status_errors(void **state) {
  fixture *f = *state;
  sbio_sdk_http_response resp;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(get(f, NULL, "/status/404", 10, &resp), 0);
  assert_int_equal(resp.attempts, 1); /* 404 is not worth repeating */
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_FILE, "read /x", &err), SBIO_E_PATH_NOT_FOUND);
  assert_int_equal(err.provider_status, 404);
  assert_string_equal(err.message, "acme: read /x: the provider answered HTTP 404: status 404 from the test server");
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_EXEC, "run", &err), SBIO_E_GONE);
  sbio_sdk_http_response_free(&resp);

  assert_int_equal(get(f, NULL, "/status/401", 10, &resp), 0);
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_AUTH);
  sbio_sdk_http_response_free(&resp);

  assert_int_equal(get(f, NULL, "/nested-error", 10, &resp), 0);
  sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_CREATE, "create", &err);
  assert_string_equal(err.message, "acme: create: the provider answered HTTP 409: already exists");
  sbio_sdk_http_response_free(&resp);

  /* Text bodies give their first line; HTML gives nothing. 502 is retried. */
  assert_int_equal(get(f, NULL, "/text", 10, &resp), 0);
  assert_int_equal(resp.attempts, 3);
  sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_CONNECT, "list", &err);
  assert_string_equal(err.message, "acme: list: the provider answered HTTP 502: upstream down (after 3 attempts)");
  sbio_sdk_http_response_free(&resp);
  assert_int_equal(get(f, NULL, "/html", 10, &resp), 0);
  sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_CONNECT, "list", &err);
  assert_null(strstr(err.message, "<"));
  assert_int_equal(err.code, SBIO_E_CONNECT);
  sbio_sdk_http_response_free(&resp);
}

static void retries_idempotent_only(void **state) {
  fixture *f = *state;
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, NULL, "/flaky/2/503", 10, &resp), 0);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 3);
  assert_int_equal(test_server_hits(f->server, "/flaky/2/503"), 3);
  assert_non_null(strstr(f->host.log, "retrying"));
  assert_non_null(strstr(f->host.log, "HTTP 503"));
  sbio_sdk_http_response_free(&resp);

  /* A POST is not repeated behind the caller's back... */
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request post = {.method = "POST", .path = "/flaky/2/500", .body = "{}", .body_len = 2};
  assert_int_equal(sbio_sdk_http_send(f->client, &post, &call, &resp), 0);
  assert_int_equal(resp.status, 500);
  assert_int_equal(resp.attempts, 1);
  assert_int_equal(test_server_hits(f->server, "/flaky/2/500"), 1);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_CREATE);
  assert_int_equal(err.provider_status, 500);
  sbio_sdk_http_response_free(&resp);
  /* ...unless the caller vouches for it; and RETRY_NEVER stops a GET. */
  sbio_sdk_http_request keyed = {
      .method = "POST", .path = "/flaky/1/503", .body = "{}", .body_len = 2, .retry = SBIO_SDK_RETRY_IDEMPOTENT};
  assert_int_equal(sbio_sdk_http_send(f->client, &keyed, &call, &resp), 0);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 2);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_request never = {.path = "/flaky/1/504", .retry = SBIO_SDK_RETRY_NEVER};
  assert_int_equal(sbio_sdk_http_send(f->client, &never, &call, &resp), 0);
  assert_int_equal(resp.status, 504);
  assert_int_equal(resp.attempts, 1);
  sbio_sdk_http_response_free(&resp);

  /* Bounded: max_attempts in all. */
  assert_int_equal(get(f, NULL, "/flaky/9/503", 10, &resp), 0);
  assert_int_equal(resp.status, 503);
  assert_int_equal(resp.attempts, 3);
  assert_int_equal(test_server_hits(f->server, "/flaky/9/503"), 3);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http *once = client_with(f, (sbio_sdk_http_options){.max_attempts = 1});
  assert_int_equal(get(f, once, "/flaky/1/429", 10, &resp), 0);
  assert_int_equal(resp.attempts, 1);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(once);
}

/* The wait the client logged before attempt `attempt` of `path` (what it
 * decided, exactly, whatever the machine's load), or -1 when it logged none. */
static long logged_wait(const fixture *f, const char *path, int attempt) {
  char tail[48];
  snprintf(tail, sizeof tail, "(attempt %d of", attempt);
  for (const char *line = f->host.log; line && *line;) {
    const char *end = strchr(line, '\n');
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)(end ? end - line : (long)strlen(line)), line);
    const char *in = strstr(buf, "retrying in ");
    char where[300];
    snprintf(where, sizeof where, " %s ", path);
    if (in && strstr(buf, where) && strstr(buf, tail)) return strtol(in + strlen("retrying in "), NULL, 10);
    line = end ? end + 1 : NULL;
  }
  return -1;
}

static void backoff_grows(void **state) {
  fixture *f = *state;
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.backoff_initial_ms = 100, .max_attempts = 4});
  sbio_sdk_http_response resp;
  int64_t start = test_now_ns();
  assert_int_equal(get(f, c, "/flaky/3/503", 10, &resp), 0);
  int64_t ms = (test_now_ns() - start) / 1000000;
  assert_int_equal(resp.attempts, 4);
  assert_true(ms >= (100 + 200 + 400) * 8 / 10 - 20); /* 100, 200, 400, each spread by 0.8..1.2 */
  long w2 = logged_wait(f, "/flaky/3/503", 2), w3 = logged_wait(f, "/flaky/3/503", 3),
       w4 = logged_wait(f, "/flaky/3/503", 4);
  assert_in_range(w2, 80, 120);
  assert_in_range(w3, 160, 240);
  assert_in_range(w4, 320, 480);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);

  /* A wait that would pass the deadline is not made: the 502 comes back
   * at once, not when the 30 s deadline ends a useless wait. */
  c = client_with(f, (sbio_sdk_http_options){.backoff_initial_ms = 60000});
  start = test_now_ns();
  assert_int_equal(get(f, c, "/flaky/3/502", 30, &resp), 0);
  assert_int_equal(resp.attempts, 1);
  assert_int_equal(resp.status, 502);
  assert_int_equal(logged_wait(f, "/flaky/3/502", 2), -1);
  assert_true((test_now_ns() - start) / 1000000 < 15000);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

static void retry_after(void **state) {
  fixture *f = *state;
  sbio_sdk_http_response resp;
  int64_t start = test_now_ns();
  assert_int_equal(get(f, NULL, "/retry-after/1", 10, &resp), 0);
  int64_t ms = (test_now_ns() - start) / 1000000;
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 2);
  assert_true(ms >= 950); /* the provider's 1 s, not the 10 ms backoff */
  sbio_sdk_http_response_free(&resp);

  /* A date already past: retry at once. */
  assert_int_equal(get(f, NULL, "/retry-after-date", 10, &resp), 0);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 2);
  assert_int_equal(logged_wait(f, "/retry-after-date", 2), 0);
  sbio_sdk_http_response_free(&resp);

  /* Longer than we will wait: the 429 comes back, mapped, with the wait. */
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.retry_after_max_ms = 500});
  assert_int_equal(get(f, c, "/retry-after/7", 10, &resp), 0);
  assert_int_equal(resp.status, 429);
  assert_int_equal(resp.attempts, 1);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(c, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_RATE_LIMIT);
  assert_non_null(strstr(err.hint, "it asked to wait: 7"));
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

static void deadline(void **state) {
  fixture *f = *state;
  sbio_sdk_http_response resp;
  int64_t start = test_now_ns();
  assert_int_equal(get(f, NULL, "/hang", 0.3, &resp), -1);
  int64_t ms = (test_now_ns() - start) / 1000000;
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_TIMEOUT);
  assert_int_equal(resp.failed_at, SBIO_SDK_HTTP_AT_TRANSFER); /* connected, then no answer */
  assert_int_equal(resp.attempts, 1);                          /* a timeout is never retried */
  assert_true(ms >= 250);                                      /* not before the deadline ... */
  assert_true(ms < 20000); /* ... and /hang never answers: only the deadline ended it */
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_CREATE_TIMEOUT);
  assert_non_null(strstr(err.message, "before the deadline"));
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_EXEC, "run", &err), SBIO_E_EXEC_TIMEOUT);
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_FILE, "read", &err), SBIO_E_FS);
  sbio_sdk_http_response_free(&resp);

  /* A deadline already past: nothing is sent. */
  int before = test_server_hits(f->server, "/ok");
  assert_int_equal(get(f, NULL, "/ok", -1, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_TIMEOUT);
  assert_int_equal(test_server_hits(f->server, "/ok"), before);
  sbio_sdk_http_response_free(&resp);
}

static int64_t cancel_at_ns;
static int cancel_after(const sbio_bk_call *call) {
  (void)call;
  return test_now_ns() >= cancel_at_ns;
}

static void cancellation(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 30);
  call.cancelled = cancel_after;
  cancel_at_ns = test_now_ns() + 200 * 1000000LL;
  sbio_sdk_http_request req = {.path = "/hang"};
  sbio_sdk_http_response resp;
  int64_t start = test_now_ns();
  assert_int_equal(sbio_sdk_http_send(f->client, &req, &call, &resp), -1);
  int64_t ms = (test_now_ns() - start) / 1000000;
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_CANCELLED);
  assert_true(ms >= 150 && ms < 15000); /* cancelled, not the 30 s deadline */
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_EXEC, "run", &err), SBIO_E_EXEC);
  assert_non_null(strstr(err.message, "cancelled"));
  sbio_sdk_http_response_free(&resp);

  /* Cancelled during a backoff wait. */
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.backoff_initial_ms = 20000});
  cancel_at_ns = test_now_ns() + 300 * 1000000LL;
  sbio_sdk_http_request flaky = {.path = "/flaky/3/503"};
  start = test_now_ns();
  assert_int_equal(sbio_sdk_http_send(c, &flaky, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_CANCELLED);
  assert_true((test_now_ns() - start) / 1000000 < 10000); /* not the 20 s backoff */
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

/* A port nothing listens on. */
static int closed_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof addr;
  bind(fd, (struct sockaddr *)&addr, sizeof addr);
  getsockname(fd, (struct sockaddr *)&addr, &len);
  close(fd);
  return ntohs(addr.sin_port);
}

static void unreachable(void **state) {
  fixture *f = *state;
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d/api", closed_port());
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.base_url = url});
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, c, "/ok", 10, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_UNREACHABLE);
  assert_int_equal(resp.failed_at, SBIO_SDK_HTTP_AT_CONNECT);
  assert_int_equal(resp.attempts, 3); /* a GET is retried */
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(c, &resp, SBIO_SDK_OP_CONNECT, "list sandboxes", &err), SBIO_E_CONNECT);
  assert_non_null(strstr(err.message, "acme: list sandboxes: cannot reach the provider at http://127.0.0.1:"));
  assert_non_null(strstr(err.message, "(after 3 attempts)"));
  assert_true(err.hint[0] != '\0');
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);

  /* TLS spoken to a server that answers in plain HTTP: the handshake is
   * where it failed. */
  snprintf(url, sizeof url, "https://127.0.0.1:%d/api", test_server_port(f->server));
  c = client_with(f, (sbio_sdk_http_options){.base_url = url, .max_attempts = 1});
  assert_int_equal(get(f, c, "/ok", 10, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_UNREACHABLE);
  assert_int_equal(resp.failed_at, SBIO_SDK_HTTP_AT_TLS);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

static int64_t sunk;
static int sink_count(void *user, const char *data, size_t len) {
  (void)data;
  sunk += (int64_t)len;
  return user ? 1 : 0; /* non-NULL user: stop at once */
}

static void limits_and_sinks(void **state) {
  fixture *f = *state;
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.body_limit = 1000});
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, c, "/big/1000", 10, &resp), 0);
  assert_int_equal(resp.len, 1000);
  sbio_sdk_http_response_free(&resp);
  assert_int_equal(get(f, c, "/big/100000", 10, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_TOO_LARGE);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(c, &resp, SBIO_SDK_OP_FILE, "read", &err), SBIO_E_FS);
  assert_non_null(strstr(err.message, "exceeded 1000 bytes"));
  sbio_sdk_http_response_free(&resp);

  /* A sink takes a 2xx body beyond the buffer limit. */
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sunk = 0;
  sbio_sdk_http_request req = {.path = "/big/100000", .sink = sink_count};
  assert_int_equal(sbio_sdk_http_send(c, &req, &call, &resp), 0);
  assert_int_equal(sunk, 100000);
  assert_int_equal(resp.len, 0);
  sbio_sdk_http_response_free(&resp);
  /* An error body still goes to the buffer, for the message. */
  sunk = 0;
  req.path = "/status/404";
  assert_int_equal(sbio_sdk_http_send(c, &req, &call, &resp), 0);
  assert_int_equal(sunk, 0);
  assert_non_null(strstr(resp.body, "status 404"));
  sbio_sdk_http_response_free(&resp);
  /* The sink may stop the transfer. */
  req.path = "/big/100000";
  req.sink_user = &sunk;
  assert_int_equal(sbio_sdk_http_send(c, &req, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_STOPPED);
  assert_int_equal(resp.attempts, 1);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

static void secrets_stay_out(void **state) {
  fixture *f = *state;
  const char *secret_headers[] = {"X-Api-Key: sk-SECRET-123"};
  sbio_sdk_http *c =
      client_with(f, (sbio_sdk_http_options){
                         .secret_headers = secret_headers, .n_secret_headers = 1, .credential_env = "ACME_API_KEY"});
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, c, "/leak", 10, &resp), 0);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(c, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_CREATE);
  assert_string_equal(err.message, "acme: create: the provider answered HTTP 400: refused key *** and ***");
  sbio_sdk_http_response_free(&resp);
  /* A key the 240-byte cut of the provider's message falls inside: still
   * redacted whole, not cut to "sk-SECR" first. */
  assert_int_equal(get(f, c, "/leak-at-the-cut", 10, &resp), 0);
  assert_int_equal(sbio_sdk_http_fail(c, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_CREATE);
  assert_null(strstr(err.message, "sk-S"));
  assert_non_null(strstr(err.message, "0 ***"));
  sbio_sdk_http_response_free(&resp);
  assert_int_equal(get(f, c, "/status/403", 10, &resp), 0);
  assert_int_equal(sbio_sdk_http_fail(c, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_AUTH);
  assert_non_null(strstr(err.hint, "ACME_API_KEY"));
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

static void bad_options(void **state) {
  fixture *f = *state;
  static const char *const urls[] = {"ftp://x",     "http://",  "https:///path", "http://user:pw@host/",
                                     "http://a b/", "not a url"};
  sbio_bk_error err = {.size = sizeof err};
  sbio_sdk_http *c = NULL;
  for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
    sbio_sdk_http_options opt = {.backend = "acme", .base_url = urls[i]};
    assert_int_equal(sbio_sdk_http_new(&opt, &c, &err), SBIO_E_CONFIG);
    assert_null(c);
    assert_null(strstr(err.message, "pw")); /* never the URL: it may hold credentials */
  }
  const char *bad_header[] = {"NoColon"};
  sbio_sdk_http_options opt = {.backend = "acme", .base_url = f->base, .headers = bad_header, .n_headers = 1};
  assert_int_equal(sbio_sdk_http_new(&opt, &c, &err), SBIO_E_CONFIG);
  const char *split[] = {"X-Key: a\nb"};
  opt = (sbio_sdk_http_options){.backend = "acme", .base_url = f->base, .secret_headers = split, .n_secret_headers = 1};
  assert_int_equal(sbio_sdk_http_new(&opt, &c, &err), SBIO_E_CONFIG);
  assert_null(strstr(err.message, "a\nb"));
  assert_int_equal(sbio_sdk_http_new(NULL, &c, &err), SBIO_E_INVALID_ARGUMENT);

  sbio_sdk_http_response resp;
  sbio_sdk_http_request req = {.path = "/ok"};
  assert_int_equal(sbio_sdk_http_send(f->client, &req, NULL, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_BROKEN);
  sbio_sdk_http_response_free(&resp);
}

static void escape_and_call_init(void **state) {
  (void)state;
  char *e = sbio_sdk_http_escape("a b/c?d=é~_.-");
  assert_string_equal(e, "a%20b%2Fc%3Fd%3D%C3%A9~_.-");
  free(e);
  e = sbio_sdk_http_escape("");
  assert_string_equal(e, "");
  free(e);
  e = sbio_sdk_http_path("/sandboxes/", "a/b c", "/timeout?x=1");
  assert_string_equal(e, "/sandboxes/a%2Fb%20c/timeout?x=1");
  free(e);
  e = sbio_sdk_http_path("/files?path=", "", "");
  assert_string_equal(e, "/files?path=");
  free(e);
  test_host h;
  test_host_init(&h);
  sbio_bk_call call;
  sbio_sdk_call_init(&call, &h.services, 5);
  assert_int_equal(call.size, sizeof call);
  int64_t left = sbio_bk_remaining_ns(&call);
  assert_true(left > 4 * 1000000000LL && left <= 5 * 1000000000LL);
  assert_false(call.cancelled(&call));
  sbio_sdk_call_init(&call, &h.services, 1e30); /* saturates, never wraps */
  assert_true(call.deadline_ns > 0);
}

static void unix_socket(void **state) {
  fixture *f = *state;
  char path[64];
  snprintf(path, sizeof path, "/tmp/sbio-sdk-test-%d.sock", (int)getpid());
  test_server *us = test_server_start(path);
  assert_non_null(us);
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.base_url = "http://localhost/v1", .unix_socket = path});
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, c, "/ok", 10, &resp), 0);
  assert_int_equal(resp.status, 404); /* the path is /v1/ok: the base URL's path is kept */
  assert_int_equal(test_server_hits(us, "/v1/ok"), 1);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
  test_server_stop(us);
}

/* 429: the provider did nothing, so even a create is tried again, after
 * what Retry-After asks, within the deadline. */
static void rate_limit_is_retried_whatever_the_method(void **state) {
  fixture *f = *state;
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request post = {.method = "POST", .path = "/retry-after/1", .body = "{}", .body_len = 2};
  sbio_sdk_http_response resp;
  int64_t start = test_now_ns();
  assert_int_equal(sbio_sdk_http_send(f->client, &post, &call, &resp), 0);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 2);
  assert_int_equal(test_server_hits(f->server, "/retry-after/1"), 2);
  assert_true((test_now_ns() - start) / 1000000 >= 950); /* what the provider asked for */
  assert_non_null(strstr(f->host.log, "POST /retry-after/1 was throttled (429); retrying in 1000 ms"));
  sbio_sdk_http_response_free(&resp);

  /* A Retry-After that ends after the deadline: no wait at all, the 429
   * comes back at once and is a rate limit, not a timeout. */
  test_call_init(&call, &f->host, 30);
  sbio_sdk_http_request late = {.method = "POST", .path = "/retry-after/60", .body = "{}", .body_len = 2};
  start = test_now_ns();
  assert_int_equal(sbio_sdk_http_send(f->client, &late, &call, &resp), 0);
  assert_int_equal(resp.status, 429);
  assert_int_equal(resp.attempts, 1);
  assert_int_equal(logged_wait(f, "/retry-after/60", 2), -1);
  assert_true((test_now_ns() - start) / 1000000 < 15000); /* not the 30 s deadline */
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(f->client, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_RATE_LIMIT);
  assert_non_null(strstr(err.hint, "it asked to wait: 60"));
  sbio_sdk_http_response_free(&resp);

  /* RETRY_NEVER means never, a 429 too. */
  sbio_sdk_http_request never = {.method = "POST", .path = "/retry-after/0", .retry = SBIO_SDK_RETRY_NEVER};
  assert_int_equal(sbio_sdk_http_send(f->client, &never, &call, &resp), 0);
  assert_int_equal(resp.status, 429);
  assert_int_equal(resp.attempts, 1);
  sbio_sdk_http_response_free(&resp);

  /* Retry-After as an HTTP date ahead of now. */
  assert_int_equal(
      sbio_sdk_http_send(f->client, &(sbio_sdk_http_request){.path = "/retry-after-date-in/2"}, &call, &resp), 0);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 2);
  sbio_sdk_http_response_free(&resp);
}

/* A request that provably never left (nobody listens) may be repeated
 * whatever it is; one that may have reached the server only if it is
 * idempotent. */
static void never_sent_versus_maybe_sent(void **state) {
  fixture *f = *state;
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%d", closed_port());
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.base_url = url});
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request post = {.method = "POST", .path = "/sandboxes", .body = "{}", .body_len = 2};
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_send(c, &post, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_UNREACHABLE);
  assert_true(resp.not_sent);
  assert_int_equal(resp.attempts, 3);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);

  /* The connection was made and dropped: the POST may have been acted on. */
  sbio_sdk_http_request reset = {.method = "POST", .path = "/reset", .body = "{}", .body_len = 2};
  assert_int_equal(sbio_sdk_http_send(f->client, &reset, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_BROKEN);
  assert_false(resp.not_sent);
  assert_int_equal(resp.attempts, 1);
  assert_int_equal(test_server_hits(f->server, "/reset"), 1);
  sbio_sdk_http_response_free(&resp);
  assert_int_equal(get(f, NULL, "/reset", 10, &resp), -1);
  assert_int_equal(resp.attempts, 3); /* a GET may be repeated */
  assert_int_equal(test_server_hits(f->server, "/reset"), 4);
  sbio_sdk_http_response_free(&resp);
}

/* The answers worth repeating are the client's to choose (a provider whose
 * 502 means "gone"), 429 aside. */
static void retry_statuses_are_configurable(void **state) {
  fixture *f = *state;
  static const long only_503[] = {503};
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.retry_statuses = only_503, .n_retry_statuses = 1});
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, c, "/flaky/1/502", 10, &resp), 0);
  assert_int_equal(resp.status, 502);
  assert_int_equal(resp.attempts, 1);
  sbio_sdk_http_response_free(&resp);
  assert_int_equal(get(f, c, "/flaky/1/503", 10, &resp), 0);
  assert_int_equal(resp.status, 200);
  assert_int_equal(resp.attempts, 2);
  sbio_sdk_http_response_free(&resp);
  assert_int_equal(get(f, c, "/retry-after/0", 10, &resp), 0);
  assert_int_equal(resp.status, 200);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

/* An attempt's own time limit: SLOW (not the deadline), repeated only when
 * the request may be; a stream opts out of it. */
static void attempt_time_limit(void **state) {
  fixture *f = *state;
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){.request_timeout_ms = 200});
  sbio_sdk_http_response resp;
  assert_int_equal(get(f, c, "/hang", 10, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_SLOW);
  assert_int_equal(resp.attempts, 3);
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_fail(c, &resp, SBIO_SDK_OP_CREATE, "create", &err), SBIO_E_CREATE);
  assert_non_null(strstr(err.message, "acme: create: no complete answer within 200 ms from http://127.0.0.1:"));
  sbio_sdk_http_response_free(&resp);
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request post = {.method = "POST", .path = "/hang", .body = "{}", .body_len = 2};
  assert_int_equal(sbio_sdk_http_send(c, &post, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_SLOW);
  assert_int_equal(resp.attempts, 1);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_request stream = {.path = "/slow/500", .timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT};
  assert_int_equal(sbio_sdk_http_send(c, &stream, &call, &resp), 0);
  assert_int_equal(resp.status, 200);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_request shorter = {.path = "/slow/500", .timeout_ms = 100, .retry = SBIO_SDK_RETRY_NEVER};
  assert_int_equal(sbio_sdk_http_send(f->client, &shorter, &call, &resp), -1);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_SLOW);
  sbio_sdk_http_response_free(&resp);
  sbio_sdk_http_free(c);
}

static void multipart_bodies(void **state) {
  fixture *f = *state;
  static const char data[] = {'a', 0, 'b', '\r', '\n', 'z'};
  sbio_sdk_http_part parts[] = {
      {.name = "file", .filename = "dir/a\"b.txt", .data = data, .len = sizeof data},
      {.name = "meta", .data = "x=1", .len = 3},
      {.name = "typed", .content_type = "application/json", .data = "{}", .len = 2},
  };
  sbio_bk_call call;
  test_call_init(&call, &f->host, 10);
  sbio_sdk_http_request req = {.path = "/multipart", .parts = parts, .n_parts = 3};
  sbio_sdk_http_response resp;
  assert_int_equal(sbio_sdk_http_send(f->client, &req, &call, &resp), 0);
  assert_int_equal(resp.status, 200);
  const char *body = resp.body;
  assert_int_equal(strncmp(body, "multipart/form-data; boundary=", 30), 0);
  assert_non_null(memmem(body, resp.len, "name=\"file\"; filename=\"dir/a%22b.txt\"", 37));
  assert_non_null(memmem(body, resp.len, "Content-Type: application/octet-stream\r\n\r\n", 42));
  assert_non_null(memmem(body, resp.len, data, sizeof data));
  assert_non_null(memmem(body, resp.len, "name=\"meta\"\r\n\r\nx=1\r\n", 20));
  assert_non_null(memmem(body, resp.len, "Content-Type: application/json\r\n\r\n{}", 36));
  sbio_sdk_http_response_free(&resp);
  /* A part needs a name: refused before anything is sent. */
  sbio_sdk_http_part nameless[] = {{.data = "x", .len = 1}};
  int before = test_server_hits(f->server, "/multipart");
  req.parts = nameless;
  req.n_parts = 1;
  assert_int_equal(sbio_sdk_http_send(f->client, &req, &call, &resp), -1);
  assert_int_equal(test_server_hits(f->server, "/multipart"), before);
  sbio_sdk_http_response_free(&resp);
}

/* Keep-alive connections are kept in the client's pool. */
static void connections_are_reused(void **state) {
  fixture *f = *state;
  sbio_sdk_http *c = client_with(f, (sbio_sdk_http_options){0});
  int before = test_server_connections(f->server);
  for (int i = 0; i < 5; i++) {
    sbio_sdk_http_response resp;
    assert_int_equal(get(f, c, "/ok", 10, &resp), 0);
    assert_int_equal(resp.status, 200);
    sbio_sdk_http_response_free(&resp);
  }
  assert_int_equal(test_server_connections(f->server), before + 1);
  sbio_sdk_http_free(c);
}

typedef struct worker {
  fixture *f;
  int ok;
} worker;

static void *hammer(void *arg) {
  worker *w = arg;
  for (int i = 0; i < 20; i++) {
    sbio_sdk_http_response resp;
    if (get(w->f, NULL, "/ok", 10, &resp) == 0 && resp.status == 200) w->ok++;
    sbio_sdk_http_response_free(&resp);
  }
  return NULL;
}

static void concurrent_use(void **state) {
  fixture *f = *state;
  pthread_t threads[4];
  worker workers[4];
  for (int i = 0; i < 4; i++) {
    workers[i] = (worker){.f = f};
    assert_int_equal(pthread_create(&threads[i], NULL, hammer, &workers[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    assert_int_equal(workers[i].ok, 20);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(answers, setup, teardown),
      cmocka_unit_test_setup_teardown(request_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(status_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(retries_idempotent_only, setup, teardown),
      cmocka_unit_test_setup_teardown(backoff_grows, setup, teardown),
      cmocka_unit_test_setup_teardown(retry_after, setup, teardown),
      cmocka_unit_test_setup_teardown(deadline, setup, teardown),
      cmocka_unit_test_setup_teardown(cancellation, setup, teardown),
      cmocka_unit_test_setup_teardown(unreachable, setup, teardown),
      cmocka_unit_test_setup_teardown(limits_and_sinks, setup, teardown),
      cmocka_unit_test_setup_teardown(secrets_stay_out, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_options, setup, teardown),
      cmocka_unit_test(escape_and_call_init),
      cmocka_unit_test_setup_teardown(unix_socket, setup, teardown),
      cmocka_unit_test_setup_teardown(concurrent_use, setup, teardown),
      cmocka_unit_test_setup_teardown(rate_limit_is_retried_whatever_the_method, setup, teardown),
      cmocka_unit_test_setup_teardown(never_sent_versus_maybe_sent, setup, teardown),
      cmocka_unit_test_setup_teardown(retry_statuses_are_configurable, setup, teardown),
      cmocka_unit_test_setup_teardown(attempt_time_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(multipart_bodies, setup, teardown),
      cmocka_unit_test_setup_teardown(connections_are_reused, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
