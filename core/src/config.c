/* SPDX-License-Identifier: MIT */
/* Configuration (ARCHITECTURE.md section 6; keys in docs/configuration.md):
 * the built-in defaults, and merging one file over what is already there.
 *
 * A file goes through three stages so that a bad file never half-applies:
 *   1. YAML text -> a small node tree with 1-based positions (config_yaml.c);
 *   2. node tree -> a `layer`, every key checked: name, type, value
 *      (config_schema.c);
 *   3. layer -> sbio__config, after every allocation that could fail is
 *      done (here).
 * Finding and reading the files of each layer is config_load.c. */
#include "config.h"

#include "config_report.h"
#include "config_schema.h"
#include "config_yaml.h"
#include "error_internal.h"
#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void backend_config_free(sbio__backend_config *b) {
  free(b->name);
  free(b->sha256);
  free(b->settings_json);
  free(b->where);
  memset(b, 0, sizeof *b);
}

static sbio__backend_config *find_backend(const sbio__config *cfg, const char *name) {
  for (size_t i = 0; i < cfg->n_backends; i++)
    if (!strcmp(cfg->backends[i].name, name)) return &cfg->backends[i];
  return NULL;
}

static int backend_ptr_cmp(const void *a, const void *b) {
  const sbio__backend_config *const *x = a, *const *y = b;
  return strcmp((*x)->name, (*y)->name);
}

/* For each backend of the layer, its index in cfg->backends, or SIZE_MAX
 * when it is new. Binary search over a sorted view: a file may name a
 * hundred thousand backends and must not cost a quadratic merge. */
static sbio_code match_backends(const sbio__config_src *ctx, const sbio__config *cfg, const sbio__config_layer *l,
                                size_t **out, size_t *added) {
  *out = NULL;
  *added = 0;
  if (!l->v.n_backends) return SBIO_OK;
  size_t *match = malloc(l->v.n_backends * sizeof *match);
  const sbio__backend_config **sorted = cfg->n_backends ? malloc(cfg->n_backends * sizeof *sorted) : NULL;
  if (!match || (cfg->n_backends && !sorted)) {
    free(match);
    free(sorted);
    return sbio__config_fail_oom(ctx);
  }
  for (size_t i = 0; i < cfg->n_backends; i++) sorted[i] = &cfg->backends[i];
  if (sorted) qsort(sorted, cfg->n_backends, sizeof *sorted, backend_ptr_cmp);
  for (size_t i = 0; i < l->v.n_backends; i++) {
    const sbio__backend_config *key = &l->v.backends[i];
    const sbio__backend_config **hit =
        sorted ? bsearch(&key, sorted, cfg->n_backends, sizeof *sorted, backend_ptr_cmp) : NULL;
    match[i] = hit ? (size_t)(*hit - cfg->backends) : SIZE_MAX;
    *added += !hit;
  }
  free(sorted);
  *out = match;
  return SBIO_OK;
}

static void replace_string(char **dst, char **src) {
  if (!*src) return;
  free(*dst);
  *dst = *src;
  *src = NULL;
}

static void merge_backend(sbio__backend_config *dst, sbio__backend_config *src) {
  if (src->enabled_set) {
    dst->enabled_set = 1;
    dst->enabled = src->enabled;
  }
  if (src->expect_tier_set) {
    dst->expect_tier_set = 1;
    dst->expect_tier = src->expect_tier;
  }
  replace_string(&dst->sha256, &src->sha256);
  replace_string(&dst->settings_json, &src->settings_json); /* settings replace as a whole */
  replace_string(&dst->where, &src->where);                 /* the latest file that names it */
}

static void free_headers(sbio__config *cfg) {
  for (size_t i = 0; i < cfg->n_trace_headers; i++) {
    free(cfg->trace_header_names[i]);
    free(cfg->trace_header_values[i]);
  }
  free(cfg->trace_header_names);
  free(cfg->trace_header_values);
  cfg->trace_header_names = cfg->trace_header_values = NULL;
  cfg->n_trace_headers = 0;
}

/* Moves the layer into cfg. Everything that can fail happens before cfg
 * changes: growing arrays keeps their contents, so a failure leaves cfg
 * as it was. */
static sbio_code apply_layer(const sbio__config_src *ctx, sbio__config *cfg, sbio__config_layer *l) {
  char *file = strdup(ctx->path);
  if (!file) return sbio__config_fail_oom(ctx);
  char **files = realloc(cfg->files_read, (cfg->n_files_read + 1) * sizeof *files);
  if (!files) {
    free(file);
    return sbio__config_fail_oom(ctx);
  }
  cfg->files_read = files;
  size_t *match, added;
  sbio_code rc = match_backends(ctx, cfg, l, &match, &added);
  if (rc) {
    free(file);
    return rc;
  }
  if (added) {
    sbio__backend_config *grown = realloc(cfg->backends, (cfg->n_backends + added) * sizeof *grown);
    if (!grown) {
      free(file);
      free(match);
      return sbio__config_fail_oom(ctx);
    }
    cfg->backends = grown;
  }

  cfg->files_read[cfg->n_files_read++] = file;
  if (l->v.backend_path_set) {
    for (size_t i = 0; i < cfg->n_backend_path; i++) free(cfg->backend_path[i]);
    free(cfg->backend_path);
    cfg->backend_path = l->v.backend_path;
    cfg->n_backend_path = l->v.n_backend_path;
    cfg->backend_path_set = 1;
    l->v.backend_path = NULL;
    l->v.n_backend_path = 0;
  }
  replace_string(&cfg->default_backend, &l->v.default_backend);
  /* The floor is the one key a later layer cannot replace downwards: a
   * drop-in a package ships, or the user's own file, saying `container`
   * must not undo an operator's `microvm` in /etc. Across layers the
   * strictest floor stands, as it does against a caller's requirement. */
  if (l->v.require_isolation_set && (!cfg->require_isolation_set ||
                                     sbio_tier_rank(l->v.require_isolation) > sbio_tier_rank(cfg->require_isolation))) {
    cfg->require_isolation_set = 1;
    cfg->require_isolation = l->v.require_isolation;
  }
  if (l->max_age_days_set) cfg->max_age_days = l->v.max_age_days;
  if (l->stale_set) cfg->stale = l->v.stale;
  if (l->backends_default_set) cfg->backends_default_enabled = l->v.backends_default_enabled;
  replace_string(&cfg->audit_path, &l->v.audit_path);
  if (l->audit_on_failure_set) cfg->audit_on_failure = l->v.audit_on_failure;
  if (l->audit_stderr_set) cfg->audit_stderr = l->v.audit_stderr;
  if (l->v.trace_enabled_set) {
    cfg->trace_enabled_set = 1;
    cfg->trace_enabled = l->v.trace_enabled;
  }
  replace_string(&cfg->trace_endpoint, &l->v.trace_endpoint);
  replace_string(&cfg->trace_service_name, &l->v.trace_service_name);
  if (l->v.trace_headers_set) { /* headers replace as a whole, like settings */
    free_headers(cfg);
    cfg->trace_headers_set = 1;
    cfg->trace_header_names = l->v.trace_header_names;
    cfg->trace_header_values = l->v.trace_header_values;
    cfg->n_trace_headers = l->v.n_trace_headers;
    l->v.trace_header_names = l->v.trace_header_values = NULL;
    l->v.n_trace_headers = 0;
  }
  for (size_t i = 0; i < l->v.n_backends; i++) {
    sbio__backend_config *src = &l->v.backends[i];
    if (match[i] != SIZE_MAX) {
      merge_backend(&cfg->backends[match[i]], src);
    } else {
      cfg->backends[cfg->n_backends++] = *src;
      memset(src, 0, sizeof *src);
    }
  }
  free(match);
  return SBIO_OK;
}

void sbio__config_init(sbio__config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->require_isolation = SBIO_TIER_UNKNOWN;
  cfg->max_age_days = 92;
  cfg->stale = SBIO__STALE_WARN;
  cfg->backends_default_enabled = 1;
  cfg->audit_on_failure = SBIO__ON_FAILURE_WARN;
}

void sbio__config_free(sbio__config *cfg) {
  if (!cfg) return;
  for (size_t i = 0; i < cfg->n_backend_path; i++) free(cfg->backend_path[i]);
  free(cfg->backend_path);
  free(cfg->default_backend);
  for (size_t i = 0; i < cfg->n_backends; i++) backend_config_free(&cfg->backends[i]);
  free(cfg->backends);
  free(cfg->audit_path);
  free(cfg->trace_endpoint);
  free(cfg->trace_service_name);
  free_headers(cfg);
  for (size_t i = 0; i < cfg->n_files_read; i++) free(cfg->files_read[i]);
  free(cfg->files_read);
  memset(cfg, 0, sizeof *cfg); /* a second free is harmless */
}

sbio_code sbio__config_merge_buffer(sbio__config *cfg, const char *name, const char *data, size_t len,
                                    sbio_error *err) {
  if (!cfg || !name || (!data && len))
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sbio__config_merge_buffer: NULL argument");
  /* File names come from the caller, the environment and directory
   * listings: they can hold escape sequences, line breaks and bytes that
   * are not UTF-8, and be longer than a message. */
  char shown[SBIO__SHOWN_NAME_BUF];
  sbio__config_src ctx = {.path = name,
                          .name = sbio__utf8_shown_name(name, shown, sizeof shown),
                          .data = data ? data : "",
                          .len = len,
                          .err = err};
  sbio__config_node *root;
  sbio_code rc = sbio__config_parse_yaml(&ctx, &root);
  if (rc) return rc;
  sbio__config_layer l;
  memset(&l, 0, sizeof l);
  rc = sbio__config_read_layer(&ctx, root, &l);
  sbio__config_node_free(root);
  if (!rc) rc = apply_layer(&ctx, cfg, &l);
  sbio__config_free(&l.v);
  return rc;
}

const sbio__backend_config *sbio__config_backend(const sbio__config *cfg, const char *name) {
  if (!cfg || !name) return NULL;
  return find_backend(cfg, name);
}

int sbio__config_backend_enabled(const sbio__config *cfg, const char *name) {
  const sbio__backend_config *b = sbio__config_backend(cfg, name);
  if (b && b->enabled_set) return b->enabled;
  return cfg ? cfg->backends_default_enabled : 1;
}
