/* SPDX-License-Identifier: MIT */
/* The configuration schema: the top-level keys and the metadata, backends
 * and audit sections (tracing is in config_schema_tracing.c). */
#include "config_schema.h"

#include "config_check.h"
#include "config_settings_json.h"
#include "uri.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BACKEND_NAME_MAX 31
#define MAX_AGE_DAYS_MIN 1
#define MAX_AGE_DAYS_MAX 3650

static const char *const tier_words[] = {"container", "gvisor", "microvm", "unknown", NULL};
static const sbio_tier tier_values[] = {SBIO_TIER_CONTAINER, SBIO_TIER_GVISOR, SBIO_TIER_MICROVM, SBIO_TIER_UNKNOWN};

static int valid_backend_name(const char *s) {
  size_t n = strlen(s);
  if (n < 1 || n > BACKEND_NAME_MAX || !(s[0] >= 'a' && s[0] <= 'z')) return 0;
  return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* A backend name, or SCHEME://REST whose scheme is a backend name; the
 * URI itself is parsed below (uri.c), so that one carrying a credential is
 * refused when the file is read, before anything shows the value. */
static int valid_default_backend(const char *s) {
  const char *sep = strstr(s, "://");
  if (!sep) return valid_backend_name(s);
  size_t n = (size_t)(sep - s);
  char scheme[BACKEND_NAME_MAX + 1];
  if (n > BACKEND_NAME_MAX) return 0;
  memcpy(scheme, s, n);
  scheme[n] = '\0';
  return valid_backend_name(scheme);
}

/* ----------------------------------------------------- top-level keys */

static sbio_code read_backend_path(const sbio__config_src *ctx, const sbio__config_node *value, sbio__config_layer *l) {
  if (value->kind != SBIO__NODE_SEQUENCE) {
    char d[SBIO__QUOTE_BUF];
    return sbio__config_fail_node(ctx, value, "\"backend_path\" must be a list of absolute directories, not %s",
                                  sbio__config_describe(value, d, sizeof d));
  }
  if (value->n_items) {
    l->v.backend_path = calloc(value->n_items, sizeof *l->v.backend_path);
    if (!l->v.backend_path) return sbio__config_fail_oom(ctx);
  }
  l->v.backend_path_set = 1;
  for (size_t i = 0; i < value->n_items; i++) {
    sbio_code rc =
        sbio__config_expect_absolute_path(ctx, "each \"backend_path\" entry", value->items[i], &l->v.backend_path[i]);
    if (rc) return rc;
    l->v.n_backend_path++;
  }
  return SBIO_OK;
}

static sbio_code read_default_backend(const sbio__config_src *ctx, const sbio__config_node *value,
                                      sbio__config_layer *l) {
  /* A URI may carry a query with a credential in it: never echo the value. */
  int ok = value->kind == SBIO__NODE_SCALAR && (value->quoted || value->type != SBIO__SCALAR_NULL) &&
           (value->quoted || value->type != SBIO__SCALAR_BOOL) && valid_default_backend(value->text);
  if (!ok)
    return sbio__config_fail_node(
        ctx, value,
        "\"default_backend\" must be a backend name (like fake) or a URI (like docker://python:3.12); "
        "got %s that is neither",
        sbio__config_describe_kind(value));
  if (strstr(value->text, "://")) {
    sbio_error *err = sbio_error_new();
    sbio__uri u;
    sbio_code rc = sbio__uri_parse(value->text, &u, err);
    if (rc == SBIO_OK) sbio__uri_free(&u);
    if (rc != SBIO_OK && rc != SBIO_E_INTERNAL) {
      /* The parser's reason never repeats what may be a secret. */
      rc = sbio__config_fail_node(ctx, value, "\"default_backend\": %s", err ? sbio_error_message(err) : "invalid URI");
      sbio_error_free(err);
      return rc;
    }
    sbio_error_free(err);
    if (rc != SBIO_OK) return sbio__config_fail_oom(ctx);
  }
  if (!(l->v.default_backend = strdup(value->text))) return sbio__config_fail_oom(ctx);
  return SBIO_OK;
}

static sbio_code read_require_isolation(const sbio__config_src *ctx, const sbio__config_node *value,
                                        sbio__config_layer *l) {
  int i;
  sbio_code rc =
      sbio__config_expect_choice(ctx, "require_isolation", value, tier_words, "container, gvisor or microvm", &i);
  if (rc) return rc;
  if (tier_values[i] == SBIO_TIER_UNKNOWN)
    return sbio__config_fail_node(
        ctx, value,
        "requiring UNKNOWN is meaningless: UNKNOWN satisfies no requirement (use container, gvisor or "
        "microvm, or leave require_isolation out)");
  l->v.require_isolation_set = 1;
  l->v.require_isolation = tier_values[i];
  return SBIO_OK;
}

static sbio_code read_metadata(const sbio__config_src *ctx, const sbio__config_node *value, sbio__config_layer *l) {
  static const char *const keys[] = {"max_age_days", "stale", NULL};
  static const char *const stale_words[] = {"warn", "unknown", NULL};
  const sbio__config_node *map;
  sbio_code rc = sbio__config_expect_section(ctx, "metadata", value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const sbio__config_node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "max_age_days")) {
      long days = 0;
      if (v->kind == SBIO__NODE_SCALAR && !v->quoted && v->type == SBIO__SCALAR_INT &&
          sbio__config_all_chars(v->text, "+" SBIO__DIGITS)) {
        errno = 0;
        days = strtol(v->text, NULL, 10);
        if (errno) days = 0;
      }
      if (days < MAX_AGE_DAYS_MIN || days > MAX_AGE_DAYS_MAX) {
        char d[SBIO__QUOTE_BUF];
        rc = sbio__config_fail_node(ctx, v, "\"max_age_days\" must be a whole number of days from %d to %d, not %s",
                                    MAX_AGE_DAYS_MIN, MAX_AGE_DAYS_MAX, sbio__config_describe(v, d, sizeof d));
      } else {
        l->v.max_age_days = (int)days;
        l->max_age_days_set = 1;
      }
    } else if (!strcmp(k->text, "stale")) {
      int choice;
      rc = sbio__config_expect_choice(ctx, "stale", v, stale_words, "warn or unknown", &choice);
      if (!rc) {
        l->v.stale = choice ? SBIO__STALE_UNKNOWN : SBIO__STALE_WARN;
        l->stale_set = 1;
      }
    } else {
      rc = sbio__config_unknown_key(ctx, k, "metadata", keys);
    }
  }
  return rc;
}

static sbio_code read_backends_default(const sbio__config_src *ctx, const sbio__config_node *value,
                                       sbio__config_layer *l) {
  static const char *const words[] = {"enabled", "disabled", NULL};
  int choice;
  sbio_code rc = sbio__config_expect_choice(ctx, "backends_default", value, words, "enabled or disabled", &choice);
  if (rc) return rc;
  l->v.backends_default_enabled = choice == 0;
  l->backends_default_set = 1;
  return SBIO_OK;
}

static sbio_code read_sha256(const sbio__config_src *ctx, const sbio__config_node *value, sbio__backend_config *b) {
  if (value->kind == SBIO__NODE_SCALAR && strlen(value->text) == 64 &&
      sbio__config_all_chars(value->text, SBIO__HEX_DIGITS)) {
    if (!(b->sha256 = strdup(value->text))) return sbio__config_fail_oom(ctx);
    for (char *p = b->sha256; *p; p++)
      if (*p >= 'A' && *p <= 'F') *p = (char)(*p - 'A' + 'a');
    return SBIO_OK;
  }
  char d[SBIO__QUOTE_BUF];
  const char *shown = sbio__config_describe(value, d, sizeof d);
  if (sbio__config_value_shown(value)) /* the value itself: say how long it is too */
    return sbio__config_fail_node(ctx, value, "\"sha256\" must be 64 hexadecimal digits, not %s (%zu characters)",
                                  shown, strlen(value->text));
  return sbio__config_fail_node(ctx, value, "\"sha256\" must be 64 hexadecimal digits, not %s", shown);
}

/* Only the key path ever appears in messages about settings: their values
 * may be secrets. */
static sbio_code read_settings(const sbio__config_src *ctx, const char *backend, const sbio__config_node *value,
                               sbio__backend_config *b) {
  if (value->kind != SBIO__NODE_MAPPING)
    return sbio__config_fail_node(ctx, value,
                                  "\"settings\" of backend \"%s\" must be a mapping of keys to values, not %s", backend,
                                  sbio__config_describe_kind(value));
  if (!(b->settings_json = sbio__config_settings_json(value))) return sbio__config_fail_oom(ctx);
  return SBIO_OK;
}

/* ----------------------------------------------------------- backends */

static sbio_code read_backend(const sbio__config_src *ctx, const sbio__config_node *key, const sbio__config_node *value,
                              sbio__backend_config *b) {
  static const char *const keys[] = {"enabled", "expect_tier", "sha256", "settings", NULL};
  char q[SBIO__QUOTE_BUF];
  if (!valid_backend_name(key->text))
    return sbio__config_fail_node(
        ctx, key,
        "invalid backend name %s: a name is 1 to %d lower-case letters, digits and underscores, "
        "starting with a letter",
        sbio__config_quote(key->text, q, sizeof q), BACKEND_NAME_MAX);
  if (!(b->name = strdup(key->text))) return sbio__config_fail_oom(ctx);
  size_t where_len = strlen(ctx->name) + 48;
  if (!(b->where = malloc(where_len))) return sbio__config_fail_oom(ctx);
  snprintf(b->where, where_len, "%s:%zu:%zu", ctx->name, key->line, key->column);

  char section[BACKEND_NAME_MAX + 16];
  snprintf(section, sizeof section, "backends.%s", key->text);
  const sbio__config_node *map;
  sbio_code rc = sbio__config_expect_section(ctx, section, value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const sbio__config_node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "enabled")) {
      rc = sbio__config_expect_bool(ctx, "enabled", v, &b->enabled);
      b->enabled_set = !rc;
    } else if (!strcmp(k->text, "expect_tier")) {
      int choice;
      rc = sbio__config_expect_choice(ctx, "expect_tier", v, tier_words, "container, gvisor, microvm or unknown",
                                      &choice);
      if (!rc) {
        b->expect_tier = tier_values[choice];
        b->expect_tier_set = 1;
      }
    } else if (!strcmp(k->text, "sha256")) {
      rc = read_sha256(ctx, v, b);
    } else if (!strcmp(k->text, "settings")) {
      rc = read_settings(ctx, key->text, v, b);
    } else {
      rc = sbio__config_unknown_key(ctx, k, section, keys);
    }
  }
  return rc;
}

static sbio_code read_backends(const sbio__config_src *ctx, const sbio__config_node *value, sbio__config_layer *l) {
  const sbio__config_node *map;
  sbio_code rc = sbio__config_expect_section(ctx, "backends", value, &map);
  if (rc || !map || !map->n_items) return rc;
  /* Names are unique here: check_duplicates ran on this mapping. */
  l->v.backends = calloc(map->n_items / 2, sizeof *l->v.backends);
  if (!l->v.backends) return sbio__config_fail_oom(ctx);
  for (size_t i = 0; !rc && i < map->n_items; i += 2) {
    rc = read_backend(ctx, map->items[i], map->items[i + 1], &l->v.backends[l->v.n_backends]);
    l->v.n_backends++; /* counted even on error so the partial entry is freed */
  }
  return rc;
}

static sbio_code read_audit(const sbio__config_src *ctx, const sbio__config_node *value, sbio__config_layer *l) {
  static const char *const keys[] = {"path", "on_failure", "stderr", NULL};
  static const char *const on_failure_words[] = {"warn", "fail", NULL};
  const sbio__config_node *map;
  sbio_code rc = sbio__config_expect_section(ctx, "audit", value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const sbio__config_node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "path")) {
      rc = sbio__config_expect_absolute_path(ctx, "\"path\" (the audit file)", v, &l->v.audit_path);
    } else if (!strcmp(k->text, "on_failure")) {
      int choice;
      rc = sbio__config_expect_choice(ctx, "on_failure", v, on_failure_words, "warn or fail", &choice);
      if (!rc) {
        l->v.audit_on_failure = choice ? SBIO__ON_FAILURE_FAIL : SBIO__ON_FAILURE_WARN;
        l->audit_on_failure_set = 1;
      }
    } else if (!strcmp(k->text, "stderr")) {
      rc = sbio__config_expect_bool(ctx, "stderr", v, &l->v.audit_stderr);
      l->audit_stderr_set = !rc;
    } else {
      rc = sbio__config_unknown_key(ctx, k, "audit", keys);
    }
  }
  return rc;
}

sbio_code sbio__config_read_layer(const sbio__config_src *ctx, const sbio__config_node *root, sbio__config_layer *l) {
  static const char *const keys[] = {"backend_path", "default_backend",  "require_isolation",
                                     "metadata",     "backends_default", "backends",
                                     "audit",        "tracing",          NULL};
  if (!root || (root->kind == SBIO__NODE_SCALAR && !root->quoted && root->type == SBIO__SCALAR_NULL)) return SBIO_OK;
  if (root->kind != SBIO__NODE_MAPPING)
    return sbio__config_fail_node(ctx, root, "the top level must be a mapping of keys to values, not %s",
                                  sbio__config_describe_kind(root));
  sbio_code rc = SBIO_OK;
  for (size_t i = 0; !rc && i < root->n_items; i += 2) {
    const sbio__config_node *k = root->items[i], *v = root->items[i + 1];
    if (!strcmp(k->text, "backend_path"))
      rc = read_backend_path(ctx, v, l);
    else if (!strcmp(k->text, "default_backend"))
      rc = read_default_backend(ctx, v, l);
    else if (!strcmp(k->text, "require_isolation"))
      rc = read_require_isolation(ctx, v, l);
    else if (!strcmp(k->text, "metadata"))
      rc = read_metadata(ctx, v, l);
    else if (!strcmp(k->text, "backends_default"))
      rc = read_backends_default(ctx, v, l);
    else if (!strcmp(k->text, "backends"))
      rc = read_backends(ctx, v, l);
    else if (!strcmp(k->text, "audit"))
      rc = read_audit(ctx, v, l);
    else if (!strcmp(k->text, "tracing"))
      rc = sbio__config_read_tracing(ctx, v, l);
    else
      rc = sbio__config_unknown_key(ctx, k, "the top-level mapping", keys);
  }
  return rc;
}
