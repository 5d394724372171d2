/* SPDX-License-Identifier: MIT */
/* Positioned configuration errors and safe quoting of values in them. */
#include "config_report.h"

#include "error_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

sbio_code sbio__config_fail_at(const sbio__config_src *ctx, size_t line, size_t column, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return sbio__error_set(ctx->err, SBIO_E_CONFIG,
                         "fix the file at that line and column; docs/configuration.md lists every key",
                         "%s:%zu:%zu: %s", ctx->name, line, column, msg);
}

sbio_code sbio__config_fail_oom(const sbio__config_src *ctx) {
  return sbio__error_set(ctx->err, SBIO_E_INTERNAL, NULL, "%s: out of memory while reading the configuration",
                         ctx->name);
}

/* Writes text as a double-quoted, escaped string cut to SBIO__QUOTE_MAX bytes (on
 * a UTF-8 boundary), so a message never carries control characters or a
 * huge value. */
const char *sbio__config_quote(const char *text, char *buf, size_t size) {
  size_t o = 0;
  buf[o++] = '"';
  size_t i = 0;
  for (; text[i]; i++) {
    unsigned char c = (unsigned char)text[i];
    if (i >= SBIO__QUOTE_MAX && (c & 0xC0) != 0x80) break;
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

/* Whether a bad value is shown in a message: a few short words (a
 * misspelt choice, "yes please" for a boolean, a relative path, the empty
 * string) help the reader and are no credential; anything longer, or with
 * characters no keyword has, may be a token pasted under the wrong key and
 * is described by its length instead. The message carries the line and
 * column either way. */
static int shown_as_is(const char *text) {
  static const char word[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.-/~";
  size_t n = strlen(text);
  return n <= SBIO__SHOW_MAX && strspn(text, word) == n;
}

int sbio__config_value_shown(const sbio__config_node *n) {
  if (n->kind != SBIO__NODE_SCALAR || (!n->quoted && n->type == SBIO__SCALAR_NULL)) return 0;
  int plain_number = !n->quoted && (n->type == SBIO__SCALAR_INT || n->type == SBIO__SCALAR_FLOAT);
  return plain_number || shown_as_is(n->text);
}

/* Names what a node is for "must be X, not Y" messages: its kind, and a
 * scalar's text when sbio__config_value_shown says so; other strings by
 * their length only. */
const char *sbio__config_describe(const sbio__config_node *n, char *buf, size_t size) {
  if (n->kind == SBIO__NODE_MAPPING) return "a mapping";
  if (n->kind == SBIO__NODE_SEQUENCE) return "a list";
  if (!n->quoted && n->type == SBIO__SCALAR_NULL) return "empty (null)";
  if (!sbio__config_value_shown(n)) {
    snprintf(buf, size, "a string of %zu bytes (not shown: it may be a credential)", strlen(n->text));
    return buf;
  }
  if (n->quoted && sbio__config_resolve_plain(n->text) != SBIO__SCALAR_STRING) {
    char q[SBIO__QUOTE_BUF];
    snprintf(buf, size, "the quoted string %s", sbio__config_quote(n->text, q, sizeof q));
    return buf;
  }
  return sbio__config_quote(n->text, buf, size);
}

/* Same, without the value: for keys whose values may be secret. */
const char *sbio__config_describe_kind(const sbio__config_node *n) {
  if (n->kind == SBIO__NODE_MAPPING) return "a mapping";
  if (n->kind == SBIO__NODE_SEQUENCE) return "a list";
  switch (n->type) {
  case SBIO__SCALAR_NULL:
    return "empty (null)";
  case SBIO__SCALAR_BOOL:
    return "a boolean";
  case SBIO__SCALAR_INT:
  case SBIO__SCALAR_FLOAT:
    return "a number";
  case SBIO__SCALAR_STRING:
    break;
  }
  return "a string";
}
