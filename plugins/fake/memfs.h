/* SPDX-License-Identifier: MIT */
/* The fake sandbox's filesystem: files and directories held in memory,
 * keyed by normalised absolute path (see fspath.h). Binary-safe.
 *
 * Not thread-safe by itself: the sandbox state serialises access with its
 * mutex, and callers copy data out before calling back into user code. */
#ifndef SBIO_FAKE_MEMFS_H
#define SBIO_FAKE_MEMFS_H

#include <stddef.h>

typedef enum fake_memfs_status {
  FAKE_FS_OK = 0,
  FAKE_FS_ENOENT,  /* the path (or, for create, its parent) does not exist */
  FAKE_FS_EEXIST,  /* mkdir of something that exists */
  FAKE_FS_EISDIR,  /* file operation on a directory */
  FAKE_FS_ENOTDIR, /* a directory operation on a file, or a parent is a file */
  FAKE_FS_EPERM,   /* removing "/" or the work directory */
  FAKE_FS_ENOSPC,  /* the capacity given to sbio__fake_memfs_new is used up */
  FAKE_FS_ENOMEM
} fake_memfs_status;

typedef struct fake_memfs fake_memfs;

/* A filesystem holding "/", "/tmp" and "/work", storing at most `capacity`
 * bytes of file data. NULL on OOM. */
fake_memfs *sbio__fake_memfs_new(size_t capacity);
void sbio__fake_memfs_free(fake_memfs *fs);

/* All paths below are normalised absolute paths. */
fake_memfs_status sbio__fake_memfs_stat(const fake_memfs *fs, const char *path, int *is_dir, size_t *size);
/* *data stays valid until the next modification. */
fake_memfs_status sbio__fake_memfs_read(const fake_memfs *fs, const char *path, const unsigned char **data,
                                        size_t *len);
/* Creates or replaces (append: extends) a file; its parent must exist. */
fake_memfs_status sbio__fake_memfs_write(fake_memfs *fs, const char *path, const void *data, size_t len, int append);
fake_memfs_status sbio__fake_memfs_mkdir(fake_memfs *fs, const char *path, int parents);
/* A file, or a directory with everything under it when `recursive`. */
fake_memfs_status sbio__fake_memfs_remove(fake_memfs *fs, const char *path, int recursive);

typedef void (*fake_memfs_entry_fn)(void *user, const char *path, const char *name, size_t size, int is_dir);
/* Direct children of a directory, sorted by name. */
fake_memfs_status sbio__fake_memfs_list(const fake_memfs *fs, const char *path, fake_memfs_entry_fn fn, void *user);

#endif
