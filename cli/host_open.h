/* SPDX-License-Identifier: MIT */
/* Opening the library host the way every command needs it: global
 * options applied and library diagnostics routed to stderr. */
#ifndef SBIO_CLI_HOST_OPEN_H
#define SBIO_CLI_HOST_OPEN_H

#include "cli.h"

#include <sandboxio/sandboxio.h>

/* Opens a host. `config_file` overrides g->config_file when non-NULL.
 * On failure the error is reported (JSON on stdout when `json`) and its
 * exit code returned; on success returns 0 and sets *out. */
int cli_host_open(const cli_globals *g, const char *config_file, int json, sbio_host **out);

/* cli_host_open for a human waiting on a terminal (`sbio run`): long
 * steps the library reports (an image pull) draw a progress bar on stderr
 * when cli_progress_enabled() says one may be drawn. */
int cli_host_open_with_progress(const cli_globals *g, sbio_host **out);

/* cli_host_open with the library's progress reports sent to `fn` (`sbio
 * mcp` turns them into progress notifications); `user` outlives the host. */
int cli_host_open_progress_to(const cli_globals *g, sbio_progress_fn fn, void *user, sbio_host **out);

/* Same, but leaves reporting to the caller: returns the library's code and
 * fills err (used by `config check`, which prints config errors its way). */
sbio_code cli_host_open_raw(const cli_globals *g, const char *config_file, sbio_host **out, sbio_error *err);

#endif
