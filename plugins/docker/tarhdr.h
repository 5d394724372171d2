/* SPDX-License-Identifier: MIT */
/* Tar pieces made with libarchive (pax format: any name length, any size).
 * A file upload streams header + caller's bytes + padding + end blocks, so
 * a 256 MiB write is never copied into a second buffer. */
#ifndef SBIO_DOCKER_TARHDR_H
#define SBIO_DOCKER_TARHDR_H

#include <stddef.h>
#include <stdint.h>

/* The header blocks for one regular file `name` of `size` bytes (mode 0644).
 * *out is malloc'd; 0 or -1. */
int sbio__dk_tar_file_header(const char *name, int64_t size, unsigned char **out, size_t *len);
/* Bytes that follow the file's data: zero padding to 512 and two zero
 * blocks. */
size_t sbio__dk_tar_trailer_len(int64_t size);
/* A whole archive of directories (names like "a/", "a/b/", mode 0755). */
int sbio__dk_tar_dirs(const char *const *names, size_t n, unsigned char **out, size_t *len);

#endif
