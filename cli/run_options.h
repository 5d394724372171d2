/* SPDX-License-Identifier: MIT */
/* The command line of `sbio run`, parsed and validated before anything
 * is created: a usage mistake must never cost a sandbox. */
#ifndef SBIO_CLI_RUN_OPTIONS_H
#define SBIO_CLI_RUN_OPTIONS_H

#include "cli.h"
#include "kv.h"

#include <sandboxio/sandboxio.h>

typedef struct run_options {
  const char *backend; /* as given, NULL when not */
  char *uri;           /* normalised target (NAME -> NAME://), NULL when not given */
  int require_set;
  sbio_tier require;
  cli_kv_list env;
  cli_kv_list secrets; /* value = the secret itself, read from the environment */
  cli_kv_list labels;
  const char *workdir;
  int timeout_set;
  double timeout;
  int use_stdin;
  int shell;
  const char **allow; /* --allow HOST, pointing into argv */
  size_t n_allow;
  char **cmd; /* argv after `--`, NULL-terminated (argv's own terminator) */
  int ncmd;
} run_options;

/* Parses argv (argv[0] == "run"). Returns 0 and fills o, or an exit code
 * (usage error already printed, or 0 with *help_shown after --help). */
int run_options_parse(run_options *o, cli_globals *g, int argc, char **argv, int *help_shown);
void run_options_free(run_options *o);

#endif
