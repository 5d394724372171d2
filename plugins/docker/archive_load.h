/* SPDX-License-Identifier: MIT */
/* libarchive, loaded by the file operations that make or read a tar
 * (tarhdr.c, files_rw.c) the first time one runs, so that every other use
 * of the backend (create, exec, kill: every `sbio run`) does not map
 * libarchive and what it depends on (ICU, libxml2, libstdc++...). Opened
 * once per process by the SONAME the build found, never closed. */
#ifndef SBIO_DOCKER_ARCHIVE_LOAD_H
#define SBIO_DOCKER_ARCHIVE_LOAD_H

#include <archive.h>
#include <archive_entry.h>
#include <stddef.h>

/* Every libarchive function the backend calls; each becomes a member of
 * the same name and type. */
#define DK_ARCHIVE_FUNCTIONS(X)                                                                                        \
  X(archive_entry_filetype)                                                                                            \
  X(archive_entry_free)                                                                                                \
  X(archive_entry_new)                                                                                                 \
  X(archive_entry_pathname)                                                                                            \
  X(archive_entry_set_filetype)                                                                                        \
  X(archive_entry_set_gid)                                                                                             \
  X(archive_entry_set_mtime)                                                                                           \
  X(archive_entry_set_pathname)                                                                                        \
  X(archive_entry_set_perm)                                                                                            \
  X(archive_entry_set_size)                                                                                            \
  X(archive_entry_set_uid)                                                                                             \
  X(archive_entry_symlink)                                                                                             \
  X(archive_error_string)                                                                                              \
  X(archive_read_data_block)                                                                                           \
  X(archive_read_free)                                                                                                 \
  X(archive_read_new)                                                                                                  \
  X(archive_read_next_header)                                                                                          \
  X(archive_read_open)                                                                                                 \
  X(archive_read_support_format_tar)                                                                                   \
  X(archive_set_error)                                                                                                 \
  X(archive_write_close)                                                                                               \
  X(archive_write_free)                                                                                                \
  X(archive_write_header)                                                                                              \
  X(archive_write_new)                                                                                                 \
  X(archive_write_open)                                                                                                \
  X(archive_write_set_bytes_per_block)                                                                                 \
  X(archive_write_set_format_pax_restricted)

typedef struct dk_archive_api {
#define DK_ARCHIVE_MEMBER(name) __typeof__(name) *name;
  DK_ARCHIVE_FUNCTIONS(DK_ARCHIVE_MEMBER)
#undef DK_ARCHIVE_MEMBER
} dk_archive_api;

/* The functions, libarchive loaded; NULL with the reason in why (may be
 * NULL) when it cannot be. Thread-safe; the first call loads. */
const dk_archive_api *sbio__dk_archive(char *why, size_t why_size);

#endif
