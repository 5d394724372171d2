/* SPDX-License-Identifier: MIT */
/* sbio config check [FILE] [--json]: validate a config file, or the layered
 * configuration sbio would read. Errors keep the library's
 * "FILE:LINE:COLUMN: message" form on a line of their own, the form editors
 * and CI annotations jump to. */
#include "args.h"
#include "cli.h"
#include "errors.h"
#include "exitcode.h"
#include "host_open.h"
#include "output.h"
#include "shown_text.h"

#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <string.h>

enum { OPT_JSON = 1 };

static int print_ok(const sbio_host *host, int json) {
  size_t n = sbio_host_config_file_count(host);
  if (!json) {
    for (size_t i = 0; i < n; i++) {
      cli_fputs_shown(sbio_host_config_file_at(host, i), stdout);
      fputs(": ok\n", stdout);
    }
    if (n == 0) printf("no configuration file found; built-in defaults apply\n");
    return CLI_EXIT_OK;
  }
  cJSON *doc = cli_json_doc(1);
  cJSON *files = doc ? cJSON_AddArrayToObject(doc, "files") : NULL;
  int ok = files != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    cJSON *s = cJSON_CreateString(sbio_host_config_file_at(host, i));
    ok = s && cJSON_AddItemToArray(files, s);
    if (!ok) cJSON_Delete(s);
  }
  ok = ok && cli_json_add_string_or_null(doc, "default_backend", sbio_host_default_backend(host)) &&
       cJSON_AddStringToObject(doc, "isolation_floor", cli_tier_text(sbio_host_isolation_floor(host)));
  if (!ok) {
    cJSON_Delete(doc);
    return cli_error_oom(1);
  }
  return cli_json_emit(doc);
}

static int report_failure(sbio_code rc, const sbio_error *err, int json) {
  if (sbio_error_code(err) == SBIO_OK) {
    cli_error_view v = {rc, "cannot prepare the library host", NULL, NULL, NULL};
    return cli_error_report(&v, json);
  }
  if (json || sbio_error_code(err) != SBIO_E_CONFIG) return cli_error_report_sbio(err, json);
  cli_fputs_shown(sbio_error_message(err), stderr);
  fputc('\n', stderr);
  const char *hint = sbio_error_hint(err);
  if (hint && hint[0]) {
    fputs("  hint: ", stderr);
    cli_fputs_shown(hint, stderr);
    fputc('\n', stderr);
  }
  return CLI_EXIT_CONFIG;
}

static int config_check(cli_globals *g, int argc, char **argv) {
  static const cli_opt opts[] = {{"json", 0, 0, OPT_JSON}, {NULL, 0, 0, 0}};
  cli_args a;
  const char *value, *file = NULL;
  int json = 0;
  cli_args_init(&a, g, "config check", argc, argv);
  for (int r; (r = cli_args_next(&a, opts, &value)) != CLI_ARG_END;) {
    switch (r) {
    case OPT_JSON:
      json = 1;
      break;
    case CLI_ARG_HELP:
      cli_help_print("config check", stdout);
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    case CLI_ARG_POSITIONAL:
      if (file) return cli_usage_error("config check", "one FILE only (got '%s' and '%s')", file, value);
      file = value;
      break;
    default:
      return cli_usage_error("config check", "unexpected '--'");
    }
  }
  sbio_error *err = sbio_error_new();
  if (!err) return cli_error_oom(json);
  sbio_host *host = NULL;
  sbio_code rc = cli_host_open_raw(g, file, &host, err);
  int exit_code = rc == SBIO_OK ? print_ok(host, json) : report_failure(rc, err, json);
  if (host) sbio_host_close(host);
  sbio_error_free(err);
  return exit_code;
}

int cli_cmd_config(cli_globals *g, int argc, char **argv) {
  if (argc < 2) return cli_usage_error("config", "missing subcommand (check)");
  if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    cli_help_print("config check", stdout);
    return CLI_EXIT_OK;
  }
  if (strcmp(argv[1], "check") != 0)
    return cli_usage_error("config", "unknown subcommand '%s' (known: check)", argv[1]);
  return config_check(g, argc - 1, argv + 1);
}
