/* SPDX-License-Identifier: MIT */
/* Configuration: YAML files, layered (ARCHITECTURE.md section 6).
 *
 * Layers, later overriding earlier key by key: built-in defaults,
 * SYSCONFDIR/sandboxio/config.yaml, SYSCONFDIR/sandboxio/conf.d/ *.yaml
 * (sorted by name), $XDG_CONFIG_HOME/sandboxio/config.yaml (or
 * ~/.config/...). SBIO_CONFIG=FILE, or an explicit file, replaces them all.
 * Errors are "FILE:LINE:COLUMN: message" in an SBIO_E_CONFIG error. */
#ifndef SBIO_CONFIG_H
#define SBIO_CONFIG_H

#include <sandboxio/sandboxio.h>

typedef enum { SBIO__STALE_WARN = 0, SBIO__STALE_UNKNOWN = 1 } sbio__stale_policy;
typedef enum { SBIO__ON_FAILURE_WARN = 0, SBIO__ON_FAILURE_FAIL = 1 } sbio__on_failure;

typedef struct sbio__backend_config {
  char *name;
  int enabled_set, enabled;
  int expect_tier_set;
  sbio_tier expect_tier;
  char *sha256;        /* 64 lower-case hex digits, or NULL */
  char *settings_json; /* the `settings` mapping as a JSON object, or NULL */
  char *where;         /* "FILE:LINE:COL" of the backend's key, for messages */
} sbio__backend_config;

typedef struct sbio__config {
  int backend_path_set;
  char **backend_path; /* absolute directories */
  size_t n_backend_path;
  char *default_backend; /* a URI or a backend name, or NULL */
  int require_isolation_set;
  sbio_tier require_isolation; /* the fleet floor */
  int max_age_days;            /* metadata.max_age_days, default 92 */
  sbio__stale_policy stale;    /* metadata.stale, default warn */
  int backends_default_enabled; /* backends_default: enabled (1) | disabled (0) */
  sbio__backend_config *backends;
  size_t n_backends;
  char *audit_path;
  sbio__on_failure audit_on_failure;
  int audit_stderr; /* audit.stderr: also write each event to stderr */
  /* tracing: OTLP/HTTP JSON span export (docs/tracing.md). The
   * OTEL_* environment variables override these where they are set. */
  int trace_enabled_set, trace_enabled;
  char *trace_endpoint;     /* base URL; /v1/traces is appended */
  char *trace_service_name; /* resource service.name */
  int trace_headers_set;
  char **trace_header_names; /* extra HTTP headers; values may be secrets: never printed */
  char **trace_header_values;
  size_t n_trace_headers;
  char **files_read; /* every file merged, in order */
  size_t n_files_read;
} sbio__config;

void sbio__config_init(sbio__config *cfg); /* built-in defaults */
void sbio__config_free(sbio__config *cfg);

/* Parses YAML text and merges it into cfg. `name` is used in messages. Any
 * unknown key, wrong type, duplicate key, invalid value or YAML syntax error
 * fails with "NAME:LINE:COL: message" (1-based) and leaves cfg unchanged. */
sbio_code sbio__config_merge_buffer(sbio__config *cfg, const char *name, const char *data, size_t len,
                                    sbio_error *err);
/* Reads a file and merges it ("cannot read FILE: reason" if unreadable). */
sbio_code sbio__config_merge_file(sbio__config *cfg, const char *path, sbio_error *err);

/* Loads the layers. explicit_file (or else $SBIO_CONFIG) replaces the
 * layers. sysconfdir/xdg_home NULL mean this installation's SYSCONFDIR
 * (install_layout.h) and the user's XDG config home. Missing layer files are skipped; an explicit file
 * that is missing is an error. */
sbio_code sbio__config_load(sbio__config *cfg, const char *explicit_file, const char *sysconfdir,
                            const char *xdg_home, sbio_error *err);

/* The entry for a backend name, or NULL. */
const sbio__backend_config *sbio__config_backend(const sbio__config *cfg, const char *name);
/* Whether a backend is enabled: its own `enabled`, else backends_default. */
int sbio__config_backend_enabled(const sbio__config *cfg, const char *name);

#endif
