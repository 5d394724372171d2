/* SPDX-License-Identifier: MIT */
/* Global options, the command word, and the hand-off to a command; see
 * dispatch.h. */
#include "dispatch.h"

#include "args.h"
#include "exitcode.h"
#include "output.h"

#include <stdio.h>
#include <string.h>

enum { OPT_VERSION = 1 };

static int unknown_command(const char *word, const cli_command *commands, size_t n, const char *const *external,
                           size_t n_external) {
  char names[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < n + n_external; i++) {
    const char *name = i < n ? commands[i].name : external[i - n];
    int w = snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
    if (w < 0 || (size_t)w >= sizeof names - used) break;
    used += (size_t)w;
  }
  return cli_usage_error(NULL, "unknown command '%s' (commands: %s)", word, names);
}

static int run_named(const cli_command *commands, size_t n, const char *name, cli_globals *g, int argc, char **argv,
                     int *exit_code) {
  for (size_t i = 0; i < n; i++) {
    if (strcmp(commands[i].name, name) == 0) {
      *exit_code = cli_finish_stdout(commands[i].run(g, argc, argv));
      return 1;
    }
  }
  return 0;
}

int cli_dispatch(int argc, char **argv, const cli_command *commands, size_t n_commands, const char *const *external,
                 size_t n_external) {
  static const cli_opt opts[] = {{"version", 0, 0, OPT_VERSION}, {NULL, 0, 0, 0}};
  cli_globals g = {NULL, NULL, 0};
  cli_args a;
  const char *value = NULL;
  int exit_code = CLI_EXIT_USAGE;

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
  if (run_named(commands, n_commands, value, &g, argc - cmd_index, argv + cmd_index, &exit_code)) return exit_code;
  for (size_t i = 0; i < n_external; i++)
    if (strcmp(external[i], value) == 0) return cli_exec_external(value, argc, argv);
  return unknown_command(value, commands, n_commands, external, n_external);
}
