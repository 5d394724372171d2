/* SPDX-License-Identifier: MIT */
/* Builtins that touch neither files nor the network: true, false, echo,
 * printenv, env, seq, sleep. */
#include "vcmds.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sbio__fake_cmd_true(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  (void)sh, (void)io, (void)argc, (void)argv;
  return 0;
}

int sbio__fake_cmd_false(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  (void)sh, (void)io, (void)argc, (void)argv;
  return 1;
}

int sbio__fake_cmd_echo(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  size_t i = 1;
  int newline = 1;
  while (i < argc && strcmp(argv[i], "-n") == 0) {
    newline = 0;
    i++;
  }
  size_t total = 1;
  for (size_t j = i; j < argc; j++) total += strlen(argv[j]) + 1;
  char *line = malloc(total);
  if (!line) return 1;
  size_t len = 0;
  for (size_t j = i; j < argc; j++) {
    if (j > i) line[len++] = ' ';
    size_t n = strlen(argv[j]);
    memcpy(line + len, argv[j], n);
    len += n;
  }
  if (newline) line[len++] = '\n';
  int status = sbio__fake_vcmd_write(sh, io, 1, "echo", line, len);
  free(line);
  return status;
}

/* "KEY=VALUE\n" for every variable, sorted. */
static int print_env(fake_vsh *sh, const fake_io *io, const fake_env *env, const char *name) {
  for (size_t i = 0; i < env->n; i++) {
    if (sbio__fake_io_printf(&sh->out, io, 1, "%s=%s\n", env->keys[i], env->vals[i]) != 0) {
      sbio__fake_io_printf(&sh->out, io, 2, "%s: write error\n", name);
      return 1;
    }
  }
  return 0;
}

int sbio__fake_cmd_printenv(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  if (argc == 1) return print_env(sh, io, &sh->env, "printenv");
  int status = 0;
  for (size_t i = 1; i < argc; i++) {
    const char *v = sbio__fake_env_get(&sh->env, argv[i]);
    if (!v)
      status = 1;
    else if (sbio__fake_io_printf(&sh->out, io, 1, "%s\n", v) != 0)
      return 1;
  }
  return status;
}

/* env [-i] [NAME=VALUE]... [COMMAND [ARG]...] */
int sbio__fake_cmd_env(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  size_t i = 1;
  int empty = 0;
  if (i < argc && (strcmp(argv[i], "-i") == 0 || strcmp(argv[i], "-") == 0)) {
    empty = 1;
    i++;
  }
  if (i < argc && argv[i][0] == '-') {
    sbio__fake_io_printf(&sh->out, io, 2, "env: unsupported option '%s'\n", argv[i]);
    return 125;
  }
  fake_env overlay;
  sbio__fake_env_init(&overlay);
  int ok = empty || sbio__fake_env_copy(&overlay, &sh->env) == 0;
  for (; ok && i < argc; i++) {
    const char *eq = strchr(argv[i], '=');
    if (!eq || eq == argv[i]) break;
    char *key = strndup(argv[i], (size_t)(eq - argv[i]));
    ok = key && sbio__fake_env_set(&overlay, key, eq + 1) == 0;
    free(key);
  }
  int status = 125;
  if (!ok) {
    sbio__fake_io_printf(&sh->out, io, 2, "env: out of memory\n");
  } else if (i == argc) {
    status = print_env(sh, io, &overlay, "env");
  } else {
    fake_env saved = sh->env;
    sh->env = overlay;
    status = sbio__fake_vsh_run_argv(sh, io, argc - i, argv + i);
    overlay = sh->env;
    sh->env = saved;
  }
  sbio__fake_env_free(&overlay);
  return status;
}

static int parse_ll(const char *s, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || *end || errno) return -1;
  *out = v;
  return 0;
}

/* seq LAST | seq FIRST LAST | seq FIRST INCREMENT LAST (integers). */
int sbio__fake_cmd_seq(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  long long v[3] = {1, 1, 0};
  if (argc < 2 || argc > 4) {
    sbio__fake_io_printf(&sh->out, io, 2, "seq: %s operand\n", argc < 2 ? "missing" : "extra");
    return 1;
  }
  size_t slot[3][3] = {{2}, {0, 2}, {0, 1, 2}}; /* where each operand goes */
  for (size_t i = 1; i < argc; i++) {
    if (parse_ll(argv[i], &v[slot[argc - 2][i - 1]]) != 0) {
      sbio__fake_io_printf(&sh->out, io, 2, "seq: invalid argument: '%s'\n", argv[i]);
      return 1;
    }
  }
  long long first = v[0], step = v[1], last = v[2];
  if (step == 0) {
    sbio__fake_io_printf(&sh->out, io, 2, "seq: invalid Zero increment value: '0'\n");
    return 1;
  }
  for (long long x = first; step > 0 ? x <= last : x >= last;) {
    if (sbio__fake_vsh_should_stop(sh)) return 137;
    char line[32];
    int n = snprintf(line, sizeof line, "%lld\n", x);
    if (sbio__fake_vcmd_write(sh, io, 1, "seq", line, (size_t)n) != 0) return 1;
    if ((step > 0 && x > LLONG_MAX - step) || (step < 0 && x < LLONG_MIN - step)) break;
    x += step;
  }
  return 0;
}

/* One sleep operand in virtual seconds: a number with an optional s, m, h
 * or d suffix, or "inf"; -1 when invalid. */
static double parse_duration(const char *s) {
  char *end;
  double d = strtod(s, &end);
  if (end == s || isnan(d) || d < 0) return -1;
  static const char units[] = "smhd";
  static const double factor[] = {1, 60, 3600, 86400};
  if (*end) {
    const char *u = strchr(units, *end);
    if (!u || end[1]) return -1;
    d *= factor[u - units];
  }
  return d;
}

int sbio__fake_cmd_sleep(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  if (argc < 2) {
    sbio__fake_io_printf(&sh->out, io, 2, "sleep: missing operand\n");
    return 1;
  }
  double total = 0;
  for (size_t i = 1; i < argc; i++) {
    double d = parse_duration(argv[i]);
    if (d < 0) {
      sbio__fake_io_printf(&sh->out, io, 2, "sleep: invalid time interval '%s'\n", argv[i]);
      return 1;
    }
    total += d;
  }
  fake_wake w = sbio__fake_vsleep(sh->call, sh->time_scale, total, &sh->box->killed);
  if (w == FAKE_WAKE_DONE) return 0;
  sh->stop = w;
  return 137;
}
