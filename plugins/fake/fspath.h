/* SPDX-License-Identifier: MIT */
/* Paths inside the fake sandbox. Everything the fake stores is keyed by a
 * normalised absolute path, so two spellings of one place ("x", "/work/x",
 * "/work/./y/../x") always meet the same file, and ".." can never climb
 * above "/". */
#ifndef SBIO_FAKE_FSPATH_H
#define SBIO_FAKE_FSPATH_H

#include <stddef.h>

/* The fake's work directory: relative paths of files.* and exec resolve here. */
#define FAKE_WORKDIR "/work"
/* Longest normalised path accepted, like PATH_MAX on Linux. */
#define FAKE_PATH_MAX 4096

enum { FAKE_PATH_OK = 0, FAKE_PATH_TOO_LONG = -1, FAKE_PATH_NOMEM = -2 };

/* Resolves `path` (relative to `base`, itself normalised and absolute) into
 * a malloc'd normalised absolute path: no ".", "..", empty or trailing
 * components; "/" is the only path ending in a slash. */
int sbio__fake_path_resolve(const char *base, const char *path, char **out);
/* malloc'd parent of a normalised path; the parent of "/" is "/". NULL on OOM. */
char *sbio__fake_path_parent(const char *path);

#endif
