/* SPDX-License-Identifier: MIT */
/* sbio version: the CLI's version (the header it was built with) and the
 * library's (the one it runs with); they differ after a library upgrade. */
#include "args.h"
#include "cli.h"
#include "errors.h"
#include "exitcode.h"
#include "output.h"

#include <sandboxio/sandboxio.h>
#include <stdio.h>

enum { OPT_JSON = 1 };

int cli_cmd_version(cli_globals *g, int argc, char **argv) {
  static const cli_opt opts[] = {{"json", 0, 0, OPT_JSON}, {NULL, 0, 0, 0}};
  cli_args a;
  const char *value;
  int json = 0;
  cli_args_init(&a, g, "version", argc, argv);
  for (int r; (r = cli_args_next(&a, opts, &value)) != CLI_ARG_END;) {
    switch (r) {
    case OPT_JSON:
      json = 1;
      break;
    case CLI_ARG_HELP:
      cli_help_print("version", stdout);
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    default:
      return cli_usage_error("version", "unexpected argument '%s'", r == CLI_ARG_POSITIONAL ? value : "--");
    }
  }
  const char *lib = sbio_version();
  if (!json) {
    printf("sbio %s\nlibsandboxio %s\n", SBIO_VERSION_STRING, lib ? lib : "?");
    return CLI_EXIT_OK;
  }
  cJSON *doc = cli_json_doc(1);
  if (!doc || !cJSON_AddStringToObject(doc, "sbio", SBIO_VERSION_STRING) ||
      !cli_json_add_string_or_null(doc, "library", lib)) {
    cJSON_Delete(doc);
    return cli_error_oom(json);
  }
  return cli_json_emit(doc);
}
