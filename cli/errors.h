/* SPDX-License-Identifier: MIT */
/* Rendering errors for people (stderr) and programs (one JSON document on
 * stdout). Human form:
 *
 *   error: [SBX_E1000] message
 *     hint: what to do
 *     backend: fake
 *     sandbox: fake-0001
 *
 * JSON form: {"schema_version":1,"ok":false,"error":{"code":"SBX_E1000",
 * "class":"ConfigurationError","message":...,"hint":...,"backend":...,
 * "sandbox_id":...,"exit_code":78}} with null for absent values.
 *
 * Messages come from the library, which has already redacted secrets; the
 * CLI never adds a secret value to one. */
#ifndef SBIO_CLI_ERRORS_H
#define SBIO_CLI_ERRORS_H

#include <cjson/cJSON.h>
#include <sandboxio/sandboxio.h>

typedef struct cli_error_view {
  sbio_code code;
  const char *message;
  const char *hint;       /* NULL or "" when none */
  const char *backend;    /* NULL or "" when none */
  const char *sandbox_id; /* NULL or "" when none */
} cli_error_view;

/* Reports the error in the chosen form and returns its exit code. */
int cli_error_report(const cli_error_view *e, int json);
int cli_error_report_sbio(const sbio_error *err, int json);
/* The "error" object of the JSON form, for documents that carry several
 * (reap). NULL on out of memory. */
cJSON *cli_error_json(const cli_error_view *e);

/* Out of memory inside the CLI itself. */
int cli_error_oom(int json);

/* Prints only the human form to stderr with `prefix` instead of "error"
 * (e.g. "warning"), for failures that do not decide the exit code. */
void cli_error_print_human(const cli_error_view *e, const char *prefix);
void cli_error_view_from_sbio(const sbio_error *err, cli_error_view *out);

#endif
