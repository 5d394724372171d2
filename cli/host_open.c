/* SPDX-License-Identifier: MIT */
/* Host setup shared by the commands. */
#include "host_open.h"

#include "backend_path.h"
#include "errors.h"
#include "progress.h"
#include "shown_text.h"

#include <stdio.h>
#include <stdlib.h>

/* Library diagnostics arrive redacted; they go to stderr so stdout stays
 * the command's (or the JSON document's) alone. */
static void log_to_stderr(sbio_log_level level, const char *message, void *user) {
  const cli_globals *g = user;
  const char *label;
  if (level >= SBIO_LOG_ERROR)
    label = "error";
  else if (level >= SBIO_LOG_WARN)
    label = "warning";
  else if (level >= SBIO_LOG_INFO && g->verbose >= 1)
    label = "info";
  else if (g->verbose >= 2)
    label = "debug";
  else
    return;
  cli_progress_clear(); /* a line of its own, not the tail of a progress bar */
  /* Library messages quote file names, backend names and provider texts. */
  char lead[32];
  snprintf(lead, sizeof lead, "sbio: %s: ", label);
  cli_print_shown_line(stderr, lead, message);
}

static sbio_code open_host(const cli_globals *g, const char *config_file, int progress, sbio_progress_fn progress_fn,
                           void *progress_user, sbio_host **out, sbio_error *err) {
  sbio_host_options *opts = sbio_host_options_new();
  sbio_code rc = SBIO_E_INTERNAL;
  *out = NULL;
  if (!opts) {
    if (err) sbio_error_clear(err);
    return SBIO_E_INTERNAL;
  }
  const char *file = config_file ? config_file : g->config_file;
  if (file)
    rc = sbio_host_options_set_config_file(opts, file);
  else
    rc = SBIO_OK;
  if (rc == SBIO_OK && g->backend_path) rc = cli_set_backend_path(opts, g->backend_path);
  /* The callback only reads the globals, which outlive the host. */
  if (rc == SBIO_OK) rc = sbio_host_options_set_log_callback(opts, log_to_stderr, (void *)g);
  /* Only where a bar can be drawn: elsewhere progress is not even asked for. */
  if (rc == SBIO_OK && progress && cli_progress_enabled())
    rc = sbio_host_options_set_progress_callback(opts, cli_progress_update, NULL);
  if (rc == SBIO_OK && progress_fn) rc = sbio_host_options_set_progress_callback(opts, progress_fn, progress_user);
  /* The caller's W3C trace context (a CI job, an agent): our spans become
   * its children. A malformed value is ignored by the library, with a
   * warning. */
  const char *traceparent = getenv("TRACEPARENT");
  if (rc == SBIO_OK && traceparent && traceparent[0]) rc = sbio_host_options_set_traceparent(opts, traceparent);
  if (rc == SBIO_OK) rc = sbio_host_open(opts, out, err);
  sbio_host_options_free(opts);
  return rc;
}

sbio_code cli_host_open_raw(const cli_globals *g, const char *config_file, sbio_host **out, sbio_error *err) {
  return open_host(g, config_file, 0, NULL, NULL, out, err);
}

static int open_reported(const cli_globals *g, const char *config_file, int json, int progress,
                         sbio_progress_fn progress_fn, void *progress_user, sbio_host **out) {
  sbio_error *err = sbio_error_new();
  if (!err) return cli_error_oom(json);
  sbio_code rc = open_host(g, config_file, progress, progress_fn, progress_user, out, err);
  int exit_code = 0;
  if (rc != SBIO_OK) {
    if (sbio_error_code(err) == SBIO_OK) {
      /* A setter failed without filling err (e.g. out of memory). */
      cli_error_view v = {rc, "cannot prepare the library host", NULL, NULL, NULL};
      exit_code = cli_error_report(&v, json);
    } else {
      exit_code = cli_error_report_sbio(err, json);
    }
  }
  sbio_error_free(err);
  return exit_code;
}

int cli_host_open(const cli_globals *g, const char *config_file, int json, sbio_host **out) {
  return open_reported(g, config_file, json, 0, NULL, NULL, out);
}

int cli_host_open_with_progress(const cli_globals *g, sbio_host **out) {
  return open_reported(g, NULL, 0, 1, NULL, NULL, out);
}

int cli_host_open_progress_to(const cli_globals *g, sbio_progress_fn fn, void *user, sbio_host **out) {
  return open_reported(g, NULL, 0, 0, fn, user, out);
}
