/* SPDX-License-Identifier: MIT */
/* sbio sources check [NAME...] [--json] [--timeout S] [--ca-file FILE]:
 * re-read every tier claim's source page and say whether the quote is
 * still there (check.h has the verdicts, docs/cli.md the output).
 *
 * Metadata only: the backends come from the host's listing, which reads
 * each file's note; no backend code is loaded or run, so disabled and
 * refused backends are checked too whenever their metadata is readable. */
#include "cmd_sources.h"

#include "args.h"
#include "check.h"
#include "errors.h"
#include "exitcode.h"
#include "host_open.h"
#include "output.h"
#include "report.h"

#include "backend_view.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOTAL_SECONDS 120.0
#define PAGE_SECONDS 30.0
#define MAX_TOTAL_SECONDS 86400.0

enum { OPT_JSON = 1, OPT_TIMEOUT, OPT_CA_FILE };

typedef struct options {
  int json;
  double timeout;
  const char *ca_file;
  const char **names;
  size_t n_names;
} options;

static int parse_timeout(const char *text, double *out) {
  char *end = NULL;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || !isfinite(v) || v <= 0 || v > MAX_TOTAL_SECONDS)
    return cli_usage_error("sources check", "--timeout needs a number of seconds in (0, %.0f] (got '%s')",
                           MAX_TOTAL_SECONDS, text);
  *out = v;
  return 0;
}

static int add_name(options *o, const char *name) {
  for (size_t i = 0; i < o->n_names; i++)
    if (!strcmp(o->names[i], name)) return 0; /* named twice: checked once */
  const char **grown = realloc(o->names, (o->n_names + 1) * sizeof *grown);
  if (!grown) return -1;
  o->names = grown;
  o->names[o->n_names++] = name;
  return 0;
}

/* The CA bundle: --ca-file, else the variables the curl tool reads
 * (libcurl itself reads neither), so a command line that works with curl
 * works here. Checked now, so a typo is one usage error rather than a
 * page of "unreachable". Returns -1 to go on, or the exit code. */
static int pick_ca_file(options *o) {
  static const char *const vars[] = {"CURL_CA_BUNDLE", "SSL_CERT_FILE"};
  const char *from = "--ca-file";
  for (size_t i = 0; !o->ca_file && i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && v[0]) {
      o->ca_file = v;
      from = vars[i];
    }
  }
  if (!o->ca_file) return -1;
  FILE *f = fopen(o->ca_file, "r");
  if (!f)
    return cli_usage_error("sources check", "cannot read the CA bundle %s names ('%s'): %s", from, o->ca_file,
                           strerror(errno));
  fclose(f);
  return -1;
}

/* Returns -1 to go on, or the exit code. */
static int parse(cli_globals *g, int argc, char **argv, options *o) {
  static const cli_opt opts[] = {
      {"json", 0, 0, OPT_JSON}, {"timeout", 0, 1, OPT_TIMEOUT}, {"ca-file", 0, 1, OPT_CA_FILE}, {NULL, 0, 0, 0}};
  cli_args a;
  const char *value;
  o->timeout = DEFAULT_TOTAL_SECONDS;
  cli_args_init(&a, g, "sources check", argc, argv);
  for (int r; (r = cli_args_next(&a, opts, &value)) != CLI_ARG_END;) {
    switch (r) {
    case OPT_JSON:
      o->json = 1;
      break;
    case OPT_TIMEOUT:
      if (parse_timeout(value, &o->timeout) != 0) return CLI_EXIT_USAGE;
      break;
    case OPT_CA_FILE:
      o->ca_file = value;
      break;
    case CLI_ARG_HELP:
      cli_help_print("sources check", stdout);
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    case CLI_ARG_POSITIONAL:
      if (add_name(o, value) != 0) return cli_error_oom(0);
      break;
    default:
      return cli_usage_error("sources check", "unexpected '--'");
    }
  }
  return pick_ca_file(o);
}

static int report_not_found(const sbio_host *host, const char *name, int json) {
  char names[1024], message[512], hint[1200];
  cli_backend_names(host, names, sizeof names);
  snprintf(message, sizeof message, "no backend named '%s'", name);
  if (names[0])
    snprintf(hint, sizeof hint, "available: %s", names);
  else
    snprintf(hint, sizeof hint, "no backends were found on the search path (see `sbio backends`)");
  cli_error_view v = {SBIO_E_BACKEND_NOT_FOUND, message, hint, NULL, NULL};
  return cli_error_report(&v, json);
}

/* The backends to check, in listing order: the named ones, or every one
 * that is not shadowed by another of the same name. Returns 0 or an exit
 * code (already reported). */
static int select_backends(const sbio_host *host, const options *o, src_report *rep) {
  size_t n = o->n_names ? o->n_names : sbio_host_backend_count(host);
  rep->backends = calloc(n ? n : 1, sizeof *rep->backends);
  if (!rep->backends) return cli_error_oom(o->json);
  if (o->n_names) {
    for (size_t i = 0; i < o->n_names; i++) {
      const sbio_backend_info *b = sbio_host_backend_find(host, o->names[i]);
      if (!b) return report_not_found(host, o->names[i], o->json);
      rep->backends[rep->n_backends++].info = b;
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      const sbio_backend_info *b = sbio_host_backend_at(host, i);
      if (sbio_backend_info_status(b) != SBIO_BACKEND_SHADOWED) rep->backends[rep->n_backends++].info = b;
    }
  }
  if (rep->n_backends == 0) {
    cli_error_view v = {SBIO_E_BACKEND_NOT_FOUND, "no backends were found, so there is no claim to check",
                        "see `sbio backends` for the search path", NULL, NULL};
    return cli_error_report(&v, o->json);
  }
  return 0;
}

/* Metadata that failed validation leaves a refused backend without a
 * version (a valid document always has one): nothing to check. */
static int metadata_readable(const sbio_backend_info *b) {
  return sbio_backend_info_version(b)[0] != '\0';
}

static int check_all(src_checker *checker, src_report *rep) {
  for (size_t i = 0; i < rep->n_backends; i++) {
    src_backend_report *br = &rep->backends[i];
    br->readable = metadata_readable(br->info);
    if (!br->readable) continue;
    size_t n = sbio_backend_info_mechanism_count(br->info);
    br->results = calloc(n ? n : 1, sizeof *br->results);
    if (!br->results) return -1;
    for (size_t m = 0; m < n; m++) {
      br->n_results = m + 1;
      if (src_check_mechanism(checker, br->info, m, &br->results[m]) != 0) return -1;
    }
  }
  return 0;
}

static void report_free(src_report *rep) {
  for (size_t i = 0; i < rep->n_backends; i++) {
    for (size_t m = 0; m < rep->backends[i].n_results; m++) src_result_free(&rep->backends[i].results[m]);
    free(rep->backends[i].results);
  }
  free(rep->backends);
}

static int sources_check(cli_globals *g, int argc, char **argv) {
  options o = {0};
  int rc = parse(g, argc, argv, &o);
  if (rc >= 0) {
    free(o.names);
    return rc;
  }
  sbio_host *host = NULL;
  rc = cli_host_open(g, NULL, o.json, &host);
  src_report rep = {0};
  if (rc == CLI_EXIT_OK) rc = select_backends(host, &o, &rep);
  if (rc == CLI_EXIT_OK) {
    src_fetch_options fetch = {.ca_file = o.ca_file, .user_agent = "sandboxio-sources-check/" SBIO_VERSION_STRING};
    src_checker *checker =
        src_checker_new(&fetch, o.timeout, PAGE_SECONDS < o.timeout ? PAGE_SECONDS : o.timeout, g->verbose);
    if (!checker || check_all(checker, &rep) != 0) {
      rc = cli_error_oom(o.json);
    } else {
      src_report_conclude(&rep);
      rc = o.json ? src_report_print_json(&rep) : src_report_print_text(&rep);
      if (rc == CLI_EXIT_OK) rc = rep.exit_code;
    }
    src_checker_free(checker);
  }
  report_free(&rep);
  if (host) sbio_host_close(host);
  free(o.names);
  return rc;
}

int cli_cmd_sources(cli_globals *g, int argc, char **argv) {
  if (argc < 2) return cli_usage_error("sources", "missing subcommand (check)");
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    cli_help_print("sources check", stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(argv[1], "check") != 0)
    return cli_usage_error("sources", "unknown subcommand '%s' (known: check)", argv[1]);
  return sources_check(g, argc - 1, argv + 1);
}
