/* SPDX-License-Identifier: MIT */
/* The exec stream: POST /exec/{id}/start with `Upgrade: tcp` on a fresh
 * connection, after which the connection is a raw byte stream (stdin to
 * the engine, 8-byte-framed output back).
 *
 * Implemented with libcurl's CONNECT_ONLY (the same unix-socket and TLS
 * settings as every other request) and curl_easy_send/recv; the half-close
 * after stdin is shutdown(SHUT_WR) on the connection's socket, so the
 * process sees EOF while its output keeps flowing back. */
#ifndef SBIO_DOCKER_HIJACK_H
#define SBIO_DOCKER_HIJACK_H

#include "http.h"

typedef struct dk_hijack {
  CURL *h;
  curl_socket_t fd;
  unsigned char *pending; /* stream bytes that arrived with the response head */
  size_t pending_len;
} dk_hijack;

enum { DK_IO_OK = 0, DK_IO_AGAIN = 1, DK_IO_EOF = 2, DK_IO_ERR = 3 };
enum { DK_WAIT_READ = 1, DK_WAIT_WRITE = 2 };

/* Sends the request and reads the head. 0: upgraded (101, or 200 from
 * engines that answer so); -1: failure, with resp holding the status and
 * error body or the transport error. */
int sbio__dk_hijack_open(dk_instance *inst, const char *path, const char *json, int64_t deadline,
                         const sbio_bk_call *cancel, dk_hijack *hj, dk_http_resp *resp);
/* DK_IO_OK with *n bytes, DK_IO_AGAIN, or DK_IO_ERR. */
int sbio__dk_hijack_send(dk_hijack *hj, const void *data, size_t len, size_t *n);
/* DK_IO_OK with *n > 0 bytes, DK_IO_AGAIN, DK_IO_EOF or DK_IO_ERR. */
int sbio__dk_hijack_recv(dk_hijack *hj, void *buf, size_t size, size_t *n);
int sbio__dk_hijack_shutdown_write(dk_hijack *hj);
/* poll(): a DK_WAIT_* mask of what is ready, 0 on timeout, -1 on error. */
int sbio__dk_hijack_wait(dk_hijack *hj, int want, int timeout_ms);
void sbio__dk_hijack_close(dk_hijack *hj);

#endif
