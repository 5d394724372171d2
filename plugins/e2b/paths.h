/* SPDX-License-Identifier: MIT */
/* Paths inside the sandbox: a relative path is relative to the work
 * directory, the same one commands start in, so files and commands agree
 * on what "data.txt" means. */
#ifndef SBIO_E2B_PATHS_H
#define SBIO_E2B_PATHS_H

#include <sandboxio/sdk.h>

/* Absolute, normalised ("." and ".." folded, no double slashes) copy of
 * path. malloc'd into *out. SBIO_E_INVALID_ARGUMENT for an empty path or
 * one with a NUL-free control character. */
int sbio__e2b_path_resolve(const char *workdir, const char *path, char **out, sbio_bk_error *err);
/* The parent directory of an absolute normalised path ("/" for "/x"). */
char *sbio__e2b_path_parent(const char *abs);

#endif
