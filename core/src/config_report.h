/* SPDX-License-Identifier: MIT */
/* Messages about a configuration file: "NAME:LINE:COL: message" errors,
 * and safe renderings of the values they quote. Shared by the YAML reader
 * and the schema so every message has one shape. */
#ifndef SBIO_CONFIG_REPORT_H
#define SBIO_CONFIG_REPORT_H

#include "config_node.h"

#include <sandboxio/sandboxio.h>
#include <stddef.h>

#define SBIO__QUOTE_MAX 64                         /* bytes of a bad value echoed in a message */
#define SBIO__SHOW_MAX 12                          /* longest bad string value shown at all (sbio__config_describe) */
#define SBIO__QUOTE_BUF (SBIO__QUOTE_MAX * 4 + 16) /* room for escapes, "..." and quotes */

/* The file being read. */
#define SBIO__SHOWN_NAME_BUF 512 /* a file name in a message, escaped and cut (utf8.h) */

typedef struct sbio__config_src {
  const char *path; /* the file's name as given */
  const char *name; /* the same for messages: escaped and cut (sbio__utf8_shown_name) */
  const char *data;
  size_t len;
  sbio_error *err;
} sbio__config_src;

/* Sets an SBIO_E_CONFIG error "NAME:LINE:COL: message"; returns its code. */
sbio_code sbio__config_fail_at(const sbio__config_src *ctx, size_t line, size_t column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define sbio__config_fail_node(ctx, n, ...) sbio__config_fail_at((ctx), (n)->line, (n)->column, __VA_ARGS__)
sbio_code sbio__config_fail_oom(const sbio__config_src *ctx);

/* Writes text as a double-quoted, escaped string cut to SBIO__QUOTE_MAX
 * bytes into buf (SBIO__QUOTE_BUF bytes); returns buf. */
const char *sbio__config_quote(const char *text, char *buf, size_t size);
/* Names what a node is for "must be X, not Y" messages, quoting a scalar's
 * text when sbio__config_value_shown says so and giving its length
 * otherwise: only for keys whose values are not secrets. */
const char *sbio__config_describe(const sbio__config_node *n, char *buf, size_t size);
/* Whether sbio__config_describe shows the node's own text: a scalar that is
 * a plain number or a few short words (see config_report.c), never a
 * mapping, a list or null. */
int sbio__config_value_shown(const sbio__config_node *n);
/* The kind of a node alone ("a list", "a string"...), for values that may
 * be secrets. */
const char *sbio__config_describe_kind(const sbio__config_node *n);

#endif
