/* SPDX-License-Identifier: MIT */
/* Option parsing; see args.h for the accepted forms. */
#include "args.h"

#include "exitcode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { GLOBAL_CONFIG = 1, GLOBAL_BACKEND_PATH, GLOBAL_VERBOSE };

static const cli_opt global_opts[] = {
    {"config", 0, 1, GLOBAL_CONFIG},
    {"backend-path", 0, 1, GLOBAL_BACKEND_PATH},
    {"verbose", 'v', 0, GLOBAL_VERBOSE},
    {NULL, 0, 0, 0},
};

void cli_args_init(cli_args *a, cli_globals *g, const char *command, int argc, char **argv) {
  a->argc = argc;
  a->argv = argv;
  a->index = 1;
  a->command = command;
  a->globals = g;
}

char **cli_args_rest(const cli_args *a, int *count) {
  *count = a->argc - a->index;
  return a->argv + a->index;
}

static const cli_opt *find_long(const cli_opt *opts, const char *name, size_t len) {
  for (; opts && opts->name; opts++) {
    if (strlen(opts->name) == len && strncmp(opts->name, name, len) == 0) return opts;
  }
  return NULL;
}

static const cli_opt *find_short(const cli_opt *opts, char c) {
  for (; opts && opts->name; opts++) {
    if (opts->short_name == c) return opts;
  }
  return NULL;
}

static void apply_global(cli_globals *g, int id, const char *value) {
  switch (id) {
  case GLOBAL_CONFIG:
    g->config_file = value;
    break;
  case GLOBAL_BACKEND_PATH:
    g->backend_path = value;
    break;
  case GLOBAL_VERBOSE:
    g->verbose++;
    break;
  }
}

/* Parses one option word at a->index. Returns the option found (command or
 * global, *is_global says which) or NULL after printing an error. */
static const cli_opt *parse_option(cli_args *a, const cli_opt *opts, const char **value, int *is_global) {
  const char *word = a->argv[a->index++];
  const cli_opt *opt;
  const char *inline_value = NULL;
  char shown[3] = {'-', 0, 0};
  const char *display = word;

  if (word[1] == '-') {
    const char *name = word + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (eq) inline_value = eq + 1;
    opt = find_long(opts, name, len);
    *is_global = opt == NULL;
    if (!opt) opt = find_long(global_opts, name, len);
    if (!opt) {
      cli_usage_error(a->command, "unknown option '%.*s'", (int)(len + 2), word);
      return NULL;
    }
    if (eq && !opt->has_value) {
      cli_usage_error(a->command, "option '--%s' takes no value", opt->name);
      return NULL;
    }
  } else {
    shown[1] = word[1];
    display = shown;
    opt = find_short(opts, word[1]);
    *is_global = opt == NULL;
    if (!opt) opt = find_short(global_opts, word[1]);
    if (!opt) {
      cli_usage_error(a->command, "unknown option '%s'", shown);
      return NULL;
    }
    if (word[2] != '\0') {
      if (opt->has_value) {
        inline_value = word + 2;
      } else if (opt->id == GLOBAL_VERBOSE && *is_global && strspn(word + 1, "v") == strlen(word + 1)) {
        /* -vv: each v counts once more. */
        for (size_t i = 2; word[i]; i++) apply_global(a->globals, GLOBAL_VERBOSE, NULL);
      } else {
        cli_usage_error(a->command, "option '%s' takes no value (in '%s')", shown, word);
        return NULL;
      }
    }
  }
  if (opt->has_value) {
    if (inline_value) {
      *value = inline_value;
    } else if (a->index < a->argc) {
      *value = a->argv[a->index++];
    } else {
      cli_usage_error(a->command, "option '%s' needs a value", word[1] == '-' ? word : display);
      return NULL;
    }
  } else {
    *value = NULL;
  }
  return opt;
}

int cli_args_next(cli_args *a, const cli_opt *opts, const char **value) {
  for (;;) {
    if (a->index >= a->argc) return CLI_ARG_END;
    const char *word = a->argv[a->index];
    if (strcmp(word, "--") == 0) {
      a->index++;
      return CLI_ARG_DASHDASH;
    }
    /* "-" alone is an ordinary word (conventionally stdin). */
    if (word[0] != '-' || word[1] == '\0') {
      a->index++;
      *value = word;
      return CLI_ARG_POSITIONAL;
    }
    if (strcmp(word, "-h") == 0 || strcmp(word, "--help") == 0) {
      a->index++;
      return CLI_ARG_HELP;
    }
    int is_global = 0;
    const cli_opt *opt = parse_option(a, opts, value, &is_global);
    if (!opt) return CLI_ARG_ERROR;
    if (!is_global) return opt->id;
    apply_global(a->globals, opt->id, *value);
  }
}

int cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "sbio%s%s: ", command ? " " : "", command ? command : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n%s\nRun 'sbio help%s%s' for more.\n", cli_usage_line(command), command ? " " : "",
          command ? command : "");
  return CLI_EXIT_USAGE;
}
