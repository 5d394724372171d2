/* SPDX-License-Identifier: MIT */
/* argv as one command line that a POSIX shell (or the older daemons'
 * shlex-like splitter) reads back as exactly those words. */
#ifndef SBIO_DAYTONA_SHQUOTE_H
#define SBIO_DAYTONA_SHQUOTE_H

#include <stddef.h>

/* Words made only of [A-Za-z0-9_@%+:,./-] go as they are; every other word
 * (empty, spaces, quotes, $, *, =, ~, newlines, ...) is single-quoted, a
 * quote inside written as '\''. malloc'd; NULL on out-of-memory. */
char *sbio__dt_shell_join(const char *const *argv, size_t argc);

#endif
