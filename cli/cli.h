/* SPDX-License-Identifier: MIT */
/* What the commands share: the global options and the command entry
 * points. Each command returns the process exit code (exitcode.h). */
#ifndef SBIO_CLI_H
#define SBIO_CLI_H

typedef struct cli_globals {
  const char *config_file;  /* --config FILE, or NULL */
  const char *backend_path; /* --backend-path DIRS, or NULL */
  int verbose;              /* -v: 1 shows library info, 2 also debug */
} cli_globals;

/* argv[0] is the command's own name ("run"); argc >= 1. */
int cli_cmd_backends(cli_globals *g, int argc, char **argv);
int cli_cmd_inspect(cli_globals *g, int argc, char **argv);
int cli_cmd_run(cli_globals *g, int argc, char **argv);
int cli_cmd_config(cli_globals *g, int argc, char **argv);
int cli_cmd_reap(cli_globals *g, int argc, char **argv);
int cli_cmd_doctor(cli_globals *g, int argc, char **argv);
int cli_cmd_version(cli_globals *g, int argc, char **argv);
int cli_cmd_help(cli_globals *g, int argc, char **argv);

#endif
