/* SPDX-License-Identifier: MIT */
/* sbio-mcp: `sbio mcp`, shipped as its own executable because it links an
 * HTTP server library that `sbio` itself must not load (cli/dispatch.h). */
#include "dispatch.h"
#include "mcp.h"

static const cli_command commands[] = {{"mcp", cli_cmd_mcp}};

int main(int argc, char **argv) {
  return cli_dispatch(argc, argv, commands, sizeof commands / sizeof commands[0], NULL, 0);
}
