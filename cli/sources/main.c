/* SPDX-License-Identifier: MIT */
/* sbio-sources: `sbio sources ...`, shipped as its own executable because
 * it links libcurl (through the SDK's HTTP client), which `sbio` itself
 * must not load (dispatch.h). The global options are parsed exactly as
 * `sbio` parses them. */
#include "cmd_sources.h"
#include "dispatch.h"

static const cli_command commands[] = {{"sources", cli_cmd_sources}};

int main(int argc, char **argv) {
  return cli_dispatch(argc, argv, commands, sizeof commands / sizeof commands[0], NULL, 0);
}
