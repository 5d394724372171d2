/* SPDX-License-Identifier: MIT */
/* A scripted HTTP/1.1 server (loopback TCP) for the SDK's streaming tests:
 * uploads, pull-style downloads and upgraded connections. One thread, one
 * connection at a time, every exchange closes its connection. Routes:
 *   PUT /upload           200 "<content-length or ->|<transfer-encoding or ->|<body>" (chunked bodies decoded)
 *   PUT /flaky-upload/ID  503 the first time (body read whole), then as /upload
 *   GET /stream/N         200 with N bytes, byte i = i % 251, written in 16 KiB pieces
 *   POST /wait            200, chunked: the head at once, the body {"StatusCode":7} only after
 *                         stream_server_release() (as Docker's container wait)
 *   GET /stall            200, Content-Length 1000000, 10 bytes, then nothing until the client leaves
 *   GET /status/NNN       NNN {"message":"status NNN from the stream server"}
 *   POST /upgrade         101 (Upgrade: tcp), then "hello:<request body>", then echoes
 *                         what it reads until the client half-closes, then "bye" and closes
 *   POST /upgrade-200     the same with "200 OK" instead of the 101
 *   POST /upgrade-refused 404 {"message":"no such exec"} */
#ifndef SBIO_TEST_STREAM_SERVER_H
#define SBIO_TEST_STREAM_SERVER_H

typedef struct stream_server stream_server;

stream_server *stream_server_start(void);
int stream_server_port(const stream_server *s);
/* Requests seen for this path. */
int stream_server_hits(stream_server *s, const char *path);
/* From now on /wait sends its body. */
void stream_server_release(stream_server *s);
void stream_server_stop(stream_server *s);

#endif
