/* SPDX-License-Identifier: MIT */
/* sbio inspect NAME [--json] [--load]: everything known about one backend,
 * above all why its tier is what it is. */
#include "args.h"
#include "backend_view.h"
#include "cli.h"
#include "errors.h"
#include "exitcode.h"
#include "host_open.h"
#include "output.h"
#include "shown_text.h"

#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <stdlib.h>

enum { OPT_JSON = 1, OPT_LOAD };

static const char *or_dash(const char *s) {
  return s && s[0] ? s : "-";
}

/* "LABEL           value": values come from the backend's file and its
 * metadata, so their control characters are spelled out. */
static void field(int indent, const char *label, const char *value) {
  printf("%*s%-15s ", indent, "", label);
  cli_fputs_shown(value, stdout);
  putchar('\n');
}

static void print_tier(int indent, const char *label, sbio_tier tier) {
  printf("%*s%-15s %s%s%s\n", indent, "", label, cli_color_for_tier(tier), cli_tier_text(tier),
         cli_color_for_tier(tier)[0] ? cli_color_reset() : "");
}

static void print_mechanism(const sbio_backend_info *b, size_t i) {
  int age = sbio_mechanism_age_days(b, i);
  fputs("  ", stdout);
  cli_fputs_shown(sbio_mechanism_name(b, i), stdout);
  putchar('\n');
  print_tier(4, "claimed tier:", sbio_mechanism_claimed_tier(b, i));
  print_tier(4, "tier:", sbio_mechanism_tier(b, i));
  field(4, "source:", or_dash(sbio_mechanism_source_url(b, i)));
  if (age >= 0)
    printf("    %-15s %s (%d days ago)\n", "verified on:", or_dash(sbio_mechanism_verified_on(b, i)), age);
  else
    printf("    %-15s %s\n", "verified on:", or_dash(sbio_mechanism_verified_on(b, i)));
  printf("    %-15s %s\n", "stale:", sbio_mechanism_stale(b, i) ? "yes" : "no");
  const char *quote = sbio_mechanism_quote(b, i);
  if (quote && quote[0]) {
    printf("    %-15s \"", "quote:");
    cli_fputs_shown(quote, stdout);
    puts("\"");
  } else
    printf("    %-15s -\n", "quote:");
  field(4, "reason:", or_dash(sbio_mechanism_reason(b, i)));
}

static int print_human(const sbio_backend_info *b) {
  char caps[1024];
  sbio_backend_status status = sbio_backend_info_status(b);
  const char *status_color = cli_color_for_status(status);
  cli_caps_text(sbio_backend_info_capabilities(b), caps, sizeof caps);
  field(0, "name:", sbio_backend_info_name(b));
  field(0, "path:", sbio_backend_info_path(b));
  field(0, "sha256:", or_dash(sbio_backend_info_sha256(b)));
  field(0, "version:", or_dash(sbio_backend_info_version(b)));
  field(0, "summary:", or_dash(sbio_backend_info_summary(b)));
  printf("%-15s %s%s%s\n", "status:", status_color, or_dash(sbio_backend_status_name(status)),
         status_color[0] ? cli_color_reset() : "");
  field(0, "reason:", or_dash(sbio_backend_info_reason(b)));
  printf("%-15s %s\n", "enabled:", sbio_backend_info_enabled(b) ? "yes" : "no");
  print_tier(0, "tier:", sbio_backend_info_tier(b));
  print_tier(0, "claimed tier:", sbio_backend_info_claimed_tier(b));
  if (sbio_backend_info_has_expect_tier(b))
    print_tier(0, "pin tier:", sbio_backend_info_expect_tier(b));
  else
    printf("%-15s %s\n", "pin tier:", "-");
  printf("%-15s %s\n", "capabilities:", caps[0] ? caps : "-");
  size_t n = sbio_backend_info_mechanism_count(b);
  if (n)
    printf("mechanisms:\n");
  else
    printf("%-15s %s\n", "mechanisms:", "- (none declared: the tier is UNKNOWN)");
  for (size_t i = 0; i < n; i++) print_mechanism(b, i);
  return CLI_EXIT_OK;
}

static int print_json(const sbio_backend_info *b) {
  cJSON *doc = cli_json_doc(1);
  cJSON *o = doc ? cli_backend_json(b, 1) : NULL;
  if (!o || !cJSON_AddItemToObject(doc, "backend", o)) {
    cJSON_Delete(o);
    cJSON_Delete(doc);
    return cli_error_oom(1);
  }
  return cli_json_emit(doc);
}

static int report_not_found(const sbio_host *host, const char *name, int json) {
  char names[1024], message[512], hint[1200];
  cli_backend_names(host, names, sizeof names);
  /* The name is the caller's text: shown escaped, cut on a character. */
  char *shown = cli_shown_dup(name), cut[400];
  int long_name = snprintf(cut, sizeof cut, "%s", shown ? shown : "?") >= (int)sizeof cut;
  free(shown);
  cli_utf8_trim_tail(cut);
  snprintf(message, sizeof message, "no backend named '%s%s'", cut, long_name ? "..." : "");
  if (names[0])
    snprintf(hint, sizeof hint, "available: %s", names);
  else
    snprintf(hint, sizeof hint, "no backends were found on the search path (see `sbio backends`)");
  cli_error_view v = {SBIO_E_BACKEND_NOT_FOUND, message, hint, NULL, NULL};
  return cli_error_report(&v, json);
}

int cli_cmd_inspect(cli_globals *g, int argc, char **argv) {
  static const cli_opt opts[] = {{"json", 0, 0, OPT_JSON}, {"load", 0, 0, OPT_LOAD}, {NULL, 0, 0, 0}};
  cli_args a;
  const char *value, *name = NULL;
  int json = 0, load = 0;
  cli_args_init(&a, g, "inspect", argc, argv);
  for (int r; (r = cli_args_next(&a, opts, &value)) != CLI_ARG_END;) {
    switch (r) {
    case OPT_JSON:
      json = 1;
      break;
    case OPT_LOAD:
      load = 1;
      break;
    case CLI_ARG_HELP:
      cli_help_print("inspect", stdout);
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    case CLI_ARG_POSITIONAL:
      if (name) return cli_usage_error("inspect", "one backend NAME only (got '%s' and '%s')", name, value);
      name = value;
      break;
    default:
      return cli_usage_error("inspect", "unexpected '--'");
    }
  }
  if (!name) return cli_usage_error("inspect", "missing backend NAME");

  sbio_host *host = NULL;
  int rc = cli_host_open(g, NULL, json, &host);
  if (rc != CLI_EXIT_OK) return rc;
  const sbio_backend_info *b = sbio_host_backend_find(host, name);
  if (!b) {
    rc = report_not_found(host, name, json);
  } else {
    /* Loading records a refusal in the info, which is what is shown next. */
    if (load && sbio_backend_info_status(b) == SBIO_BACKEND_AVAILABLE) sbio_host_load_backend(host, name, NULL);
    rc = json ? print_json(b) : print_human(b);
  }
  sbio_host_close(host);
  return rc;
}
