/* SPDX-License-Identifier: MIT */
/* The tree a configuration file becomes before any key is checked: each
 * node keeps its 1-based position for messages, and each scalar its type
 * under the YAML 1.2 core schema (config_yaml.c builds the tree; the
 * schema, config_schema.c, reads it). */
#ifndef SBIO_CONFIG_NODE_H
#define SBIO_CONFIG_NODE_H

#include <stddef.h>

#define SBIO__DIGITS "0123456789"
#define SBIO__HEX_DIGITS "0123456789abcdefABCDEF"

typedef enum { SBIO__NODE_SCALAR, SBIO__NODE_SEQUENCE, SBIO__NODE_MAPPING } sbio__node_kind;

/* What a scalar means under the YAML 1.2 core schema. */
typedef enum {
  SBIO__SCALAR_NULL,
  SBIO__SCALAR_BOOL,
  SBIO__SCALAR_INT,
  SBIO__SCALAR_FLOAT,
  SBIO__SCALAR_STRING
} sbio__scalar_type;

typedef struct sbio__config_node {
  sbio__node_kind kind;
  size_t line, column;              /* 1-based */
  char *text;                       /* scalar: NUL-terminated, never holds an embedded NUL */
  sbio__scalar_type type;           /* scalar: resolved type */
  int quoted;                       /* scalar: quoted, block or !!str: always a string */
  struct sbio__config_node **items; /* sequence: elements; mapping: key, value, key, value, ... */
  size_t n_items, cap_items;
} sbio__config_node;

/* Frees a node and everything under it; NULL is a no-op. */
void sbio__config_node_free(sbio__config_node *n);

/* Whether s is non-empty and made only of characters of set. */
int sbio__config_all_chars(const char *s, const char *set);
/* Whether s is .inf, -.inf, .nan and the like: floats JSON cannot spell. */
int sbio__config_is_special_float(const char *s);
/* The core-schema type of an untagged plain scalar. */
sbio__scalar_type sbio__config_resolve_plain(const char *s);

#endif
