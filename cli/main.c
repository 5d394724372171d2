/* sbio: the command-line front end of libsandboxio.
 *
 * main() reads the global options, picks the command and returns its exit
 * code; each command lives in its own cmd_*.c and uses only the public
 * API. Exit codes: exitcode.h. */
#include "args.h"
#include "cli.h"
#include "exitcode.h"
#include "output.h"

#include <stdio.h>
#include <string.h>

static const struct {
  const char *name;
  int (*run)(cli_globals *g, int argc, char **argv);
} commands[] = {
    {"backends", cli_cmd_backends}, {"inspect", cli_cmd_inspect}, {"run", cli_cmd_run},   {"config", cli_cmd_config},
    {"reap", cli_cmd_reap},         {"version", cli_cmd_version}, {"help", cli_cmd_help}, {"doctor", cli_cmd_doctor},
};

enum { OPT_VERSION = 1 };

int main(int argc, char **argv) {
  static const cli_opt opts[] = {{"version", 0, 0, OPT_VERSION}, {NULL, 0, 0, 0}};
  cli_globals g = {NULL, NULL, 0};
  cli_args a;
  const char *value = NULL;

  if (argc < 1) return CLI_EXIT_USAGE;
  cli_args_init(&a, &g, NULL, argc, argv);
  /* Global options up to the command word; the command parses the rest. */
  for (;;) {
    int r = cli_args_next(&a, opts, &value);
    if (r == CLI_ARG_POSITIONAL) break;
    if (r == OPT_VERSION) {
      char *version_argv[] = {(char *)"version", NULL};
      return cli_finish_stdout(cli_cmd_version(&g, 1, version_argv));
    }
    if (r == CLI_ARG_HELP) {
      cli_help_print(NULL, stdout);
      return cli_finish_stdout(CLI_EXIT_OK);
    }
    if (r == CLI_ARG_ERROR) return CLI_EXIT_USAGE;
    if (r == CLI_ARG_END || r == CLI_ARG_DASHDASH) {
      fputs("sbio: missing command\n", stderr);
      cli_help_print(NULL, stderr);
      return CLI_EXIT_USAGE;
    }
  }
  /* a.index is one past the command word. */
  int cmd_index = a.index - 1;
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(commands[i].name, value) == 0) {
      return cli_finish_stdout(commands[i].run(&g, argc - cmd_index, argv + cmd_index));
    }
  }
  return cli_usage_error(
      NULL, "unknown command '%s' (commands: backends, inspect, run, config, reap, doctor, version, help)", value);
}
