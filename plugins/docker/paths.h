/* SPDX-License-Identifier: MIT */
/* Paths inside the sandbox: relative ones resolve under the work directory
 * (/work, the same place exec starts in); all are normalised lexically
 * ("a/./b/../c" -> "/work/a/c") and bounded. */
#ifndef SBIO_DOCKER_PATHS_H
#define SBIO_DOCKER_PATHS_H

#include <sandboxio/backend.h>

#define DK_PATH_MAX 4096

int sbio__dk_path_resolve(const char *in, char *out, size_t size, sbio_bk_error *err);
/* "/a/b/c" -> "/a/b" and "c"; "/a" -> "/" and "a"; "/" -> "/" and "". */
void sbio__dk_path_split(const char *abs, char *dir, size_t dsize, char *base, size_t bsize);
/* "/containers/<id>/archive?path=<escaped abs>" into out; -1 if too long. */
int sbio__dk_archive_url(const char *container, const char *abs, const char *extra_query, char *out, size_t size);

#endif
