/* SPDX-License-Identifier: MIT */
/* SHA-256 (FIPS 180-4), for operator pins of plugin files. */
#ifndef SBIO_SHA256_H
#define SBIO_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sbio__sha256 {
  uint32_t state[8];
  uint64_t bytes;
  unsigned char block[64];
  size_t used;
} sbio__sha256;

void sbio__sha256_init(sbio__sha256 *ctx);
void sbio__sha256_update(sbio__sha256 *ctx, const void *data, size_t len);
void sbio__sha256_final(sbio__sha256 *ctx, unsigned char out[32]);
/* Lower-case hex digest of a whole file descriptor (read from offset 0).
 * Returns 0, or -1 with errno set. */
int sbio__sha256_fd_hex(int fd, char hex[65]);

#endif
