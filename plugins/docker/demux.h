/* SPDX-License-Identifier: MIT */
/* The engine's multiplexed stream (Tty false): frames of an 8-byte header
 * {type, 0, 0, 0, size as big-endian uint32} then `size` payload bytes.
 * Type 0 (stdin echoed) and 1 are stdout, 2 stderr, 3 the engine's own
 * error text (shown as stderr). Headers and payloads may be split anywhere
 * across reads, so the parser keeps its place between calls and hands each
 * piece of payload on as soon as it arrives: nothing is buffered. */
#ifndef SBIO_DOCKER_DEMUX_H
#define SBIO_DOCKER_DEMUX_H

#include <stddef.h>
#include <stdint.h>

typedef void (*dk_demux_out)(void *user, int stream, const char *data, size_t len);

typedef struct dk_demux {
  unsigned char hdr[8];
  size_t hdr_len;     /* header bytes collected so far */
  uint32_t remaining; /* payload bytes left in the current frame */
  int stream;         /* 1 or 2 */
  int saw_system_error;
} dk_demux;

void sbio__dk_demux_init(dk_demux *d);
/* 0, or -1 when a header is malformed (unknown stream type). */
int sbio__dk_demux_feed(dk_demux *d, const unsigned char *data, size_t len, dk_demux_out out, void *user);
/* True between frames (a stream that ends elsewhere was cut short). */
int sbio__dk_demux_at_boundary(const dk_demux *d);

#endif
