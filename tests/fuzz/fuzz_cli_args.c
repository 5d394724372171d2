/* SPDX-License-Identifier: MIT */
/* Fuzz target: a command line -> the CLI's option parser (args.c) and the
 * whole of `sbio run`'s option parsing and validation (run_options.c).
 *
 * The input is split into words at NUL and newline bytes (at most 64), each
 * word its own allocation so a read past its end is caught. The words are
 * parsed twice: with a table holding every form (long and short, with and
 * without a value, names that prefix each other), where each step must
 * consume at least one word and every value must be a word or the tail of
 * one; and as `sbio run`'s arguments, whose result must be consistent (a
 * command after `--`, a positive timeout, K=V pairs with a key). Usage
 * errors print; the target points stdout and stderr's FILE streams at
 * /dev/null while it parses, leaving descriptor 2 to the sanitizers. */
#include "args.h"
#include "run_options.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WORDS 64

static const cli_opt every_form[] = {
    {"json", 0, 0, 1},   {"name", 'n', 1, 2},  {"name-long", 0, 1, 3}, {"flag", 'f', 0, 4},
    {"kill", 'k', 0, 5}, {"label", 'l', 1, 6}, {"v", 'x', 1, 7},       {NULL, 0, 0, 0},
};

/* Whether p points into one of the words (at its start or inside it). */
static int within_words(char **argv, int argc, const char *p) {
  for (int i = 0; i < argc; i++) {
    size_t n = strlen(argv[i]);
    if (p >= argv[i] && p <= argv[i] + n) return 1;
  }
  return 0;
}

/* The FILE streams only, for the parse: descriptors 1 and 2 stay for the
 * sanitizers' reports, and the driver's own output is restored after. */
static FILE *null_stream(void) {
  static FILE *null_out;
  if (!null_out) null_out = fopen("/dev/null", "w");
  return null_out;
}

static void parse_every_form(char **argv, int argc) {
  cli_globals g = {0};
  cli_args a;
  cli_args_init(&a, &g, "fuzz", argc, argv);
  for (int steps = 0;; steps++) {
    if (steps > argc) __builtin_trap(); /* every step consumes a word */
    int before = a.index;
    const char *value = NULL;
    int r = cli_args_next(&a, every_form, &value);
    if (r == CLI_ARG_END) {
      if (a.index != argc) __builtin_trap();
      break;
    }
    if (r == CLI_ARG_ERROR) break;
    if (a.index <= before || a.index > argc) __builtin_trap();
    if (r == CLI_ARG_DASHDASH) {
      int rest;
      char **words = cli_args_rest(&a, &rest);
      if (rest < 0 || words + rest != argv + argc) __builtin_trap();
      break;
    }
    if (r == CLI_ARG_POSITIONAL && (!value || !within_words(argv, argc, value))) __builtin_trap();
    if (r > 0) {
      const cli_opt *o = every_form;
      while (o->name && o->id != r) o++;
      if (!o->name || (o->has_value != (value != NULL))) __builtin_trap();
      if (value && !within_words(argv, argc, value)) __builtin_trap();
    }
  }
  /* Global options point into the words too. */
  if ((g.config_file && !within_words(argv, argc, g.config_file)) ||
      (g.backend_path && !within_words(argv, argc, g.backend_path)) || g.verbose < 0)
    __builtin_trap();
}

static void check_kv(const cli_kv_list *l) {
  for (size_t i = 0; i < l->n; i++)
    if (!l->items[i].key || !l->items[i].key[0] || !l->items[i].value) __builtin_trap();
}

static void parse_run(char **argv, int argc) {
  cli_globals g = {0};
  run_options o;
  int help = 0;
  int rc = run_options_parse(&o, &g, argc, argv, &help);
  if (rc == 0 && !help) {
    if (!o.cmd || o.ncmd < 1 || o.cmd[o.ncmd] != NULL || o.cmd < argv || o.cmd + o.ncmd != argv + argc)
      __builtin_trap();
    if (o.shell && o.ncmd != 1) __builtin_trap();
    if (o.timeout_set && !(isfinite(o.timeout) && o.timeout > 0)) __builtin_trap();
    if (o.backend && (!o.uri || !o.uri[0])) __builtin_trap();
    if (o.workdir && !o.workdir[0]) __builtin_trap();
    if (o.require_set && o.require == SBIO_TIER_UNKNOWN) __builtin_trap();
    for (size_t i = 0; i < o.n_allow; i++)
      if (!o.allow[i][0]) __builtin_trap();
    check_kv(&o.env);
    check_kv(&o.labels);
    check_kv(&o.secrets);
  }
  run_options_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *argv[MAX_WORDS + 2];
  int argc = 0;
  argv[argc++] = strdup("run");
  for (size_t i = 0; i <= size && argc <= MAX_WORDS;) {
    size_t n = 0;
    while (i + n < size && data[i + n] != '\0' && data[i + n] != '\n') n++;
    char *w = malloc(n + 1);
    if (!w) break;
    memcpy(w, data + i, n);
    w[n] = '\0';
    argv[argc++] = w;
    i += n + 1;
  }
  argv[argc] = NULL;
  FILE *out = stdout, *err = stderr, *null_out = null_stream();
  if (argv[0] && null_out) {
    stdout = stderr = null_out;
    parse_every_form(argv, argc);
    parse_run(argv, argc);
    stdout = out;
    stderr = err;
  }
  for (int i = 0; i < argc; i++) free(argv[i]);
  return 0;
}
