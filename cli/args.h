/* SPDX-License-Identifier: MIT */
/* A small command-line option parser. Hand-written rather than getopt so
 * that every command accepts the global options too, `--` is reported to
 * the caller (run needs the words after it untouched), and every error
 * message is ours and names the command.
 *
 * Accepted forms: --name, --name=value, --name value, -x value, -xvalue.
 * Short flags are not bundled (-vv is the one exception: -v repeats). */
#ifndef SBIO_CLI_ARGS_H
#define SBIO_CLI_ARGS_H

#include "cli.h"

#include <stdio.h>

typedef struct cli_opt {
  const char *name; /* long name without the dashes */
  char short_name;  /* 0: none */
  int has_value;
  int id; /* > 0, returned by cli_args_next */
} cli_opt;

enum {
  CLI_ARG_END = 0,         /* no arguments left */
  CLI_ARG_POSITIONAL = -1, /* *value is the argument */
  CLI_ARG_DASHDASH = -2,   /* `--` seen; the rest starts at cli_args_rest() */
  CLI_ARG_HELP = -3,       /* -h or --help */
  CLI_ARG_ERROR = -4       /* message already printed; exit with CLI_EXIT_USAGE */
};

typedef struct cli_args {
  int argc;
  char **argv;
  int index;
  const char *command; /* for messages: "run", "config check" */
  cli_globals *globals;
} cli_args;

/* Starts after argv[0] (the command name). */
void cli_args_init(cli_args *a, cli_globals *g, const char *command, int argc, char **argv);
/* The next option (its id, *value set for options with a value),
 * positional, `--`, help, end or error. Global options (--config,
 * --backend-path, -v) are applied to the globals and skipped. */
int cli_args_next(cli_args *a, const cli_opt *opts, const char **value);
/* After CLI_ARG_DASHDASH: the remaining words. */
char **cli_args_rest(const cli_args *a, int *count);

/* Prints "sbio COMMAND: message", the command's usage line and a pointer
 * to its help on stderr; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Help texts (help.c). `command` NULL means the overview. Returns 0 when
 * the command is known. */
int cli_help_print(const char *command, FILE *out);
/* One line: "usage: sbio run [OPTIONS] -- CMD [ARG...]" */
const char *cli_usage_line(const char *command);

#endif
