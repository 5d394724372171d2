/* SPDX-License-Identifier: MIT */
/* A scripted HTTP/1.1 server on loopback (or a unix socket) for the SDK's
 * HTTP client tests. A thread per connection, so connections are served at
 * the same time; connections are kept alive (answers carry a
 * Content-Length) except after /hang, /reset and /gate. Routes:
 *   /ok                    200 {"ok":true}
 *   /status/NNN            NNN {"message":"status NNN from the test server"}
 *   /flaky/N/NNN           NNN for the first N requests to this path, then 200 "done"
 *   /retry-after/S         429 with Retry-After: S the first time, then 200
 *   /retry-after-date      503 with a Retry-After date in the past the first time, then 200
 *   /retry-after-date-in/S 429 with a Retry-After date S seconds ahead the first time, then 200
 *   /reset                 closes the connection without answering
 *   /slow/MS               200 "slow" after MS milliseconds
 *   /gate                  200, streamed: "waiting\n" at once, "opened\n" once /open was requested
 *   /open                  200 "open" (lets a waiting /gate finish)
 *   /multipart             200 "<the request's Content-Type>\n<its body>"
 *   /hang                  never answers; waits until the client goes away
 *   /big/N                 200 with N bytes of 'x'
 *   /binary                200 with the 3 bytes "a\0b"
 *   /echo                  200 "METHOD|X-Test header|Content-Type|body"
 *   /leak                  400 {"message":"refused key sk-SECRET-123 and hostsecret"}
 *   /leak-at-the-cut       400 {"message":"000...0 sk-SECRET-123 was refused"}, the key at byte 233
 *   /html                  500 with an HTML page
 *   /text                  502 "upstream down\nsecond line"
 *   /nested-error          409 {"error":{"message":"already exists"}}
 *   anything else          404 {"message":"no route"} */
#ifndef SBIO_TEST_HTTP_SERVER_H
#define SBIO_TEST_HTTP_SERVER_H

typedef struct test_server test_server;

/* NULL on failure. unix_path NULL: TCP on 127.0.0.1, any free port. */
test_server *test_server_start(const char *unix_path);
int test_server_port(const test_server *s);
/* Connections accepted so far. */
int test_server_connections(test_server *s);
/* Requests seen for exactly this path. */
int test_server_hits(test_server *s, const char *path);
void test_server_stop(test_server *s);

#endif
