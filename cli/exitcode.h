/* SPDX-License-Identifier: MIT */
/* Exit codes of the sbio command: the one place they are defined.
 *
 * The numbers follow <sysexits.h> where a meaning exists there (64 usage,
 * 69 unavailable, 70 software, 74 I/O, 78 configuration) and timeout(1) for
 * a deadline (124), so scripts can tell "sbio could not do it" from "the
 * command in the sandbox said no". `sbio run` otherwise exits with the
 * command's own status; sbio's own failures always print an `error:` line on
 * stderr, which a command's status never does. A check that ran and found
 * something wrong (`sbio sources check`) exits 1, as diff(1) and grep(1)
 * do for "ran fine, the answer is no". docs/cli.md documents this table;
 * keep them in step. */
#ifndef SBIO_CLI_EXITCODE_H
#define SBIO_CLI_EXITCODE_H

#include <sandboxio/sandboxio.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_NOT_CONFIRMED 1 /* sources check: a tier claim changed, moved, is gone or cannot be checked */
#define CLI_EXIT_USAGE 64        /* the command line could not be understood */
#define CLI_EXIT_UNAVAILABLE 69  /* the backend could not serve (missing, refused, down, auth, ...) */
#define CLI_EXIT_INTERNAL 70     /* a bug or an unexpected failure (out of memory, ...) */
#define CLI_EXIT_IOERR 74        /* sbio's own output could not be written */
#define CLI_EXIT_CONFIG 78       /* configuration or requirement error (incl. isolation) */
#define CLI_EXIT_DEADLINE 124    /* a create or exec deadline passed */
#define CLI_EXIT_SIGNAL_BASE 128 /* 128 + N when sbio stopped because of signal N */
#define CLI_EXIT_SIGINT 130      /* interrupted (Ctrl-C); the sandbox was destroyed */
#define CLI_EXIT_SIGPIPE 141     /* run's stdout reader went away; the sandbox was destroyed */
#define CLI_EXIT_SIGTERM 143     /* terminated; the sandbox was destroyed */

/* The exit code for a failed library call. Every sbio_code has an explicit
 * entry (see exitcode.c); a code this build does not know is CLI_EXIT_INTERNAL. */
int cli_exit_for_code(sbio_code code);

#endif
