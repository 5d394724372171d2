/* Configuration files (ARCHITECTURE.md section 6; keys in docs/configuration.md).
 *
 * A file goes through three stages so that a bad file never half-applies:
 *   1. libyaml events -> a small node tree with 1-based positions, refusing
 *      anchors, aliases, unknown tags, duplicate keys, extra documents and
 *      nesting deeper than CONFIG_MAX_DEPTH;
 *   2. node tree -> a `layer` (every key checked: name, type, value);
 *   3. layer -> sbio__config, after every allocation that could fail is done.
 * Security settings are read strictly (true/false only, exact enums, no
 * unknown keys): a typo must be an error, never a silently ignored line. */
#include "config.h"

#include "error_internal.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#ifndef SBIO_SYSCONFDIR
#define SBIO_SYSCONFDIR "/etc"
#endif

#define CONFIG_MAX_BYTES ((size_t)1 << 20) /* far above any real config; bounds parser work */
#define CONFIG_MAX_DEPTH 64                /* bounds recursion on hostile input */
#define QUOTE_MAX 64                       /* bytes of a bad value echoed in a message */
#define QUOTE_BUF (QUOTE_MAX * 4 + 16)     /* room for escapes, "..." and quotes */
#define BACKEND_NAME_MAX 31
#define MAX_AGE_DAYS_MIN 1
#define MAX_AGE_DAYS_MAX 3650
#define SUGGEST_MAX_DISTANCE 2
#define SUGGEST_MAX_LEN 64

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

/* ================================================================ nodes */

typedef enum { NODE_SCALAR, NODE_SEQUENCE, NODE_MAPPING } node_kind;

/* What a scalar means under the YAML 1.2 core schema. */
typedef enum { SCALAR_NULL, SCALAR_BOOL, SCALAR_INT, SCALAR_FLOAT, SCALAR_STRING } scalar_type;

typedef struct node {
  node_kind kind;
  size_t line, column; /* 1-based */
  char *text;          /* scalar: NUL-terminated, never holds an embedded NUL */
  scalar_type type;    /* scalar: resolved type */
  int quoted;          /* scalar: quoted, block or !!str: always a string */
  struct node **items; /* sequence: elements; mapping: key, value, key, value, ... */
  size_t n_items, cap_items;
} node;

static void node_free(node *n) {
  if (!n) return;
  for (size_t i = 0; i < n->n_items; i++) node_free(n->items[i]);
  free(n->items);
  free(n->text);
  free(n);
}

static int node_append(node *parent, node *child) {
  if (parent->n_items == parent->cap_items) {
    size_t cap = parent->cap_items ? parent->cap_items * 2 : 8;
    node **items = realloc(parent->items, cap * sizeof *items);
    if (!items) return -1;
    parent->items = items;
    parent->cap_items = cap;
  }
  parent->items[parent->n_items++] = child;
  return 0;
}

/* ======================================================= scalar typing */

static int all_chars(const char *s, const char *set) {
  return *s && s[strspn(s, set)] == '\0';
}

#define DIGITS "0123456789"
#define HEX_DIGITS "0123456789abcdefABCDEF"

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
  if (s[0] == '0' && s[1] == 'o') return all_chars(s + 2, "01234567");
  if (s[0] == '0' && s[1] == 'x') return all_chars(s + 2, HEX_DIGITS);
  if (*s == '-' || *s == '+') s++;
  return all_chars(s, DIGITS);
}

static int is_core_special_float(const char *s) {
  const char *p = (*s == '-' || *s == '+') ? s + 1 : s;
  if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) return 1;
  return !strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN");
}

/* [-+]? ( \.[0-9]+ | [0-9]+ ( \.[0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static int is_core_float(const char *s) {
  if (is_core_special_float(s)) return 1;
  const char *p = (*s == '-' || *s == '+') ? s + 1 : s;
  size_t before = strspn(p, DIGITS), after = 0;
  p += before;
  if (*p == '.') {
    after = strspn(p + 1, DIGITS);
    p += 1 + after;
  }
  if (before + after == 0) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '-' || *p == '+') p++;
    size_t exp = strspn(p, DIGITS);
    if (!exp) return 0;
    p += exp;
  }
  return *p == '\0';
}

static scalar_type resolve_plain(const char *s) {
  if (is_core_null(s)) return SCALAR_NULL;
  if (is_core_bool(s)) return SCALAR_BOOL;
  if (is_core_int(s)) return SCALAR_INT;
  if (is_core_float(s)) return SCALAR_FLOAT;
  return SCALAR_STRING;
}

/* ======================================================= parse context */

typedef struct parse_ctx {
  const char *name; /* file name for messages */
  const char *data;
  size_t len;
  sbio_error *err;
  yaml_parser_t parser;
} parse_ctx;

static sbio_code fail_at(const parse_ctx *ctx, size_t line, size_t column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static sbio_code fail_at(const parse_ctx *ctx, size_t line, size_t column, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return sbio__error_set(ctx->err, SBIO_E_CONFIG,
                         "fix the file at that line and column; docs/configuration.md lists every key",
                         "%s:%zu:%zu: %s", ctx->name, line, column, msg);
}

#define fail_node(ctx, n, ...) fail_at((ctx), (n)->line, (n)->column, __VA_ARGS__)

static sbio_code fail_oom(const parse_ctx *ctx) {
  return sbio__error_set(ctx->err, SBIO_E_INTERNAL, NULL, "%s: out of memory while reading the configuration",
                         ctx->name);
}

/* Writes text as a double-quoted, escaped string cut to QUOTE_MAX bytes (on
 * a UTF-8 boundary), so a message never carries control characters or a
 * huge value. */
static const char *quote(const char *text, char *buf, size_t size) {
  size_t o = 0;
  buf[o++] = '"';
  size_t i = 0;
  for (; text[i]; i++) {
    unsigned char c = (unsigned char)text[i];
    if (i >= QUOTE_MAX && (c & 0xC0) != 0x80) break;
    if (o + 8 >= size) break;
    if (c == '"' || c == '\\') {
      buf[o++] = '\\';
      buf[o++] = (char)c;
    } else if (c < 0x20 || c == 0x7f) {
      o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
    } else {
      buf[o++] = (char)c;
    }
  }
  if (text[i] && o + 5 < size) {
    memcpy(buf + o, "...", 3);
    o += 3;
  }
  buf[o++] = '"';
  buf[o] = '\0';
  return buf;
}

/* Names what a node is for "must be X, not Y" messages, quoting a scalar's
 * text (only ever called for keys whose values are not secrets). */
static const char *describe(const node *n, char *buf, size_t size) {
  if (n->kind == NODE_MAPPING) return "a mapping";
  if (n->kind == NODE_SEQUENCE) return "a list";
  if (!n->quoted && n->type == SCALAR_NULL) return "empty (null)";
  if (n->quoted && resolve_plain(n->text) != SCALAR_STRING) {
    char q[QUOTE_BUF];
    snprintf(buf, size, "the quoted string %s", quote(n->text, q, sizeof q));
    return buf;
  }
  return quote(n->text, buf, size);
}

/* Same, without the value: for keys whose values may be secret. */
static const char *describe_kind(const node *n) {
  if (n->kind == NODE_MAPPING) return "a mapping";
  if (n->kind == NODE_SEQUENCE) return "a list";
  switch (n->type) {
  case SCALAR_NULL:
    return "empty (null)";
  case SCALAR_BOOL:
    return "a boolean";
  case SCALAR_INT:
  case SCALAR_FLOAT:
    return "a number";
  case SCALAR_STRING:
    break;
  }
  return "a string";
}

/* ======================================================= YAML -> nodes */

/* libyaml's reader reports a byte offset, not a mark. */
static void offset_position(const parse_ctx *ctx, size_t offset, size_t *line, size_t *column) {
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

static sbio_code fail_syntax(const parse_ctx *ctx) {
  const yaml_parser_t *p = &ctx->parser;
  if (p->error == YAML_MEMORY_ERROR) return fail_oom(ctx);
  const char *problem = p->problem ? p->problem : "invalid YAML";
  size_t line, column;
  if (p->error == YAML_READER_ERROR) {
    offset_position(ctx, p->problem_offset, &line, &column);
    if (p->problem_value > 0xff) /* a decoded character, not a raw byte */
      return fail_at(ctx, line, column, "%s (character U+%04X)", problem, (unsigned)p->problem_value);
    if (p->problem_value >= 0)
      return fail_at(ctx, line, column, "%s (byte 0x%02x)", problem, (unsigned)p->problem_value);
    return fail_at(ctx, line, column, "%s", problem);
  }
  line = p->problem_mark.line + 1;
  column = p->problem_mark.column + 1;
  if (p->context)
    return fail_at(ctx, line, column, "%s (%s started at %zu:%zu)", problem, p->context, p->context_mark.line + 1,
                   p->context_mark.column + 1);
  return fail_at(ctx, line, column, "%s", problem);
}

static sbio_code next_event(parse_ctx *ctx, yaml_event_t *ev) {
  if (yaml_parser_parse(&ctx->parser, ev)) return SBIO_OK;
  return fail_syntax(ctx);
}

static sbio_code refuse_anchor(const parse_ctx *ctx, const yaml_event_t *ev) {
  return fail_at(ctx, ev->start_mark.line + 1, ev->start_mark.column + 1,
                 "anchors and aliases (& and *) are not allowed in configuration files; write each value out");
}

static sbio_code refuse_tag(const parse_ctx *ctx, const yaml_event_t *ev, const char *tag) {
  char q[QUOTE_BUF];
  return fail_at(ctx, ev->start_mark.line + 1, ev->start_mark.column + 1,
                 "tag %s is not allowed here; only the standard tags !!str, !!int, !!float, !!bool, !!null, "
                 "!!seq and !!map are",
                 quote(tag, q, sizeof q));
}

static int is_std_tag(const char *tag, const char *name) {
  return !strncmp(tag, YAML_TAG_PREFIX, strlen(YAML_TAG_PREFIX)) && !strcmp(tag + strlen(YAML_TAG_PREFIX), name);
}

/* Sets n->type/n->quoted from the style and an optional standard tag. */
static sbio_code type_scalar(const parse_ctx *ctx, const yaml_event_t *ev, node *n) {
  const char *tag = (const char *)ev->data.scalar.tag;
  if (!tag) {
    n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    n->type = n->quoted ? SCALAR_STRING : resolve_plain(n->text);
    return SBIO_OK;
  }
  if (!strcmp(tag, "!") || is_std_tag(tag, "str")) {
    n->quoted = 1;
    n->type = SCALAR_STRING;
    return SBIO_OK;
  }
  static const struct {
    const char *name;
    scalar_type type;
  } typed[] = {{"null", SCALAR_NULL}, {"bool", SCALAR_BOOL}, {"int", SCALAR_INT}, {"float", SCALAR_FLOAT}};
  for (size_t i = 0; i < sizeof typed / sizeof *typed; i++) {
    if (!is_std_tag(tag, typed[i].name)) continue;
    scalar_type have = resolve_plain(n->text);
    if (typed[i].type == SCALAR_FLOAT && have == SCALAR_INT) have = SCALAR_FLOAT;
    /* The value is not echoed: it may sit under `settings` and be secret. */
    if (have != typed[i].type)
      return fail_at(ctx, ev->start_mark.line + 1, ev->start_mark.column + 1, "the value does not match its tag !!%s",
                     typed[i].name);
    n->quoted = 0;
    n->type = have;
    return SBIO_OK;
  }
  return refuse_tag(ctx, ev, tag);
}

static sbio_code check_collection_tag(const parse_ctx *ctx, const yaml_event_t *ev, const char *tag,
                                      const char *std_name) {
  if (!tag || !strcmp(tag, "!") || is_std_tag(tag, std_name)) return SBIO_OK;
  return refuse_tag(ctx, ev, tag);
}

typedef struct key_ref {
  const node *key;
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
static sbio_code check_duplicates(const parse_ctx *ctx, const node *map) {
  size_t n = map->n_items / 2;
  if (n < 2) return SBIO_OK;
  key_ref *refs = malloc(n * sizeof *refs);
  if (!refs) return fail_oom(ctx);
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
    char q[QUOTE_BUF];
    rc = fail_node(ctx, dup->key, "duplicate key %s (first at line %zu)", quote(dup->key->text, q, sizeof q),
                   first->key->line);
  }
  free(refs);
  return rc;
}

static sbio_code build_node(parse_ctx *ctx, yaml_event_t *ev, int depth, node **out);

static sbio_code build_children(parse_ctx *ctx, node *n, yaml_event_type_t end, int depth) {
  for (;;) {
    yaml_event_t ev;
    sbio_code rc = next_event(ctx, &ev);
    if (rc) return rc;
    if (ev.type == end) {
      yaml_event_delete(&ev);
      return SBIO_OK;
    }
    node *child;
    rc = build_node(ctx, &ev, depth + 1, &child);
    if (rc) return rc;
    if (n->kind == NODE_MAPPING && n->n_items % 2 == 0 && child->kind != NODE_SCALAR) {
      rc = fail_node(ctx, child, "a key must be a plain value, not %s", describe_kind(child));
      node_free(child);
      return rc;
    }
    if (node_append(n, child)) {
      node_free(child);
      return fail_oom(ctx);
    }
  }
}

/* Builds the node that starts with *ev; always consumes (deletes) *ev. */
static sbio_code build_node(parse_ctx *ctx, yaml_event_t *ev, int depth, node **out) {
  *out = NULL;
  sbio_code rc = SBIO_OK;
  node *n = calloc(1, sizeof *n);
  if (!n) {
    yaml_event_delete(ev);
    return fail_oom(ctx);
  }
  n->line = ev->start_mark.line + 1;
  n->column = ev->start_mark.column + 1;
  switch (ev->type) {
  case YAML_ALIAS_EVENT:
    rc = refuse_anchor(ctx, ev);
    break;
  case YAML_SCALAR_EVENT:
    n->kind = NODE_SCALAR;
    if (ev->data.scalar.anchor) {
      rc = refuse_anchor(ctx, ev);
    } else if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
      rc = fail_node(ctx, n, "a NUL character is not allowed in a value");
    } else if (!(n->text = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length))) {
      rc = fail_oom(ctx);
    } else {
      rc = type_scalar(ctx, ev, n);
    }
    break;
  case YAML_SEQUENCE_START_EVENT:
  case YAML_MAPPING_START_EVENT: {
    int is_map = ev->type == YAML_MAPPING_START_EVENT;
    n->kind = is_map ? NODE_MAPPING : NODE_SEQUENCE;
    const char *anchor = (const char *)(is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
    const char *tag = (const char *)(is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
    if (anchor) {
      rc = refuse_anchor(ctx, ev);
    } else if (depth > CONFIG_MAX_DEPTH) {
      rc = fail_node(ctx, n, "nesting deeper than %d levels is not allowed", CONFIG_MAX_DEPTH);
    } else if (!(rc = check_collection_tag(ctx, ev, tag, is_map ? "map" : "seq"))) {
      yaml_event_delete(ev);
      rc = build_children(ctx, n, is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT, depth);
      if (!rc && is_map) rc = check_duplicates(ctx, n);
    }
    break;
  }
  default:
    rc = fail_node(ctx, n, "unexpected YAML structure");
    break;
  }
  yaml_event_delete(ev); /* a no-op when already deleted: libyaml zeroes it */
  if (rc) {
    node_free(n);
    return rc;
  }
  *out = n;
  return SBIO_OK;
}

/* One document or none; *root stays NULL for an empty stream. */
static sbio_code parse_document(parse_ctx *ctx, node **root) {
  *root = NULL;
  yaml_event_t ev;
  sbio_code rc = next_event(ctx, &ev); /* stream start */
  if (rc) return rc;
  yaml_event_delete(&ev);
  if ((rc = next_event(ctx, &ev))) return rc;
  yaml_event_type_t type = ev.type;
  yaml_event_delete(&ev);
  if (type == YAML_STREAM_END_EVENT) return SBIO_OK;
  if ((rc = next_event(ctx, &ev))) return rc;
  if ((rc = build_node(ctx, &ev, 1, root))) return rc;
  if (!(rc = next_event(ctx, &ev))) { /* document end */
    yaml_event_delete(&ev);
    if (!(rc = next_event(ctx, &ev))) {
      if (ev.type == YAML_DOCUMENT_START_EVENT)
        rc = fail_at(ctx, ev.start_mark.line + 1, ev.start_mark.column + 1,
                     "a configuration file holds a single YAML document; this starts a second one");
      yaml_event_delete(&ev);
    }
  }
  if (rc) {
    node_free(*root);
    *root = NULL;
  }
  return rc;
}

/* ============================================================== layer */

/* One file's settings: sbio__config's fields plus "was it set" flags for
 * those the public struct keeps without one. */
typedef struct layer {
  sbio__config v;
  int max_age_days_set, stale_set, backends_default_set, audit_on_failure_set, audit_stderr_set;
} layer;

static void backend_config_free(sbio__backend_config *b) {
  free(b->name);
  free(b->sha256);
  free(b->settings_json);
  free(b->where);
  memset(b, 0, sizeof *b);
}

/* Optimal string alignment distance: a swap of two letters counts once. */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[la][lb];
}

/* The known key the user most likely meant: one that starts with the key
 * (a cut-short "on_fail" is as likely a slip as a typo), else the closest
 * within SUGGEST_MAX_DISTANCE edits. NULL when nothing is close. */
static const char *suggest(const char *key, const char *const *known) {
  size_t key_len = strlen(key);
  if (key_len > SUGGEST_MAX_LEN) return NULL;
  const char *best = NULL;
  size_t best_distance = SUGGEST_MAX_DISTANCE + 1;
  for (size_t i = 0; known[i]; i++) {
    if (key_len >= 3 && !strncmp(key, known[i], key_len)) return known[i];
    size_t distance = edit_distance(key, known[i]);
    if (distance < best_distance && distance < strlen(known[i])) {
      best = known[i];
      best_distance = distance;
    }
  }
  return best;
}

static sbio_code unknown_key(const parse_ctx *ctx, const node *key, const char *where, const char *const *known) {
  char q[QUOTE_BUF];
  const char *guess = suggest(key->text, known);
  if (guess)
    return fail_node(ctx, key, "unknown key %s in %s (did you mean \"%s\"?)", quote(key->text, q, sizeof q), where,
                     guess);
  char list[256] = "";
  size_t o = 0;
  for (size_t i = 0; known[i] && o < sizeof list; i++)
    o += (size_t)snprintf(list + o, sizeof list - o, "%s%s", i ? ", " : "", known[i]);
  return fail_node(ctx, key, "unknown key %s in %s (known keys: %s)", quote(key->text, q, sizeof q), where, list);
}

/* A section that must be a mapping; empty (all its lines commented out)
 * counts as an empty mapping. Sets *map to NULL for that case. */
static sbio_code expect_section(const parse_ctx *ctx, const char *key, const node *value, const node **map) {
  *map = NULL;
  if (value->kind == NODE_MAPPING) {
    *map = value;
    return SBIO_OK;
  }
  if (value->kind == NODE_SCALAR && !value->quoted && value->type == SCALAR_NULL) return SBIO_OK;
  /* Only the kind: a value pasted in the wrong place may be a credential. */
  return fail_node(ctx, value, "\"%s\" must be a mapping of keys to values, not %s", key, describe_kind(value));
}

static sbio_code expect_bool(const parse_ctx *ctx, const char *key, const node *value, int *out) {
  if (value->kind == NODE_SCALAR && !value->quoted && value->type == SCALAR_BOOL) {
    *out = value->text[0] == 't' || value->text[0] == 'T';
    return SBIO_OK;
  }
  char d[QUOTE_BUF];
  return fail_node(ctx, value, "\"%s\" must be a boolean (true or false), not %s", key, describe(value, d, sizeof d));
}

/* Matches the scalar case-insensitively against `choices`; -1 otherwise. */
static int match_choice(const node *value, const char *const *choices) {
  if (value->kind != NODE_SCALAR) return -1;
  for (int i = 0; choices[i]; i++)
    if (!strcasecmp(value->text, choices[i])) return i;
  return -1;
}

static sbio_code expect_choice(const parse_ctx *ctx, const char *key, const node *value, const char *const *choices,
                               const char *spelled, int *out) {
  *out = match_choice(value, choices);
  if (*out >= 0) return SBIO_OK;
  char d[QUOTE_BUF];
  return fail_node(ctx, value, "\"%s\" must be one of %s, not %s", key, spelled, describe(value, d, sizeof d));
}

static const char *const tier_words[] = {"container", "gvisor", "microvm", "unknown", NULL};
static const sbio_tier tier_values[] = {SBIO_TIER_CONTAINER, SBIO_TIER_GVISOR, SBIO_TIER_MICROVM, SBIO_TIER_UNKNOWN};

static sbio_code expect_absolute_path(const parse_ctx *ctx, const char *what, const node *value, char **out) {
  if (value->kind == NODE_SCALAR && value->text[0] == '/') {
    if (!(*out = strdup(value->text))) return fail_oom(ctx);
    return SBIO_OK;
  }
  char d[QUOTE_BUF];
  return fail_node(ctx, value, "%s must be an absolute path (starting with /), not %s", what,
                   describe(value, d, sizeof d));
}

static int valid_backend_name(const char *s) {
  size_t n = strlen(s);
  if (n < 1 || n > BACKEND_NAME_MAX || !(s[0] >= 'a' && s[0] <= 'z')) return 0;
  return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

/* A backend name, or SCHEME://REST whose scheme is a backend name; the
 * URI itself is checked where it is used (uri.c). */
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

static sbio_code read_backend_path(const parse_ctx *ctx, const node *value, layer *l) {
  if (value->kind != NODE_SEQUENCE) {
    char d[QUOTE_BUF];
    return fail_node(ctx, value, "\"backend_path\" must be a list of absolute directories, not %s",
                     describe(value, d, sizeof d));
  }
  if (value->n_items) {
    l->v.backend_path = calloc(value->n_items, sizeof *l->v.backend_path);
    if (!l->v.backend_path) return fail_oom(ctx);
  }
  l->v.backend_path_set = 1;
  for (size_t i = 0; i < value->n_items; i++) {
    sbio_code rc = expect_absolute_path(ctx, "each \"backend_path\" entry", value->items[i], &l->v.backend_path[i]);
    if (rc) return rc;
    l->v.n_backend_path++;
  }
  return SBIO_OK;
}

static sbio_code read_default_backend(const parse_ctx *ctx, const node *value, layer *l) {
  /* A URI may carry a query with a credential in it: never echo the value. */
  int ok = value->kind == NODE_SCALAR && (value->quoted || value->type != SCALAR_NULL) &&
           (value->quoted || value->type != SCALAR_BOOL) && valid_default_backend(value->text);
  if (!ok)
    return fail_node(ctx, value,
                     "\"default_backend\" must be a backend name (like fake) or a URI (like docker://python:3.12); "
                     "got %s that is neither",
                     describe_kind(value));
  if (!(l->v.default_backend = strdup(value->text))) return fail_oom(ctx);
  return SBIO_OK;
}

static sbio_code read_require_isolation(const parse_ctx *ctx, const node *value, layer *l) {
  int i;
  sbio_code rc = expect_choice(ctx, "require_isolation", value, tier_words, "container, gvisor or microvm", &i);
  if (rc) return rc;
  if (tier_values[i] == SBIO_TIER_UNKNOWN)
    return fail_node(ctx, value,
                     "requiring UNKNOWN is meaningless: UNKNOWN satisfies no requirement (use container, gvisor or "
                     "microvm, or leave require_isolation out)");
  l->v.require_isolation_set = 1;
  l->v.require_isolation = tier_values[i];
  return SBIO_OK;
}

static sbio_code read_metadata(const parse_ctx *ctx, const node *value, layer *l) {
  static const char *const keys[] = {"max_age_days", "stale", NULL};
  static const char *const stale_words[] = {"warn", "unknown", NULL};
  const node *map;
  sbio_code rc = expect_section(ctx, "metadata", value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "max_age_days")) {
      long days = 0;
      if (v->kind == NODE_SCALAR && !v->quoted && v->type == SCALAR_INT && all_chars(v->text, "+" DIGITS)) {
        errno = 0;
        days = strtol(v->text, NULL, 10);
        if (errno) days = 0;
      }
      if (days < MAX_AGE_DAYS_MIN || days > MAX_AGE_DAYS_MAX) {
        char d[QUOTE_BUF];
        rc = fail_node(ctx, v, "\"max_age_days\" must be a whole number of days from %d to %d, not %s",
                       MAX_AGE_DAYS_MIN, MAX_AGE_DAYS_MAX, describe(v, d, sizeof d));
      } else {
        l->v.max_age_days = (int)days;
        l->max_age_days_set = 1;
      }
    } else if (!strcmp(k->text, "stale")) {
      int choice;
      rc = expect_choice(ctx, "stale", v, stale_words, "warn or unknown", &choice);
      if (!rc) {
        l->v.stale = choice ? SBIO__STALE_UNKNOWN : SBIO__STALE_WARN;
        l->stale_set = 1;
      }
    } else {
      rc = unknown_key(ctx, k, "metadata", keys);
    }
  }
  return rc;
}

static sbio_code read_backends_default(const parse_ctx *ctx, const node *value, layer *l) {
  static const char *const words[] = {"enabled", "disabled", NULL};
  int choice;
  sbio_code rc = expect_choice(ctx, "backends_default", value, words, "enabled or disabled", &choice);
  if (rc) return rc;
  l->v.backends_default_enabled = choice == 0;
  l->backends_default_set = 1;
  return SBIO_OK;
}

static sbio_code read_sha256(const parse_ctx *ctx, const node *value, sbio__backend_config *b) {
  if (value->kind == NODE_SCALAR && strlen(value->text) == 64 && all_chars(value->text, HEX_DIGITS)) {
    if (!(b->sha256 = strdup(value->text))) return fail_oom(ctx);
    for (char *p = b->sha256; *p; p++)
      if (*p >= 'A' && *p <= 'F') *p = (char)(*p - 'A' + 'a');
    return SBIO_OK;
  }
  char d[QUOTE_BUF];
  if (value->kind == NODE_SCALAR && !(value->type == SCALAR_NULL && !value->quoted))
    return fail_node(ctx, value, "\"sha256\" must be 64 hexadecimal digits, not %s (%zu characters)",
                     describe(value, d, sizeof d), strlen(value->text));
  return fail_node(ctx, value, "\"sha256\" must be 64 hexadecimal digits, not %s", describe(value, d, sizeof d));
}

/* ----------------------------------------------------- settings -> JSON */

/* JSON spelling of a core-schema number, keeping every digit of the
 * original (a double would round large integers); NULL when JSON has no
 * spelling for it (.inf, .nan, hex/octal beyond 64 bits): it then stays a
 * string. */
static char *json_number(const char *text, scalar_type type) {
  if (type == SCALAR_INT && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    errno = 0;
    unsigned long long v = strtoull(text + 2, NULL, text[1] == 'x' ? 16 : 8);
    if (errno) return NULL;
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", v);
    return strdup(buf);
  }
  if (type == SCALAR_FLOAT && is_core_special_float(text)) return NULL;
  size_t len = strlen(text);
  char *out = malloc(len + 3); /* worst case ".5" -> "0.5", "1." -> "1.0" */
  if (!out) return NULL;
  size_t o = 0;
  const char *p = text;
  if (*p == '-') out[o++] = *p;
  if (*p == '-' || *p == '+') p++;
  size_t digits = strspn(p, DIGITS);
  while (digits > 1 && *p == '0') p++, digits--; /* JSON forbids leading zeros */
  if (!digits) out[o++] = '0';
  memcpy(out + o, p, digits);
  o += digits;
  p += digits;
  if (*p == '.') {
    size_t frac = strspn(p + 1, DIGITS);
    out[o++] = '.';
    if (!frac) out[o++] = '0';
    memcpy(out + o, p + 1, frac);
    o += frac;
    p += 1 + frac;
  }
  strcpy(out + o, p); /* the exponent is already valid JSON */
  return out;
}

static cJSON *settings_value(const node *n) {
  if (n->kind == NODE_SEQUENCE) {
    cJSON *array = cJSON_CreateArray();
    for (size_t i = 0; array && i < n->n_items; i++) {
      cJSON *item = settings_value(n->items[i]);
      if (!item || !cJSON_AddItemToArray(array, item)) {
        cJSON_Delete(item);
        cJSON_Delete(array);
        return NULL;
      }
    }
    return array;
  }
  if (n->kind == NODE_MAPPING) {
    cJSON *object = cJSON_CreateObject();
    for (size_t i = 0; object && i < n->n_items; i += 2) {
      cJSON *item = settings_value(n->items[i + 1]);
      if (!item || !cJSON_AddItemToObject(object, n->items[i]->text, item)) {
        cJSON_Delete(item);
        cJSON_Delete(object);
        return NULL;
      }
    }
    return object;
  }
  if (!n->quoted) {
    switch (n->type) {
    case SCALAR_NULL:
      return cJSON_CreateNull();
    case SCALAR_BOOL:
      return cJSON_CreateBool(n->text[0] == 't' || n->text[0] == 'T');
    case SCALAR_INT:
    case SCALAR_FLOAT: {
      char *number = json_number(n->text, n->type);
      if (number) {
        cJSON *raw = cJSON_CreateRaw(number);
        free(number);
        return raw;
      }
      break;
    }
    case SCALAR_STRING:
      break;
    }
  }
  return cJSON_CreateString(n->text);
}

/* Only the key path ever appears in messages about settings: their values
 * may be secrets. */
static sbio_code read_settings(const parse_ctx *ctx, const char *backend, const node *value, sbio__backend_config *b) {
  if (value->kind != NODE_MAPPING)
    return fail_node(ctx, value, "\"settings\" of backend \"%s\" must be a mapping of keys to values, not %s", backend,
                     describe_kind(value));
  cJSON *json = settings_value(value);
  char *text = json ? cJSON_PrintUnformatted(json) : NULL;
  cJSON_Delete(json);
  if (!text) return fail_oom(ctx);
  b->settings_json = strdup(text); /* ours to free() whatever cJSON's allocator is */
  cJSON_free(text);
  return b->settings_json ? SBIO_OK : fail_oom(ctx);
}

/* ----------------------------------------------------------- backends */

static sbio_code read_backend(const parse_ctx *ctx, const node *key, const node *value, sbio__backend_config *b) {
  static const char *const keys[] = {"enabled", "expect_tier", "sha256", "settings", NULL};
  char q[QUOTE_BUF];
  if (!valid_backend_name(key->text))
    return fail_node(ctx, key,
                     "invalid backend name %s: a name is 1 to %d lower-case letters, digits and underscores, "
                     "starting with a letter",
                     quote(key->text, q, sizeof q), BACKEND_NAME_MAX);
  if (!(b->name = strdup(key->text))) return fail_oom(ctx);
  size_t where_len = strlen(ctx->name) + 48;
  if (!(b->where = malloc(where_len))) return fail_oom(ctx);
  snprintf(b->where, where_len, "%s:%zu:%zu", ctx->name, key->line, key->column);

  char section[BACKEND_NAME_MAX + 16];
  snprintf(section, sizeof section, "backends.%s", key->text);
  const node *map;
  sbio_code rc = expect_section(ctx, section, value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "enabled")) {
      rc = expect_bool(ctx, "enabled", v, &b->enabled);
      b->enabled_set = !rc;
    } else if (!strcmp(k->text, "expect_tier")) {
      int choice;
      rc = expect_choice(ctx, "expect_tier", v, tier_words, "container, gvisor, microvm or unknown", &choice);
      if (!rc) {
        b->expect_tier = tier_values[choice];
        b->expect_tier_set = 1;
      }
    } else if (!strcmp(k->text, "sha256")) {
      rc = read_sha256(ctx, v, b);
    } else if (!strcmp(k->text, "settings")) {
      rc = read_settings(ctx, key->text, v, b);
    } else {
      rc = unknown_key(ctx, k, section, keys);
    }
  }
  return rc;
}

static sbio_code read_backends(const parse_ctx *ctx, const node *value, layer *l) {
  const node *map;
  sbio_code rc = expect_section(ctx, "backends", value, &map);
  if (rc || !map || !map->n_items) return rc;
  /* Names are unique here: check_duplicates ran on this mapping. */
  l->v.backends = calloc(map->n_items / 2, sizeof *l->v.backends);
  if (!l->v.backends) return fail_oom(ctx);
  for (size_t i = 0; !rc && i < map->n_items; i += 2) {
    rc = read_backend(ctx, map->items[i], map->items[i + 1], &l->v.backends[l->v.n_backends]);
    l->v.n_backends++; /* counted even on error so the partial entry is freed */
  }
  return rc;
}

static sbio_code read_audit(const parse_ctx *ctx, const node *value, layer *l) {
  static const char *const keys[] = {"path", "on_failure", "stderr", NULL};
  static const char *const on_failure_words[] = {"warn", "fail", NULL};
  const node *map;
  sbio_code rc = expect_section(ctx, "audit", value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "path")) {
      rc = expect_absolute_path(ctx, "\"path\" (the audit file)", v, &l->v.audit_path);
    } else if (!strcmp(k->text, "on_failure")) {
      int choice;
      rc = expect_choice(ctx, "on_failure", v, on_failure_words, "warn or fail", &choice);
      if (!rc) {
        l->v.audit_on_failure = choice ? SBIO__ON_FAILURE_FAIL : SBIO__ON_FAILURE_WARN;
        l->audit_on_failure_set = 1;
      }
    } else if (!strcmp(k->text, "stderr")) {
      rc = expect_bool(ctx, "stderr", v, &l->v.audit_stderr);
      l->audit_stderr_set = !rc;
    } else {
      rc = unknown_key(ctx, k, "audit", keys);
    }
  }
  return rc;
}

/* ------------------------------------------------------------ tracing */

/* http(s)://HOST[...]: no user-info (a credential in a file that anyone
 * with read access sees), no spaces or control characters. */
static int valid_endpoint(const char *s) {
  const char *rest = !strncmp(s, "http://", 7) ? s + 7 : !strncmp(s, "https://", 8) ? s + 8 : NULL;
  if (!rest || !*rest || *rest == '/' || *rest == ':') return 0;
  size_t authority = strcspn(rest, "/?#");
  if (memchr(rest, '@', authority)) return 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p <= 0x20 || *p == 0x7f) return 0;
  return 1;
}

/* An HTTP field name: RFC 9110 token characters. */
static int valid_header_name(const char *s) {
  return *s && s[strspn(s, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")] == '\0';
}

/* A field value without CR, LF or other controls (tab allowed): nothing
 * that could start a second header or end the request head. */
static int valid_header_value(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p < 0x20 && *p != '\t') || *p == 0x7f) return 0;
  return 1;
}

/* Header values are typically credentials: messages name the header and
 * the kind of the value, never the value. */
static sbio_code read_tracing_headers(const parse_ctx *ctx, const node *value, layer *l) {
  const node *map;
  sbio_code rc = expect_section(ctx, "headers", value, &map);
  if (rc) return rc;
  l->v.trace_headers_set = 1;
  size_t n = map ? map->n_items / 2 : 0;
  if (!n) return SBIO_OK;
  l->v.trace_header_names = calloc(n, sizeof *l->v.trace_header_names);
  l->v.trace_header_values = calloc(n, sizeof *l->v.trace_header_values);
  if (!l->v.trace_header_names || !l->v.trace_header_values) return fail_oom(ctx);
  l->v.n_trace_headers = n; /* counted now so a partial list is freed on error */
  for (size_t i = 0; i < n; i++) {
    const node *k = map->items[2 * i], *v = map->items[2 * i + 1];
    char q[QUOTE_BUF];
    if (!valid_header_name(k->text))
      return fail_node(ctx, k, "invalid HTTP header name %s in tracing.headers", quote(k->text, q, sizeof q));
    if (v->kind != NODE_SCALAR || (!v->quoted && v->type == SCALAR_NULL))
      return fail_node(ctx, v, "header \"%s\" in tracing.headers must be a string, not %s", k->text, describe_kind(v));
    if (!valid_header_value(v->text))
      return fail_node(ctx, v, "header \"%s\" in tracing.headers holds a line break or control character", k->text);
    if (!(l->v.trace_header_names[i] = strdup(k->text)) || !(l->v.trace_header_values[i] = strdup(v->text)))
      return fail_oom(ctx);
  }
  return SBIO_OK;
}

static sbio_code read_tracing(const parse_ctx *ctx, const node *value, layer *l) {
  static const char *const keys[] = {"enabled", "endpoint", "headers", "service_name", NULL};
  const node *map;
  sbio_code rc = expect_section(ctx, "tracing", value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "enabled")) {
      rc = expect_bool(ctx, "enabled", v, &l->v.trace_enabled);
      l->v.trace_enabled_set = !rc;
    } else if (!strcmp(k->text, "endpoint")) {
      /* Only the kind in the message: a URL may carry a token. */
      if (v->kind != NODE_SCALAR || !valid_endpoint(v->text))
        rc = fail_node(ctx, v,
                       "\"endpoint\" must be an http:// or https:// URL with a host and no user name or password "
                       "(like http://localhost:4318); got %s that is not",
                       describe_kind(v));
      else if (!(l->v.trace_endpoint = strdup(v->text)))
        rc = fail_oom(ctx);
    } else if (!strcmp(k->text, "headers")) {
      rc = read_tracing_headers(ctx, v, l);
    } else if (!strcmp(k->text, "service_name")) {
      char d[QUOTE_BUF];
      if (v->kind != NODE_SCALAR || (!v->quoted && v->type != SCALAR_STRING) || !v->text[0] ||
          !valid_header_value(v->text))
        rc = fail_node(ctx, v, "\"service_name\" must be a non-empty string, not %s", describe(v, d, sizeof d));
      else if (!(l->v.trace_service_name = strdup(v->text)))
        rc = fail_oom(ctx);
    } else {
      rc = unknown_key(ctx, k, "tracing", keys);
    }
  }
  return rc;
}

static sbio_code read_root(const parse_ctx *ctx, const node *root, layer *l) {
  static const char *const keys[] = {"backend_path", "default_backend",  "require_isolation",
                                     "metadata",     "backends_default", "backends",
                                     "audit",        "tracing",          NULL};
  if (!root || (root->kind == NODE_SCALAR && !root->quoted && root->type == SCALAR_NULL)) return SBIO_OK;
  if (root->kind != NODE_MAPPING)
    return fail_node(ctx, root, "the top level must be a mapping of keys to values, not %s", describe_kind(root));
  sbio_code rc = SBIO_OK;
  for (size_t i = 0; !rc && i < root->n_items; i += 2) {
    const node *k = root->items[i], *v = root->items[i + 1];
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
      rc = read_tracing(ctx, v, l);
    else
      rc = unknown_key(ctx, k, "the top-level mapping", keys);
  }
  return rc;
}

/* ============================================================== merge */

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
static sbio_code match_backends(const parse_ctx *ctx, const sbio__config *cfg, const layer *l, size_t **out,
                                size_t *added) {
  *out = NULL;
  *added = 0;
  if (!l->v.n_backends) return SBIO_OK;
  size_t *match = malloc(l->v.n_backends * sizeof *match);
  const sbio__backend_config **sorted = cfg->n_backends ? malloc(cfg->n_backends * sizeof *sorted) : NULL;
  if (!match || (cfg->n_backends && !sorted)) {
    free(match);
    free(sorted);
    return fail_oom(ctx);
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
static sbio_code apply_layer(const parse_ctx *ctx, sbio__config *cfg, layer *l) {
  char *file = strdup(ctx->name);
  if (!file) return fail_oom(ctx);
  char **files = realloc(cfg->files_read, (cfg->n_files_read + 1) * sizeof *files);
  if (!files) {
    free(file);
    return fail_oom(ctx);
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
      return fail_oom(ctx);
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
  if (l->v.require_isolation_set) {
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

/* ========================================================= public API */

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
  if (len > CONFIG_MAX_BYTES)
    return sbio__error_set(err, SBIO_E_CONFIG, NULL,
                           "%s: the file is %zu bytes; configuration files are limited to 1 MiB", name, len);
  parse_ctx ctx = {.name = name, .data = data ? data : "", .len = len, .err = err};
  if (!yaml_parser_initialize(&ctx.parser)) return fail_oom(&ctx);
  yaml_parser_set_input_string(&ctx.parser, (const unsigned char *)ctx.data, len);
  node *root = NULL;
  sbio_code rc = parse_document(&ctx, &root);
  yaml_parser_delete(&ctx.parser);
  if (rc) return rc;
  layer l;
  memset(&l, 0, sizeof l);
  rc = read_root(&ctx, root, &l);
  node_free(root);
  if (!rc) rc = apply_layer(&ctx, cfg, &l);
  sbio__config_free(&l.v);
  return rc;
}

static sbio_code fail_errno(sbio_error *err, const char *path, int errnum) {
  char buf[256];
  const char *reason = strerror_r(errnum, buf, sizeof buf);
  return sbio__error_set(err, SBIO_E_CONFIG, NULL, "cannot read %s: %s", path, reason);
}

/* Reads at most CONFIG_MAX_BYTES + 1 bytes, never trusting st_size (pipes,
 * /proc files, files growing while read). With missing_ok, a missing file
 * sets *data to NULL and succeeds. */
static sbio_code read_whole_file(const char *path, int missing_ok, char **data, size_t *len, sbio_error *err) {
  *data = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (missing_ok && (errno == ENOENT || errno == ENOTDIR)) return SBIO_OK;
    return fail_errno(err, path, errno);
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  sbio_code rc = SBIO_OK;
  while (!rc && n <= CONFIG_MAX_BYTES) {
    if (buf && n == cap) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
    if (!buf) {
      rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory while reading the configuration", path);
      break;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) rc = fail_errno(err, path, errno);
    if (got <= 0) break;
    n += (size_t)got;
  }
  close(fd);
  if (!rc && n > CONFIG_MAX_BYTES)
    rc = sbio__error_set(err, SBIO_E_CONFIG, NULL,
                         "%s: the file is larger than 1 MiB; configuration files are limited to 1 MiB", path);
  if (rc) {
    free(buf);
    return rc;
  }
  *data = buf;
  *len = n;
  return SBIO_OK;
}

static sbio_code merge_path(sbio__config *cfg, const char *path, int missing_ok, sbio_error *err) {
  char *data;
  size_t len;
  sbio_code rc = read_whole_file(path, missing_ok, &data, &len, err);
  if (rc || !data) return rc;
  rc = sbio__config_merge_buffer(cfg, path, data, len, err);
  free(data);
  return rc;
}

sbio_code sbio__config_merge_file(sbio__config *cfg, const char *path, sbio_error *err) {
  if (!cfg || !path)
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sbio__config_merge_file: NULL argument");
  return merge_path(cfg, path, 0, err);
}

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s", a, b);
  return s;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_dropin_name(const char *name) {
  size_t n = strlen(name);
  return n > 5 && !strcmp(name + n - 5, ".yaml");
}

/* SYSCONFDIR/sandboxio/conf.d/ *.yaml, regular files only (symlinks to
 * them count), merged in strcmp order. A missing directory is no error. */
static sbio_code merge_dropins(sbio__config *cfg, const char *dir, sbio_error *err) {
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR) return SBIO_OK;
    return fail_errno(err, dir, errno);
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  sbio_code rc = SBIO_OK;
  struct dirent *e;
  errno = 0;
  while (!rc && (e = readdir(d))) {
    if (!is_dropin_name(e->d_name)) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, 0) != 0) {
      if (errno != ENOENT) rc = fail_errno(err, e->d_name, errno); /* a dangling link is skipped */
      errno = 0;
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **grown = realloc(names, cap * sizeof *names);
      if (!grown) {
        rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory", dir);
        break;
      }
      names = grown;
    }
    if (!(names[n] = strdup(e->d_name))) {
      rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory", dir);
      break;
    }
    n++;
    errno = 0;
  }
  if (!rc && errno) rc = fail_errno(err, dir, errno);
  closedir(d);
  if (n) qsort(names, n, sizeof *names, name_cmp);
  for (size_t i = 0; !rc && i < n; i++) {
    char *path = join(dir, "/");
    char *full = path ? join(path, names[i]) : NULL;
    free(path);
    rc = full ? merge_path(cfg, full, 1, err) : sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory", dir);
    free(full);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return rc;
}

/* The user's config home: the argument, else $XDG_CONFIG_HOME when
 * absolute (the XDG spec says to ignore a relative one), else ~/.config.
 * secure_getenv: a set-uid caller must not let the environment pick its
 * configuration. Returns the directory and the suffix to append to it, or
 * NULL when there is no home at all. */
static const char *user_config_home(const char *xdg_home, const char **suffix) {
  *suffix = "/sandboxio/config.yaml";
  if (xdg_home) return xdg_home;
  const char *xdg = secure_getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return xdg;
  const char *home = secure_getenv("HOME");
  *suffix = "/.config/sandboxio/config.yaml";
  return home && home[0] ? home : NULL;
}

sbio_code sbio__config_load(sbio__config *cfg, const char *explicit_file, const char *sysconfdir, const char *xdg_home,
                            sbio_error *err) {
  if (!cfg) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sbio__config_load: NULL config");
  if (explicit_file) return merge_path(cfg, explicit_file, 0, err);
  const char *env = secure_getenv("SBIO_CONFIG");
  if (env && env[0]) return merge_path(cfg, env, 0, err);

  const char *sys = sysconfdir ? sysconfdir : SBIO_SYSCONFDIR;
  const char *suffix;
  const char *home = user_config_home(xdg_home, &suffix);
  char *main_file = join(sys, "/sandboxio/config.yaml");
  char *dropins = join(sys, "/sandboxio/conf.d");
  char *user = home ? join(home, suffix) : NULL;
  sbio_code rc = SBIO_OK;
  if (!main_file || !dropins || (home && !user))
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory while loading the configuration");
  if (!rc) rc = merge_path(cfg, main_file, 1, err);
  if (!rc) rc = merge_dropins(cfg, dropins, err);
  if (!rc && user) rc = merge_path(cfg, user, 1, err);
  free(main_file);
  free(dropins);
  free(user);
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
