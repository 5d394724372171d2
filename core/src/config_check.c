/* SPDX-License-Identifier: MIT */
/* Value checks shared by the sections of the configuration schema.
 * Security settings are read strictly (true/false only, exact enums, no
 * unknown keys): a typo must be an error, never a silently ignored line. */
#include "config_check.h"

#include "config_suggest.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

sbio_code sbio__config_unknown_key(const sbio__config_src *ctx, const sbio__config_node *key, const char *where,
                                   const char *const *known) {
  char q[SBIO__QUOTE_BUF];
  const char *guess = sbio__config_suggest(key->text, known);
  if (guess)
    return sbio__config_fail_node(ctx, key, "unknown key %s in %s (did you mean \"%s\"?)",
                                  sbio__config_quote(key->text, q, sizeof q), where, guess);
  char list[256] = "";
  size_t o = 0;
  for (size_t i = 0; known[i] && o < sizeof list; i++)
    o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", known[i]);
  return sbio__config_fail_node(ctx, key, "unknown key %s in %s (known keys: %s)",
                                sbio__config_quote(key->text, q, sizeof q), where, list);
}

/* A section that must be a mapping; empty (all its lines commented out)
 * counts as an empty mapping. Sets *map to NULL for that case. */
sbio_code sbio__config_expect_section(const sbio__config_src *ctx, const char *key, const sbio__config_node *value,
                                      const sbio__config_node **map) {
  *map = NULL;
  if (value->kind == SBIO__NODE_MAPPING) {
    *map = value;
    return SBIO_OK;
  }
  if (value->kind == SBIO__NODE_SCALAR && !value->quoted && value->type == SBIO__SCALAR_NULL) return SBIO_OK;
  /* Only the kind: a value pasted in the wrong place may be a credential. */
  return sbio__config_fail_node(ctx, value, "\"%s\" must be a mapping of keys to values, not %s", key,
                                sbio__config_describe_kind(value));
}

sbio_code sbio__config_expect_bool(const sbio__config_src *ctx, const char *key, const sbio__config_node *value,
                                   int *out) {
  if (value->kind == SBIO__NODE_SCALAR && !value->quoted && value->type == SBIO__SCALAR_BOOL) {
    *out = value->text[0] == 't' || value->text[0] == 'T';
    return SBIO_OK;
  }
  char d[SBIO__QUOTE_BUF];
  return sbio__config_fail_node(ctx, value, "\"%s\" must be a boolean (true or false), not %s", key,
                                sbio__config_describe(value, d, sizeof d));
}

/* Matches the scalar case-insensitively against `choices`; -1 otherwise. */
static int match_choice(const sbio__config_node *value, const char *const *choices) {
  if (value->kind != SBIO__NODE_SCALAR) return -1;
  for (int i = 0; choices[i]; i++)
    if (!strcasecmp(value->text, choices[i])) return i;
  return -1;
}

sbio_code sbio__config_expect_choice(const sbio__config_src *ctx, const char *key, const sbio__config_node *value,
                                     const char *const *choices, const char *spelled, int *out) {
  *out = match_choice(value, choices);
  if (*out >= 0) return SBIO_OK;
  char d[SBIO__QUOTE_BUF];
  return sbio__config_fail_node(ctx, value, "\"%s\" must be one of %s, not %s", key, spelled,
                                sbio__config_describe(value, d, sizeof d));
}

sbio_code sbio__config_expect_absolute_path(const sbio__config_src *ctx, const char *what,
                                            const sbio__config_node *value, char **out) {
  if (value->kind == SBIO__NODE_SCALAR && value->text[0] == '/') {
    if (!(*out = strdup(value->text))) return sbio__config_fail_oom(ctx);
    return SBIO_OK;
  }
  char d[SBIO__QUOTE_BUF];
  return sbio__config_fail_node(ctx, value, "%s must be an absolute path (starting with /), not %s", what,
                                sbio__config_describe(value, d, sizeof d));
}
