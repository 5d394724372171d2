/* SPDX-License-Identifier: MIT */
/* The `sources` command of sbio-sources. */
#ifndef SBIO_SOURCES_CMD_H
#define SBIO_SOURCES_CMD_H

#include "cli.h"

int cli_cmd_sources(cli_globals *g, int argc, char **argv);

#endif
