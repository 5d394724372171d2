/* SPDX-License-Identifier: MIT */
/* What the file operations share: the absolute path, the error mapping,
 * and a stat through GET /files/info. */
#ifndef SBIO_DAYTONA_FILES_H
#define SBIO_DAYTONA_FILES_H

#include "errmap.h"

typedef struct dt_fop {
  dt_ctx ctx;
  dt_sandbox *sb;
  char path[4096]; /* absolute, normalised */
  char what[4400];
  dt_op op;
} dt_fop;

/* Starts a file operation `verb` ("reading") on `path`: the key, the
 * sandbox still alive, the absolute path. On failure nothing needs ending. */
int sbio__dt_fop_begin(dt_fop *f, dt_sandbox *sb, const char *path, const sbio_bk_call *call, const char *verb,
                       sbio_bk_error *err);
void sbio__dt_fop_end(dt_fop *f);

/* A failed toolbox answer for this operation: 404 is PathNotFound, 409 (the
 * sandbox is not running) and a kill meanwhile are SandboxGone, the rest a
 * FileSystemError with Daytona's message. */
int sbio__dt_fop_fail(dt_fop *f, const sbio_sdk_http_response *resp, sbio_bk_error *err);

/* GET /files/info?path=abs: whether it exists and is a directory. */
int sbio__dt_stat(dt_fop *f, const char *abs, int *exists, int *is_dir, sbio_bk_error *err);

/* The parent directory of an absolute path ("/" for "/x"). */
void sbio__dt_parent(const char *abs, char *out, size_t size);

#endif
