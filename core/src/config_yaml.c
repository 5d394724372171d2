/* SPDX-License-Identifier: MIT */
/* libyaml events -> a small node tree with 1-based positions, refusing
 * anchors, aliases, unknown tags, duplicate keys, extra documents and
 * nesting deeper than CONFIG_MAX_DEPTH, so that the schema only ever sees
 * plain data. */
#include "config_yaml.h"

#include "error_internal.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define CONFIG_MAX_DEPTH 64 /* bounds recursion on hostile input */

/* The file being read and libyaml's parser over it. */
typedef struct reader {
  const sbio__config_src *src;
  yaml_parser_t parser;
} reader;

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

static int node_append(sbio__config_node *parent, sbio__config_node *child) {
  if (parent->n_items == parent->cap_items) {
    size_t cap = parent->cap_items ? parent->cap_items * 2 : 8;
    sbio__config_node **items = realloc(parent->items, cap * sizeof *items);
    if (!items) return -1;
    parent->items = items;
    parent->cap_items = cap;
  }
  parent->items[parent->n_items++] = child;
  return 0;
}

/* libyaml's reader reports a byte offset, not a mark. */
static void offset_position(const sbio__config_src *ctx, size_t offset, size_t *line, size_t *column) {
  *line = 1;
  *column = 1;
  for (size_t i = 0; i < offset && i < ctx->len; i++) {
    unsigned char c = (unsigned char)ctx->data[i];
    if (c == '\n') {
      (*line)++;
      *column = 1;
    } else if ((c & 0xC0) != 0x80) {
      (*column)++;
    }
  }
}

static sbio_code fail_syntax(const reader *rd) {
  const yaml_parser_t *p = &rd->parser;
  if (p->error == YAML_MEMORY_ERROR) return sbio__config_fail_oom(rd->src);
  const char *problem = p->problem ? p->problem : "invalid YAML";
  size_t line, column;
  if (p->error == YAML_READER_ERROR) {
    offset_position(rd->src, p->problem_offset, &line, &column);
    if (p->problem_value > 0xff) /* a decoded character, not a raw byte */
      return sbio__config_fail_at(rd->src, line, column, "%s (character U+%04X)", problem, (unsigned)p->problem_value);
    if (p->problem_value >= 0)
      return sbio__config_fail_at(rd->src, line, column, "%s (byte 0x%02x)", problem, (unsigned)p->problem_value);
    return sbio__config_fail_at(rd->src, line, column, "%s", problem);
  }
  line = p->problem_mark.line + 1;
  column = p->problem_mark.column + 1;
  if (p->context)
    return sbio__config_fail_at(rd->src, line, column, "%s (%s started at %zu:%zu)", problem, p->context,
                                p->context_mark.line + 1, p->context_mark.column + 1);
  return sbio__config_fail_at(rd->src, line, column, "%s", problem);
}

static sbio_code next_event(reader *rd, yaml_event_t *ev) {
  if (yaml_parser_parse(&rd->parser, ev)) return SBIO_OK;
  return fail_syntax(rd);
}

static sbio_code refuse_anchor(const sbio__config_src *ctx, const yaml_event_t *ev) {
  return sbio__config_fail_at(
      ctx, ev->start_mark.line + 1, ev->start_mark.column + 1,
      "anchors and aliases (& and *) are not allowed in configuration files; write each value out");
}

static sbio_code refuse_tag(const sbio__config_src *ctx, const yaml_event_t *ev, const char *tag) {
  char q[SBIO__QUOTE_BUF];
  return sbio__config_fail_at(
      ctx, ev->start_mark.line + 1, ev->start_mark.column + 1,
      "tag %s is not allowed here; only the standard tags !!str, !!int, !!float, !!bool, !!null, "
      "!!seq and !!map are",
      sbio__config_quote(tag, q, sizeof q));
}

static int is_std_tag(const char *tag, const char *name) {
  return !strncmp(tag, YAML_TAG_PREFIX, strlen(YAML_TAG_PREFIX)) && !strcmp(tag + strlen(YAML_TAG_PREFIX), name);
}

/* Sets n->type/n->quoted from the style and an optional standard tag. */
static sbio_code type_scalar(const sbio__config_src *ctx, const yaml_event_t *ev, sbio__config_node *n) {
  const char *tag = (const char *)ev->data.scalar.tag;
  if (!tag) {
    n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    n->type = n->quoted ? SBIO__SCALAR_STRING : sbio__config_resolve_plain(n->text);
    return SBIO_OK;
  }
  if (!strcmp(tag, "!") || is_std_tag(tag, "str")) {
    n->quoted = 1;
    n->type = SBIO__SCALAR_STRING;
    return SBIO_OK;
  }
  static const struct {
    const char *name;
    sbio__scalar_type type;
  } typed[] = {{"null", SBIO__SCALAR_NULL},
               {"bool", SBIO__SCALAR_BOOL},
               {"int", SBIO__SCALAR_INT},
               {"float", SBIO__SCALAR_FLOAT}};
  for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
    if (!is_std_tag(tag, typed[i].name)) continue;
    sbio__scalar_type have = sbio__config_resolve_plain(n->text);
    if (typed[i].type == SBIO__SCALAR_FLOAT && have == SBIO__SCALAR_INT) have = SBIO__SCALAR_FLOAT;
    /* The value is not echoed: it may sit under `settings` and be secret. */
    if (have != typed[i].type)
      return sbio__config_fail_at(ctx, ev->start_mark.line + 1, ev->start_mark.column + 1,
                                  "the value does not match its tag !!%s", typed[i].name);
    n->quoted = 0;
    n->type = have;
    return SBIO_OK;
  }
  return refuse_tag(ctx, ev, tag);
}

static sbio_code check_collection_tag(const sbio__config_src *ctx, const yaml_event_t *ev, const char *tag,
                                      const char *std_name) {
  if (!tag || !strcmp(tag, "!") || is_std_tag(tag, std_name)) return SBIO_OK;
  return refuse_tag(ctx, ev, tag);
}

typedef struct key_ref {
  const sbio__config_node *key;
  size_t index;
} key_ref;

static int key_ref_cmp(const void *a, const void *b) {
  const key_ref *x = a, *y = b;
  int c = strcmp(x->key->text, y->key->text);
  if (c) return c;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Reports the earliest repeated key of a mapping. Sorting keeps this
 * O(n log n): a hostile file may hold a hundred thousand keys. */
static sbio_code check_duplicates(const sbio__config_src *ctx, const sbio__config_node *map) {
  size_t n = map->n_items / 2;
  if (n < 2) return SBIO_OK;
  key_ref *refs = malloc(n * sizeof *refs);
  if (!refs) return sbio__config_fail_oom(ctx);
  for (size_t i = 0; i < n; i++) refs[i] = (key_ref){map->items[2 * i], i};
  qsort(refs, n, sizeof *refs, key_ref_cmp);
  const key_ref *dup = NULL, *first = NULL;
  for (size_t i = 0; i + 1 < n; i++) {
    int repeated = !strcmp(refs[i].key->text, refs[i + 1].key->text);
    int starts_group = i == 0 || strcmp(refs[i - 1].key->text, refs[i].key->text) != 0;
    if (repeated && starts_group && (!dup || refs[i + 1].index < dup->index)) {
      dup = &refs[i + 1];
      first = &refs[i];
    }
  }
  sbio_code rc = SBIO_OK;
  if (dup) {
    char q[SBIO__QUOTE_BUF];
    rc = sbio__config_fail_node(ctx, dup->key, "duplicate key %s (first at line %zu)",
                                sbio__config_quote(dup->key->text, q, sizeof q), first->key->line);
  }
  free(refs);
  return rc;
}

static sbio_code build_node(reader *rd, yaml_event_t *ev, int depth, sbio__config_node **out);

static sbio_code build_children(reader *rd, sbio__config_node *n, yaml_event_type_t end, int depth) {
  for (;;) {
    yaml_event_t ev;
    sbio_code rc = next_event(rd, &ev);
    if (rc) return rc;
    if (ev.type == end) {
      yaml_event_delete(&ev);
      return SBIO_OK;
    }
    sbio__config_node *child;
    rc = build_node(rd, &ev, depth + 1, &child);
    if (rc) return rc;
    if (n->kind == SBIO__NODE_MAPPING && n->n_items % 2 == 0 && child->kind != SBIO__NODE_SCALAR) {
      rc = sbio__config_fail_node(rd->src, child, "a key must be a plain value, not %s",
                                  sbio__config_describe_kind(child));
      sbio__config_node_free(child);
      return rc;
    }
    if (node_append(n, child)) {
      sbio__config_node_free(child);
      return sbio__config_fail_oom(rd->src);
    }
  }
}

/* Builds the node that starts with *ev; always consumes (deletes) *ev. */
static sbio_code build_node(reader *rd, yaml_event_t *ev, int depth, sbio__config_node **out) {
  *out = NULL;
  sbio_code rc = SBIO_OK;
  sbio__config_node *n = calloc(1, sizeof *n);
  if (!n) {
    yaml_event_delete(ev);
    return sbio__config_fail_oom(rd->src);
  }
  n->line = ev->start_mark.line + 1;
  n->column = ev->start_mark.column + 1;
  switch (ev->type) {
  case YAML_ALIAS_EVENT:
    rc = refuse_anchor(rd->src, ev);
    break;
  case YAML_SCALAR_EVENT:
    n->kind = SBIO__NODE_SCALAR;
    if (ev->data.scalar.anchor) {
      rc = refuse_anchor(rd->src, ev);
    } else if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
      rc = sbio__config_fail_node(rd->src, n, "a NUL character is not allowed in a value");
    } else if (!(n->text = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length))) {
      rc = sbio__config_fail_oom(rd->src);
    } else {
      rc = type_scalar(rd->src, ev, n);
    }
    break;
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    n->kind = is_map ? SBIO__NODE_MAPPING : SBIO__NODE_SEQUENCE;
    const char *anchor = (const char *)(is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
    const char *tag = (const char *)(is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    if (anchor) {
      rc = refuse_anchor(rd->src, ev);
    } else if (depth > CONFIG_MAX_DEPTH) {
      rc = sbio__config_fail_node(rd->src, n, "nesting deeper than %d levels is not allowed", CONFIG_MAX_DEPTH);
    } else if (!(rc = check_collection_tag(rd->src, ev, tag, is_map ? "map" : "seq"))) {
      yaml_event_delete(ev);
      rc = build_children(rd, n, is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT, depth);
      if (!rc && is_map) rc = check_duplicates(rd->src, n);
    }
    break;
  }
  default:
    rc = sbio__config_fail_node(rd->src, n, "unexpected YAML structure");
    break;
  }
  yaml_event_delete(ev); /* a no-op when already deleted: libyaml zeroes it */
  if (rc) {
    sbio__config_node_free(n);
    return rc;
  }
  *out = n;
  return SBIO_OK;
}

/* One document or none; *root stays NULL for an empty stream. */
static sbio_code parse_document(reader *rd, sbio__config_node **root) {
  *root = NULL;
  yaml_event_t ev;
  sbio_code rc = next_event(rd, &ev); /* stream start */
  if (rc) return rc;
  yaml_event_delete(&ev);
  if ((rc = next_event(rd, &ev))) return rc;
  yaml_event_type_t type = ev.type;
  yaml_event_delete(&ev);
  if (type == YAML_STREAM_END_EVENT) return SBIO_OK;
  if ((rc = next_event(rd, &ev))) return rc;
  if ((rc = build_node(rd, &ev, 1, root))) return rc;
  if (!(rc = next_event(rd, &ev))) { /* document end */
    yaml_event_delete(&ev);
    if (!(rc = next_event(rd, &ev))) {
      if (ev.type == YAML_DOCUMENT_START_EVENT)
        rc = sbio__config_fail_at(rd->src, ev.start_mark.line + 1, ev.start_mark.column + 1,
                                  "a configuration file holds a single YAML document; this starts a second one");
      yaml_event_delete(&ev);
    }
  }
  if (rc) {
    sbio__config_node_free(*root);
    *root = NULL;
  }
  return rc;
}

sbio_code sbio__config_parse_yaml(const sbio__config_src *src, sbio__config_node **root) {
  *root = NULL;
  if (src->len > SBIO__CONFIG_MAX_BYTES)
    return sbio__error_set(src->err, SBIO_E_CONFIG, NULL,
                           "%s: the file is %zu bytes; configuration files are limited to 1 MiB", src->name, src->len);
  reader rd = {.src = src};
  if (!yaml_parser_initialize(&rd.parser)) return sbio__config_fail_oom(src);
  yaml_parser_set_input_string(&rd.parser, (const unsigned char *)src->data, src->len);
  sbio_code rc = parse_document(&rd, root);
  yaml_parser_delete(&rd.parser);
  return rc;
}
