/* SPDX-License-Identifier: MIT */
/* sbio help [COMMAND]: the overview (with the exit-code table) or one
 * command's help, on stdout because it was asked for. */
#include "args.h"
#include "cli.h"
#include "exitcode.h"

#include <stdio.h>

int cli_cmd_help(cli_globals *g, int argc, char **argv) {
  (void)g;
  if (argc <= 1) {
    cli_help_print(NULL, stdout);
    return CLI_EXIT_OK;
  }
  /* "help config check" and "help config" both work. */
  char name[64];
  snprintf(name, sizeof name, "%s%s%s", argv[1], argc > 2 ? " " : "", argc > 2 ? argv[2] : "");
  if (cli_help_print(name, stdout) == 0 || cli_help_print(argv[1], stdout) == 0) return CLI_EXIT_OK;
  return cli_usage_error("help", "unknown command '%s'", argv[1]);
}
