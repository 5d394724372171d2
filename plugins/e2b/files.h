/* SPDX-License-Identifier: MIT */
/* Shared by the file operations: a Stat through envd's filesystem service
 * and the /files URL of a path. */
#ifndef SBIO_E2B_FILES_H
#define SBIO_E2B_FILES_H

#include "e2b.h"

#include <stdint.h>

typedef struct e2b_stat {
  int exists;
  int is_dir;
  int64_t size;
} e2b_stat;

/* filesystem.Filesystem/Stat of an absolute path; a missing path is
 * st->exists = 0 and SBIO_OK. */
int sbio__e2b_stat(e2b_sandbox *sb, const sbio_bk_call *call, const char *abs, e2b_stat *st, sbio_bk_error *err);
/* "/files?path=...(&username=user for envd < 0.4.0)", relative to envd;
 * malloc'd. */
char *sbio__e2b_files_path(const e2b_sandbox *sb, const char *abs);
/* Resolves `path` against the work directory and refuses a killed
 * sandbox. *abs is malloc'd. */
int sbio__e2b_file_begin(e2b_sandbox *sb, const char *path, const sbio_bk_call *call, char **abs, sbio_bk_error *err);

#endif
