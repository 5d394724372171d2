/* SPDX-License-Identifier: MIT */
/* Parsing `sbio run`; see run_options.h. Secret values are looked up here
 * and from then on only travel to the API: no message below prints one. */
#include "run_options.h"

#include "args.h"
#include "exitcode.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_BACKEND = 1,
  OPT_REQUIRE,
  OPT_ENV,
  OPT_SECRET,
  OPT_LABEL,
  OPT_WORKDIR,
  OPT_TIMEOUT,
  OPT_STDIN,
  OPT_SHELL,
  OPT_ALLOW
};

static const cli_opt run_opts[] = {
    {"backend", 'b', 1, OPT_BACKEND},
    {"require-isolation", 0, 1, OPT_REQUIRE},
    {"env", 'e', 1, OPT_ENV},
    {"secret", 0, 1, OPT_SECRET},
    {"label", 'l', 1, OPT_LABEL},
    {"workdir", 'w', 1, OPT_WORKDIR},
    {"timeout", 0, 1, OPT_TIMEOUT},
    {"stdin", 'i', 0, OPT_STDIN},
    {"shell", 0, 0, OPT_SHELL},
    {"allow", 0, 1, OPT_ALLOW},
    {NULL, 0, 0, 0},
};

/* "container, gvisor, microvm": the tiers one can require (not UNKNOWN). */
static void requirable_tiers(char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < SBIO_TIER_COUNT; i++) {
    sbio_tier t = sbio_tier_at(i);
    const char *name = sbio_tier_name(t);
    if (t == SBIO_TIER_UNKNOWN || !name) continue;
    int n = snprintf(buf + used, size - used, "%s", used ? ", " : "");
    if (n < 0 || (size_t)n >= size - used) return;
    used += (size_t)n;
    for (const char *p = name; *p && used + 1 < size; p++) buf[used++] = (char)tolower((unsigned char)*p);
    buf[used] = '\0';
  }
}

static int parse_tier(run_options *o, const char *text) {
  char valid[128];
  requirable_tiers(valid, sizeof valid);
  if (sbio_tier_parse(text, &o->require) != 0)
    return cli_usage_error("run", "unknown isolation tier '%s' (valid: %s)", text, valid);
  if (o->require == SBIO_TIER_UNKNOWN)
    return cli_usage_error("run", "requiring tier '%s' is meaningless: UNKNOWN satisfies no requirement (valid: %s)",
                           text, valid);
  o->require_set = 1;
  return 0;
}

static int parse_timeout(run_options *o, const char *text) {
  char *end = NULL;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || !isfinite(v) || v <= 0)
    return cli_usage_error("run", "--timeout needs a number of seconds > 0 (got '%s')", text);
  o->timeout = v;
  o->timeout_set = 1;
  return 0;
}

static int add_kv(cli_kv_list *l, const char *option, const char *text) {
  int rc = cli_kv_add(l, text);
  if (rc == -2) {
    fputs("sbio: error: out of memory\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  /* -e and -l values are shown: they are not secrets, and the mistake is
   * easier to see with them. */
  if (rc != 0) return cli_usage_error("run", "%s needs K=V with a non-empty K (got '%s')", option, text);
  return 0;
}

/* Whether `s` (n bytes) is an environment variable name. */
static int env_name(const char *s, size_t n) {
  if (n == 0 || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
      return 0;
  return 1;
}

/* --secret K=ENVVAR: the value comes from this process's environment so
 * it never appears in a command line, a shell history or `ps`. A mistake
 * here is named, never echoed: the argument may be the secret itself
 * (--secret DB_PASSWORD=hunter2, or just the value). K is repeated only
 * when it is a variable name. */
static int add_secret(run_options *o, const char *text) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text || !env_name(text, (size_t)(eq - text)))
    return cli_usage_error("run",
                           "--secret needs K=ENVVAR, K and ENVVAR environment variable names, ENVVAR holding the "
                           "value (the argument given is not of that form; it is not repeated here)");
  int klen = (int)(eq - text);
  if (eq[1] == '\0' || !env_name(eq + 1, strlen(eq + 1)))
    return cli_usage_error("run",
                           "--secret %.*s: what follows '=' is not an environment variable name; give the name of a "
                           "variable holding the value, never the value (it is not repeated here)",
                           klen, text);
  const char *value = getenv(eq + 1);
  if (!value)
    return cli_usage_error("run",
                           "--secret %.*s: the environment variable named after '=' is not set (the name is not "
                           "repeated here, in case it was the value)",
                           klen, text);
  int rc = cli_kv_add(&o->secrets, text);
  if (rc != 0) {
    fputs("sbio: error: out of memory\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  o->secrets.items[o->secrets.n - 1].value = value;
  return 0;
}

/* --allow HOST: an egress allow-list entry (a host name or a CIDR). The
 * library judges the entry; only emptiness is a usage error here. */
static int add_allow(run_options *o, const char *host) {
  if (!host[0]) return cli_usage_error("run", "--allow needs a host name or CIDR");
  const char **grown = realloc(o->allow, (o->n_allow + 1) * sizeof *grown);
  if (!grown) {
    fputs("sbio: error: out of memory\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  o->allow = grown;
  o->allow[o->n_allow++] = host;
  return 0;
}

/* A bare NAME means NAME:// (what default_backend accepts too); anything
 * else goes to the library's URI parser as given, to be judged there. */
static int normalise_backend(run_options *o) {
  const char *b = o->backend;
  int bare = islower((unsigned char)b[0]) && strspn(b, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(b);
  size_t len = strlen(b) + 4;
  o->uri = malloc(len);
  if (!o->uri) {
    fputs("sbio: error: out of memory\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  snprintf(o->uri, len, "%s%s", b, bare ? "://" : "");
  return 0;
}

/* Usage error for words before `--`, suggesting the corrected line. */
static int missing_dashdash(char **words, int n) {
  char cmd[256];
  size_t used = 0;
  cmd[0] = '\0';
  for (int i = 0; i < n && used < sizeof cmd; i++) {
    int w = snprintf(cmd + used, sizeof cmd - used, "%s%s", i ? " " : "", words[i]);
    if (w < 0) break;
    used += (size_t)w;
  }
  return cli_usage_error("run", "unexpected argument '%s': the command goes after '--', e.g. sbio run [OPTIONS] -- %s",
                         words[0], cmd);
}

int run_options_parse(run_options *o, cli_globals *g, int argc, char **argv, int *help_shown) {
  cli_args a;
  const char *value;
  int rc = 0, seen_dashdash = 0;
  memset(o, 0, sizeof *o);
  *help_shown = 0;
  cli_args_init(&a, g, "run", argc, argv);
  while (rc == 0 && !seen_dashdash) {
    int r = cli_args_next(&a, run_opts, &value);
    switch (r) {
    case OPT_BACKEND:
      o->backend = value;
      break;
    case OPT_REQUIRE:
      rc = parse_tier(o, value);
      break;
    case OPT_ENV:
      rc = add_kv(&o->env, "--env", value);
      break;
    case OPT_SECRET:
      rc = add_secret(o, value);
      break;
    case OPT_LABEL:
      rc = add_kv(&o->labels, "--label", value);
      break;
    case OPT_WORKDIR:
      o->workdir = value;
      break;
    case OPT_TIMEOUT:
      rc = parse_timeout(o, value);
      break;
    case OPT_STDIN:
      o->use_stdin = 1;
      break;
    case OPT_SHELL:
      o->shell = 1;
      break;
    case OPT_ALLOW:
      rc = add_allow(o, value);
      break;
    case CLI_ARG_HELP:
      cli_help_print("run", stdout);
      *help_shown = 1;
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      rc = CLI_EXIT_USAGE;
      break;
    case CLI_ARG_POSITIONAL:
      /* Demanding `--` keeps CMD's own options from being read as ours
       * (`sbio run ls -l` would otherwise add a label). */
      rc = missing_dashdash(a.argv + a.index - 1, a.argc - a.index + 1);
      break;
    case CLI_ARG_DASHDASH:
      seen_dashdash = 1;
      break;
    case CLI_ARG_END:
      rc = cli_usage_error("run", "missing command: put it after '--', e.g. sbio run -- echo hello");
      break;
    default:
      rc = CLI_EXIT_INTERNAL;
      break;
    }
  }
  if (rc != 0) return rc;
  o->cmd = cli_args_rest(&a, &o->ncmd);
  if (o->ncmd == 0) return cli_usage_error("run", "missing command after '--'");
  if (o->shell && o->ncmd != 1)
    return cli_usage_error("run",
                           "--shell takes exactly one script string after '--' (got %d words); quote it, e.g. "
                           "sbio run --shell -- 'echo a; echo b'",
                           o->ncmd);
  if (o->workdir && o->workdir[0] == '\0') return cli_usage_error("run", "--workdir needs a directory");
  if (o->backend) {
    if (o->backend[0] == '\0') return cli_usage_error("run", "--backend needs a URI such as docker://IMAGE or fake://");
    return normalise_backend(o);
  }
  return 0;
}

void run_options_free(run_options *o) {
  cli_kv_free(&o->env);
  cli_kv_free(&o->secrets);
  cli_kv_free(&o->labels);
  free(o->uri);
  o->uri = NULL;
  free(o->allow);
  o->allow = NULL;
  o->n_allow = 0;
}
