/* SPDX-License-Identifier: MIT */
/* sbio doctor [--json] [--probe]: is this installation fit to run
 * sandboxes? Versions, the configuration read (a broken one is reported,
 * and the rest of the report is made with the built-in defaults), the
 * backend search path, and for each backend its status, tier, the
 * freshness of the source of that tier, its credentials (set or unset, by
 * name only), whether its provider can be reached (local backends always;
 * cloud backends only with --probe, since asking is a network request),
 * and every problem found with its fix.
 *
 * Exit: 0 when every enabled backend is healthy; 78 when the configuration
 * is broken; otherwise 69 (a backend cannot serve). */
#include "args.h"
#include "backend_path.h"
#include "cli.h"
#include "doctor.h"
#include "errors.h"
#include "exitcode.h"
#include "output.h"

#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { OPT_JSON = 1, OPT_PROBE };

/* Library warnings become report warnings, except those the report states
 * in its own words (refused and stale backends). */
static void capture_log(sbio_log_level level, const char *message, void *user) {
  doctor_state *st = user;
  if (level < SBIO_LOG_WARN || !strncmp(message, "backend ", 8)) return;
  doctor_warning(st, NULL, message);
}

static sbio_code open_host(const cli_globals *g, doctor_state *st, int no_config, sbio_host **out, sbio_error *err) {
  sbio_host_options *o = sbio_host_options_new();
  if (!o) return SBIO_E_INTERNAL;
  sbio_code rc = sbio_host_options_set_log_callback(o, capture_log, st);
  if (rc == SBIO_OK && no_config) rc = sbio_host_options_set_no_config(o, 1);
  if (rc == SBIO_OK && !no_config && g->config_file) rc = sbio_host_options_set_config_file(o, g->config_file);
  if (rc == SBIO_OK && g->backend_path) rc = cli_set_backend_path(o, g->backend_path);
  if (rc == SBIO_OK) rc = sbio_host_open(o, out, err);
  sbio_host_options_free(o);
  return rc;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names (never values) of the variables that change what sbio does. */
static int add_environment(cJSON *doc) {
  static const char *const exact[] = {"TRACEPARENT", "DOCKER_HOST", "E2B_API_KEY", "DAYTONA_API_KEY", NULL};
  size_t n = 0;
  for (char **e = environ; *e; e++) n++;
  const char **names = calloc(n + 1, sizeof *names);
  char **copies = calloc(n + 1, sizeof *copies);
  cJSON *arr = names && copies ? cJSON_AddArrayToObject(doc, "environment") : NULL;
  size_t k = 0;
  for (char **e = environ; arr && *e; e++) {
    size_t len = strcspn(*e, "=");
    int wanted = !strncmp(*e, "SBIO_", 5) || !strncmp(*e, "OTEL_", 5);
    for (size_t i = 0; !wanted && exact[i]; i++) wanted = strlen(exact[i]) == len && !strncmp(*e, exact[i], len);
    if (!wanted || !(*e)[len] || !(*e)[len + 1]) continue; /* unset or empty */
    if (!(copies[k] = strndup(*e, len))) break;
    names[k] = copies[k];
    k++;
  }
  qsort(names, k, sizeof *names, name_cmp);
  int ok = arr != NULL;
  for (size_t i = 0; ok && i < k; i++) {
    cJSON *s = cJSON_CreateString(names[i]);
    ok = s && cJSON_AddItemToArray(arr, s);
    if (!ok) cJSON_Delete(s);
  }
  for (size_t i = 0; i < k; i++) free(copies[i]);
  free(copies);
  free(names);
  return ok ? 0 : -1;
}

static int add_strings(cJSON *obj, const char *key, size_t n, const char *(*at)(const sbio_host *, size_t),
                       const sbio_host *host) {
  cJSON *arr = cJSON_AddArrayToObject(obj, key);
  for (size_t i = 0; arr && i < n; i++) {
    cJSON *s = cJSON_CreateString(at(host, i));
    if (!s || !cJSON_AddItemToArray(arr, s)) {
      cJSON_Delete(s);
      return -1;
    }
  }
  return arr ? 0 : -1;
}

/* The default backend must exist and be usable, or every `sbio run`
 * without --backend fails. */
static void check_default_backend(doctor_state *st, const sbio_host *host) {
  const char *def = sbio_host_default_backend(host);
  if (!def) return;
  char name[64], what[256], fix[256];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(def, ":"), def);
  const sbio_backend_info *b = sbio_host_backend_find(host, name);
  sbio_backend_status status = b ? sbio_backend_info_status(b) : SBIO_BACKEND_REFUSED;
  if (b && (status == SBIO_BACKEND_AVAILABLE || status == SBIO_BACKEND_LOADED)) return;
  if (b)
    snprintf(what, sizeof what, "default_backend names %s, which is %s", name, sbio_backend_status_name(status));
  else
    snprintf(what, sizeof what, "default_backend names %s, which is not installed", name);
  snprintf(fix, sizeof fix, "install or enable backend %s, or change default_backend in the configuration", name);
  doctor_problem(st, NULL, what, fix);
}

static int build_report(doctor_state *st, sbio_host *host, const sbio_error *config_error) {
  cJSON *doc = st->doc;
  cJSON *config = NULL;
  if (!cJSON_AddStringToObject(doc, "sbio", SBIO_VERSION_STRING) ||
      !cli_json_add_string_or_null(doc, "library", sbio_version()) ||
      !(config = cJSON_AddObjectToObject(doc, "config")) ||
      add_strings(config, "files", sbio_host_config_file_count(host), sbio_host_config_file_at, host) != 0)
    return -1;
  if (config_error) {
    cli_error_view v;
    cli_error_view_from_sbio(config_error, &v);
    cJSON *e = cli_error_json(&v);
    if (!e || !cJSON_AddItemToObject(config, "error", e)) {
      cJSON_Delete(e);
      return -1;
    }
    const char *hint = sbio_error_hint(config_error);
    doctor_problem(st, NULL, sbio_error_message(config_error),
                   hint && hint[0] ? hint : "fix the configuration; `sbio config check` shows where");
  } else if (!cJSON_AddNullToObject(config, "error")) {
    return -1;
  }
  cJSON *tracing = cJSON_CreateObject();
  if (add_strings(doc, "search_path", sbio_host_search_dir_count(host), sbio_host_search_dir_at, host) != 0 ||
      !cli_json_add_string_or_null(doc, "default_backend", sbio_host_default_backend(host)) ||
      !cJSON_AddStringToObject(doc, "isolation_floor", cli_tier_text(sbio_host_isolation_floor(host))) || !tracing ||
      !cJSON_AddItemToObject(doc, "tracing", tracing) ||
      !cli_json_add_string_or_null(tracing, "endpoint", sbio_host_trace_endpoint(host)) ||
      !cli_json_add_string_or_null(tracing, "off_reason", sbio_host_trace_off_reason(host)) ||
      add_environment(doc) != 0)
    return -1;
  cJSON *list = cJSON_AddArrayToObject(doc, "backends");
  if (!list) return -1;
  for (size_t i = 0; i < sbio_host_backend_count(host); i++) {
    cJSON *b = doctor_check_backend(st, host, sbio_host_backend_at(host, i));
    if (!b || !cJSON_AddItemToArray(list, b)) {
      cJSON_Delete(b);
      return -1;
    }
  }
  if (!sbio_host_backend_count(host))
    doctor_problem(st, NULL, "no backend was found on the search path",
                   "install a backend (sbio-backend-NAME.so) into a directory of the search path, or add its "
                   "directory with --backend-path or backend_path in the configuration");
  check_default_backend(st, host);
  return st->oom ? -1 : 0;
}

static int run_doctor(cli_globals *g, int json, int probe_all) {
  doctor_state st = {.probe_all = probe_all};
  st.doc = cli_json_doc(1);
  st.problems = cJSON_CreateArray();
  st.warnings = cJSON_CreateArray();
  sbio_error *err = sbio_error_new(), *config_error = NULL;
  sbio_host *host = NULL;
  int exit_code = CLI_EXIT_OK;
  if (!st.doc || !st.problems || !st.warnings || !err) {
    exit_code = cli_error_oom(json);
    goto out;
  }
  sbio_code rc = open_host(g, &st, 0, &host, err);
  if (rc != SBIO_OK && sbio_error_code(err) == SBIO_E_CONFIG) {
    /* A broken configuration is itself the finding; the report goes on
     * with the built-in defaults so the backends can still be shown. */
    config_error = err;
    err = sbio_error_new();
    rc = err ? open_host(g, &st, 1, &host, err) : SBIO_E_INTERNAL;
  }
  if (rc != SBIO_OK) {
    if (err && sbio_error_code(err) != SBIO_OK) {
      exit_code = cli_error_report_sbio(err, json);
    } else {
      cli_error_view v = {rc, "cannot prepare the library host", NULL, NULL, NULL};
      exit_code = cli_error_report(&v, json);
    }
    goto out;
  }
  if (build_report(&st, host, config_error) != 0) {
    exit_code = cli_error_oom(json);
    goto out;
  }
  int n_problems = cJSON_GetArraySize(st.problems);
  cJSON_ReplaceItemInObject(st.doc, "ok", cJSON_CreateBool(n_problems == 0));
  cJSON_AddItemToObject(st.doc, "problems", st.problems);
  cJSON_AddItemToObject(st.doc, "warnings", st.warnings);
  st.problems = st.warnings = NULL;
  exit_code = config_error ? CLI_EXIT_CONFIG : n_problems ? CLI_EXIT_UNAVAILABLE : CLI_EXIT_OK;
  if (json) {
    int emit = cli_json_emit(st.doc);
    st.doc = NULL;
    if (emit) exit_code = emit;
  } else {
    doctor_render(st.doc);
  }
out:
  if (host) sbio_host_close(host);
  cJSON_Delete(st.doc);
  cJSON_Delete(st.problems);
  cJSON_Delete(st.warnings);
  sbio_error_free(err);
  sbio_error_free(config_error);
  return exit_code;
}

int cli_cmd_doctor(cli_globals *g, int argc, char **argv) {
  static const cli_opt opts[] = {{"json", 0, 0, OPT_JSON}, {"probe", 0, 0, OPT_PROBE}, {NULL, 0, 0, 0}};
  cli_args a;
  const char *value;
  int json = 0, probe_all = 0;
  cli_args_init(&a, g, "doctor", argc, argv);
  for (int r; (r = cli_args_next(&a, opts, &value)) != CLI_ARG_END;) {
    switch (r) {
    case OPT_JSON:
      json = 1;
      break;
    case OPT_PROBE:
      probe_all = 1;
      break;
    case CLI_ARG_HELP:
      cli_help_print("doctor", stdout);
      return CLI_EXIT_OK;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    default:
      return cli_usage_error("doctor", "unexpected argument '%s'", r == CLI_ARG_POSITIONAL ? value : "--");
    }
  }
  return run_doctor(g, json, probe_all);
}
