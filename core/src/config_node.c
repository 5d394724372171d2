/* SPDX-License-Identifier: MIT */
/* The configuration node tree and the YAML 1.2 core-schema typing of plain
 * scalars (null, bool, int, float, else string). */
#include "config_node.h"

#include <stdlib.h>
#include <string.h>

void sbio__config_node_free(sbio__config_node *n) {
  if (!n) return;
  for (size_t i = 0; i < n->n_items; i++) sbio__config_node_free(n->items[i]);
  free(n->items);
  free(n->text);
  free(n);
}

int sbio__config_all_chars(const char *s, const char *set) {
  return *s && s[strspn(s, set)] == '\0';
}

static int is_core_null(const char *s) {
  return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int is_core_bool(const char *s) {
  static const char *const words[] = {"true", "True", "TRUE", "false", "False", "FALSE"};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (!strcmp(s, words[i])) return 1;
  return 0;
}

static int is_core_int(const char *s) {
  if (s[0] == '0' && s[1] == 'o') return sbio__config_all_chars(s + 2, "01234567");
  if (s[0] == '0' && s[1] == 'x') return sbio__config_all_chars(s + 2, SBIO__HEX_DIGITS);
  if (*s == '-' || *s == '+') s++;
  return sbio__config_all_chars(s, SBIO__DIGITS);
}

int sbio__config_is_special_float(const char *s) {
  const char *p = (*s == '-' || *s == '+') ? s + 1 : s;
  if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) return 1;
  return !strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN");
}

/* [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int is_core_float(const char *s) {
  if (sbio__config_is_special_float(s)) return 1;
  const char *p = (*s == '-' || *s == '+') ? s + 1 : s;
  size_t before = strspn(p, SBIO__DIGITS), after = 0;
  p += before;
  if (*p == '.') {
    after = strspn(p + 1, SBIO__DIGITS);
    p += 1 + after;
  }
  if (before + after == 0) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '-' || *p == '+') p++;
    size_t exp = strspn(p, SBIO__DIGITS);
    if (!exp) return 0;
    p += exp;
  }
  return *p == '\0';
}

sbio__scalar_type sbio__config_resolve_plain(const char *s) {
  if (is_core_null(s)) return SBIO__SCALAR_NULL;
  if (is_core_bool(s)) return SBIO__SCALAR_BOOL;
  if (is_core_int(s)) return SBIO__SCALAR_INT;
  if (is_core_float(s)) return SBIO__SCALAR_FLOAT;
  return SBIO__SCALAR_STRING;
}
