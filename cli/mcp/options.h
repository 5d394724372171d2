/* SPDX-License-Identifier: MIT */
/* The command line of `sbio mcp`, parsed and validated before the host
 * opens: a mistake there must never cost a sandbox, nor reach a client. */
#ifndef SBIO_MCP_OPTIONS_H
#define SBIO_MCP_OPTIONS_H

#include "mcp.h"

/* Parses argv (argv[0] == "mcp"). Returns 0 and fills cfg, or an exit code
 * (usage error already printed; 0 with *help_shown after --help). */
int mcp_options_parse(mcp_config *cfg, cli_globals *g, int argc, char **argv, int *help_shown);
void mcp_options_free(mcp_config *cfg);

#endif
