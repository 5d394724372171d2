/* SPDX-License-Identifier: MIT */
/* A one-line progress bar on stderr for the long steps the library reports
 * while a command waits (an image pull during `sbio run`'s create). */
#ifndef SBIO_CLI_PROGRESS_H
#define SBIO_CLI_PROGRESS_H

#include <stdint.h>

/* Whether the bar may be drawn: stderr is a terminal, NO_COLOR is unset or
 * empty and TERM is not "dumb" (the colour rules of output.c, applied to
 * stderr). Otherwise nothing is ever drawn: logs and CI output get no
 * carriage returns or escape sequences. Decided once. */
int cli_progress_enabled(void);

/* An sbio_progress_fn: redraws the bar (at most ten times a second), and
 * erases it when the step is complete (done == total). Thread-safe. Does
 * nothing unless cli_progress_enabled(). */
void cli_progress_update(const char *what, int64_t done, int64_t total, void *user);

/* Erases the bar if one is on the screen. Call it before writing anything
 * else to stderr, and when the operation that reported progress returns. */
void cli_progress_clear(void);

#endif
