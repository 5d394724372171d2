/* SPDX-License-Identifier: MIT */
/* sbio backends [--json] [--load]: every backend on the search path, with
 * its isolation tier. Listing reads metadata notes only; --load is the
 * explicit way to run backend code (dlopen) and surface load refusals. */
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

enum { OPT_JSON = 1, OPT_LOAD };

/* Loads each enabled backend; a refusal is recorded in its info, which is
 * what the listing shows, so the error itself is not reported here. */
static void load_enabled(sbio_host *host) {
  for (size_t i = 0; i < sbio_host_backend_count(host); i++) {
    const sbio_backend_info *b = sbio_host_backend_at(host, i);
    if (sbio_backend_info_status(b) != SBIO_BACKEND_AVAILABLE) continue;
    sbio_host_load_backend(host, sbio_backend_info_name(b), NULL);
  }
}

static int add_string_array(cJSON *doc, const char *key, size_t n, const char *(*at)(const sbio_host *, size_t),
                            const sbio_host *host) {
  cJSON *arr = cJSON_AddArrayToObject(doc, key);
  if (!arr) return -1;
  for (size_t i = 0; i < n; i++) {
    cJSON *s = cJSON_CreateString(at(host, i));
    if (!s || !cJSON_AddItemToArray(arr, s)) {
      cJSON_Delete(s);
      return -1;
    }
  }
  return 0;
}

static int print_json(const sbio_host *host) {
  cJSON *doc = cli_json_doc(1);
  cJSON *list = NULL;
  if (!doc ||
      add_string_array(doc, "search_path", sbio_host_search_dir_count(host), sbio_host_search_dir_at, host) != 0 ||
      add_string_array(doc, "config_files", sbio_host_config_file_count(host), sbio_host_config_file_at, host) != 0 ||
      !cli_json_add_string_or_null(doc, "default_backend", sbio_host_default_backend(host)) ||
      !cJSON_AddStringToObject(doc, "isolation_floor", cli_tier_text(sbio_host_isolation_floor(host))) ||
      !(list = cJSON_AddArrayToObject(doc, "backends"))) {
    cJSON_Delete(doc);
    return cli_error_oom(1);
  }
  for (size_t i = 0; i < sbio_host_backend_count(host); i++) {
    cJSON *o = cli_backend_json(sbio_host_backend_at(host, i), 0);
    if (!o || !cJSON_AddItemToArray(list, o)) {
      cJSON_Delete(o);
      cJSON_Delete(doc);
      return cli_error_oom(1);
    }
  }
  return cli_json_emit(doc);
}

static const char *or_dash(const char *s) {
  return s && s[0] ? s : "-";
}

static int print_human(const sbio_host *host) {
  static const char *const headers[] = {"NAME", "STATUS", "TIER", "CLAIMED", "VERIFIED", "SOURCE", "VERSION", "PATH"};
  size_t n = sbio_host_backend_count(host);
  if (n == 0) {
    printf("no backends found; searched:\n");
    for (size_t i = 0; i < sbio_host_search_dir_count(host); i++) {
      fputs("  ", stdout);
      cli_fputs_shown(sbio_host_search_dir_at(host, i), stdout);
      putchar('\n');
    }
    return CLI_EXIT_OK;
  }
  cli_table *t = cli_table_new(8, headers);
  if (!t) return cli_error_oom(0);
  for (size_t i = 0; i < n; i++) {
    const sbio_backend_info *b = sbio_host_backend_at(host, i);
    long m = cli_backend_deciding_mechanism(b);
    sbio_backend_status status = sbio_backend_info_status(b);
    sbio_tier tier = sbio_backend_info_tier(b), claimed = sbio_backend_info_claimed_tier(b);
    const char *cells[8] = {sbio_backend_info_name(b),
                            or_dash(sbio_backend_status_name(status)),
                            cli_tier_text(tier),
                            cli_tier_text(claimed),
                            or_dash(m >= 0 ? sbio_mechanism_verified_on(b, (size_t)m) : NULL),
                            or_dash(m >= 0 ? sbio_mechanism_source_url(b, (size_t)m) : NULL),
                            or_dash(sbio_backend_info_version(b)),
                            sbio_backend_info_path(b)};
    const char *colors[8] = {
        NULL, cli_color_for_status(status), cli_color_for_tier(tier), cli_color_for_tier(claimed), NULL, NULL, NULL,
        NULL};
    if (cli_table_add(t, cells, colors) != 0) {
      cli_table_free(t);
      return cli_error_oom(0);
    }
  }
  cli_table_print(t, stdout);
  cli_table_free(t);

  /* Why a backend cannot be used, and why a tier was not accepted. */
  int blank_done = 0;
  for (size_t i = 0; i < n; i++) {
    const sbio_backend_info *b = sbio_host_backend_at(host, i);
    sbio_backend_status status = sbio_backend_info_status(b);
    const char *reason = sbio_backend_info_reason(b);
    if (status != SBIO_BACKEND_LOADED && status != SBIO_BACKEND_AVAILABLE && reason && reason[0]) {
      if (!blank_done++) putchar('\n');
      printf("  %s (%s): ", sbio_backend_info_name(b), sbio_backend_status_name(status));
      cli_fputs_shown(reason, stdout); /* it can quote a file name or the plugin's text */
      putchar('\n');
    }
    if (status == SBIO_BACKEND_SHADOWED) continue;
    for (size_t j = 0; j < sbio_backend_info_mechanism_count(b); j++) {
      const char *why = sbio_mechanism_reason(b, j);
      if (!why || !why[0]) continue;
      if (!blank_done++) putchar('\n');
      printf("  %s/", sbio_backend_info_name(b));
      cli_fputs_shown(sbio_mechanism_name(b, j), stdout);
      fputs(": ", stdout);
      cli_fputs_shown(why, stdout);
      putchar('\n');
    }
  }
  return CLI_EXIT_OK;
}

int cli_cmd_backends(cli_globals *g, int argc, char **argv) {
  static const cli_opt opts[] = {{"json", 0, 0, OPT_JSON}, {"load", 0, 0, OPT_LOAD}, {NULL, 0, 0, 0}};
  cli_args a;
  const char *value;
  int json = 0, load = 0;
  cli_args_init(&a, g, "backends", argc, argv);
  for (int r; (r = cli_args_next(&a, opts, &value)) != CLI_ARG_END;) {
    switch (r) {
    case OPT_JSON:
      json = 1;
      break;
    case OPT_LOAD:
      load = 1;
      break;
    case CLI_ARG_HELP:
      cli_help_print("backends", stdout);
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    default:
      return cli_usage_error("backends", "unexpected argument '%s'", r == CLI_ARG_POSITIONAL ? value : "--");
    }
  }
  sbio_host *host = NULL;
  int rc = cli_host_open(g, NULL, json, &host);
  if (rc != CLI_EXIT_OK) return rc;
  if (load) load_enabled(host);
  rc = json ? print_json(host) : print_human(host);
  sbio_host_close(host);
  return rc;
}
