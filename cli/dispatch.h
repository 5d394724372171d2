/* SPDX-License-Identifier: MIT */
/* The front door shared by `sbio` and the commands shipped as their own
 * executables (`sbio-NAME` in the libexec directory).
 *
 * Why some commands are separate executables: a command that needs a heavy
 * library (libcurl for `sbio sources`, an HTTP server for `sbio mcp`) would
 * otherwise make every `sbio` process map and relocate it, including
 * `sbio version` and a listing. `sbio NAME ...` execs
 * `<dir of sbio>/<SBIO_CLI_LIBEXEC_REL>/sbio-NAME` with the very same
 * arguments, so the global options, exit codes and messages are the same as
 * for a built-in command, and the executable parses them with this code. */
#ifndef SBIO_CLI_DISPATCH_H
#define SBIO_CLI_DISPATCH_H

#include "cli.h"

#include <stddef.h>

typedef struct cli_command {
  const char *name;
  int (*run)(cli_globals *g, int argc, char **argv);
} cli_command;

/* Parses the global options up to the command word and runs the command:
 * one of `commands`, else, when its name is in `external`, the executable
 * sbio-NAME (which does not return unless it cannot be started). Returns
 * the exit code. */
int cli_dispatch(int argc, char **argv, const cli_command *commands, size_t n_commands, const char *const *external,
                 size_t n_external);

/* Replaces this process with sbio-NAME from the libexec directory, passing
 * argv unchanged but for argv[0]. Returns only on failure, with the exit
 * code after printing why (CLI_EXIT_UNAVAILABLE when it is not installed). */
int cli_exec_external(const char *name, int argc, char **argv);

#endif
