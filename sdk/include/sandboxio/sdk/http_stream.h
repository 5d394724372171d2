/* SPDX-License-Identifier: MIT */
/* SDK: HTTP bodies read piece by piece, and connections upgraded to a raw
 * byte stream. Both use the client of <sandboxio/sdk/http.h>: its base URL,
 * unix socket, TLS files, proxy rule, default headers and deadlines.
 *
 * Pull-style response bodies. A library that asks for its input (an
 * archive reader, a decompressor) cannot be fed by a sink callback; it
 * reads. sbio_sdk_http_stream_read() runs the transfer until the next
 * piece is there. At most a window of 256 KiB is buffered: when the reader
 * lags, the transfer is paused, so memory stays flat whatever the size of
 * the body. Every wait honours the call's deadline and cancellation.
 *
 *   sbio_sdk_http_stream *s;
 *   sbio_sdk_http_response resp;
 *   if (sbio_sdk_http_stream_open(client, &req, call, &s, &resp) != 0 || !s)
 *     ... transport failure, or a non-2xx answer whole in resp ...
 *   const void *piece;
 *   long n;
 *   while ((n = sbio_sdk_http_stream_read(s, &piece)) > 0) consume(piece, n);
 *   // n < 0: resp.outcome and resp.error say why
 *   sbio_sdk_http_stream_close(s);
 *   sbio_sdk_http_response_free(&resp);
 *
 * Upgraded connections. Some APIs turn an HTTP request into a two-way byte
 * stream: the server answers "101 Switching Protocols" (Docker's and
 * Podman's exec attach with "Upgrade: tcp", WebSocket-style APIs) or, for
 * older servers, a 2xx after which the connection carries raw bytes.
 * sbio_sdk_http_upgrade() makes a fresh connection (never a pooled one:
 * after the upgrade it is no longer HTTP), sends the request, reads the
 * answer's head and hands over the connection. Its I/O never blocks; the
 * caller waits with sbio_sdk_http_conn_wait() and keeps its own deadline.
 * Streams and upgrades are not retried: open them again. */
#ifndef SANDBOXIO_SDK_HTTP_STREAM_H
#define SANDBOXIO_SDK_HTTP_STREAM_H

#include <sandboxio/sdk/http.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbio_sdk_http_stream sbio_sdk_http_stream;

/* Sends the request and waits for the answer's head and its first bytes.
 * Returns 0 when an answer arrived: a 2xx answer gives *stream (resp has
 * its status and headers; its body is read with stream_read), any other
 * answer is read whole into resp and *stream is NULL. -1 when none arrived
 * (resp->outcome says why). `resp` must stay valid until the stream is
 * closed: a failure while reading is recorded there. req->sink is not
 * used. */
int sbio_sdk_http_stream_open(sbio_sdk_http *client, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                              sbio_sdk_http_stream **stream, sbio_sdk_http_response *resp);
/* The same, but returns as soon as the head of a 2xx answer is complete,
 * without waiting for a first byte of its body: for an API that answers at
 * once and sends its body only when something happens, where the caller
 * must know the request is in place before it goes on (Docker's container
 * wait, which must be registered before the container starts). Any other
 * answer is read whole into resp, as stream_open does. */
int sbio_sdk_http_stream_open_at_head(sbio_sdk_http *client, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                                      sbio_sdk_http_stream **stream, sbio_sdk_http_response *resp);
/* The next piece of the body: > 0 bytes at *data (valid until the next
 * call), 0 at its end, -1 on failure (resp->outcome and resp->error of the
 * open call say why: a timeout, a cancellation, a broken connection). */
long sbio_sdk_http_stream_read(sbio_sdk_http_stream *stream, const void **data);
/* Ends the transfer (a connection left in the middle of a body is closed,
 * one read to its end goes back to the client's pool). NULL is fine. */
void sbio_sdk_http_stream_close(sbio_sdk_http_stream *stream);

typedef struct sbio_sdk_http_conn sbio_sdk_http_conn;

/* Sends the request with "Connection: Upgrade" and "Upgrade: <protocol>"
 * on a new connection. Returns 0 when an answer arrived: with status 101,
 * or a 2xx, *conn is the connection (resp has the status and headers; any
 * bytes that came with the head are the stream's first); with any other
 * status *conn is NULL and resp holds the answer and its body. -1 when no
 * answer arrived (resp->outcome and resp->error say why). Connecting is
 * bounded by the client's connect timeout and the deadline; sending and
 * reading the head by the deadline and the call's cancellation. */
int sbio_sdk_http_upgrade(sbio_sdk_http *client, const sbio_sdk_http_request *req, const char *protocol,
                          const sbio_bk_call *call, sbio_sdk_http_conn **conn, sbio_sdk_http_response *resp);

enum {
  SBIO_SDK_IO_OK = 0, /* some bytes moved (*n > 0) */
  SBIO_SDK_IO_AGAIN,  /* nothing now: wait, then try again */
  SBIO_SDK_IO_EOF,    /* recv: the other side finished sending */
  SBIO_SDK_IO_ERROR   /* the connection failed */
};
#define SBIO_SDK_WAIT_READ 1
#define SBIO_SDK_WAIT_WRITE 2

int sbio_sdk_http_conn_send(sbio_sdk_http_conn *conn, const void *data, size_t len, size_t *n);
int sbio_sdk_http_conn_recv(sbio_sdk_http_conn *conn, void *buf, size_t size, size_t *n);
/* Half-closes the connection: the other side reads EOF (a process sees the
 * end of its stdin) while its answer keeps coming. 0, or -1. */
int sbio_sdk_http_conn_shutdown_write(sbio_sdk_http_conn *conn);
/* Waits up to timeout_ms for what `want` (SBIO_SDK_WAIT_* bits) asks:
 * returns the bits that are ready, 0 on timeout, -1 on error. Drain recv()
 * until SBIO_SDK_IO_AGAIN before waiting to read: bytes already decrypted
 * by TLS do not wake a wait. */
int sbio_sdk_http_conn_wait(sbio_sdk_http_conn *conn, int want, int timeout_ms);
/* Closes the connection. NULL is fine. */
void sbio_sdk_http_conn_close(sbio_sdk_http_conn *conn);

#ifdef __cplusplus
}
#endif
#endif
