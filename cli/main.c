/* SPDX-License-Identifier: MIT */
/* sbio: the command-line front end of libsandboxio.
 *
 * main() hands the command line to cli_dispatch(), which reads the global
 * options, picks the command and returns its exit code; each command lives
 * in its own cmd_*.c and uses only the public API. Commands that need a
 * heavy library are separate executables (dispatch.h). Exit codes:
 * exitcode.h. */
#include "cli.h"
#include "dispatch.h"

static const cli_command commands[] = {
    {"backends", cli_cmd_backends}, {"inspect", cli_cmd_inspect}, {"run", cli_cmd_run},   {"config", cli_cmd_config},
    {"reap", cli_cmd_reap},         {"version", cli_cmd_version}, {"help", cli_cmd_help}, {"doctor", cli_cmd_doctor},
};

/* Shipped as libexec/sandboxio/sbio-NAME (see cli/CMakeLists.txt). */
static const char *const external[] = {"sources", "mcp"};

int main(int argc, char **argv) {
  return cli_dispatch(argc, argv, commands, sizeof commands / sizeof commands[0], external,
                      sizeof external / sizeof external[0]);
}
