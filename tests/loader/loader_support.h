/* SPDX-License-Identifier: MIT */
/* File-system helpers for the loader battery: every test works on copies
 * of the fixture plugins in a private temporary directory, so it can chmod,
 * chown, patch and replace them without touching the build tree. */
#ifndef LOADER_SUPPORT_H
#define LOADER_SUPPORT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 2026-06-01T00:00:00Z: the "now" of every trust evaluation in the battery,
 * so freshness does not depend on the day the tests run. */
#define LOADER_FIXED_NOW INT64_C(1780272000)

/* mkdtemp under /tmp (root-owned and sticky, which the loader accepts),
 * returned as a real path. 0 or -1. */
int loader_tmpdir(char out[PATH_MAX]);
/* Removes a tree, whatever its modes. */
void loader_rm_rf(const char *path);
/* parent/name with exactly `mode` (umask does not apply); path in out. */
int loader_mkdir(const char *parent, const char *name, mode_t mode, char out[PATH_MAX]);
/* Copies LOADER_FIXTURE_DIR/sbio-backend-FIXTURE.so to dir/AS_NAME (NULL: the
 * same file name) with exactly `mode`. 0 or -1 (with a message on stderr). */
int loader_copy_fixture(const char *fixture, const char *dir, const char *as_name, mode_t mode);
int loader_write_file(const char *path, const void *data, size_t len, mode_t mode);
/* Whole file into a malloc'd buffer. */
unsigned char *loader_read_file(const char *path, size_t *len);
int loader_exists(const char *path);
/* dir + "/" + name into out. */
void loader_join(char out[PATH_MAX], const char *dir, const char *name);

#endif
