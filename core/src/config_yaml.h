/* SPDX-License-Identifier: MIT */
/* YAML text -> the configuration node tree (config_node.h).
 *
 * Only what a configuration needs is accepted: one document (or none),
 * standard tags only, no anchors or aliases, no duplicate keys, keys that
 * are scalars, no NUL characters, at most SBIO__CONFIG_MAX_BYTES of text
 * and 64 levels of nesting (CONFIG_MAX_DEPTH in config_yaml.c). */
#ifndef SBIO_CONFIG_YAML_H
#define SBIO_CONFIG_YAML_H

#include "config_node.h"
#include "config_report.h"

#include <sandboxio/sandboxio.h>

#define SBIO__CONFIG_MAX_BYTES ((size_t)1 << 20) /* far above any real config; bounds parser work */

/* Parses src->data (src->len bytes). *root is the document's node, or
 * NULL for an empty stream; the caller frees it with
 * sbio__config_node_free. Errors are set in src->err. */
sbio_code sbio__config_parse_yaml(const sbio__config_src *src, sbio__config_node **root);

#endif
