/* SPDX-License-Identifier: MIT */
/* Checks of single values shared by every section of the configuration
 * schema; each fails with a positioned message (config_report.h). */
#ifndef SBIO_CONFIG_CHECK_H
#define SBIO_CONFIG_CHECK_H

#include "config_node.h"
#include "config_report.h"

#include <sandboxio/sandboxio.h>

/* Fails on `key` as an unknown key of section `where`, suggesting the
 * nearest of `known` (NULL-terminated) or listing them all. */
sbio_code sbio__config_unknown_key(const sbio__config_src *ctx, const sbio__config_node *key, const char *where,
                                   const char *const *known);
/* A section that must be a mapping; empty (null) counts as an empty
 * mapping and sets *map to NULL. */
sbio_code sbio__config_expect_section(const sbio__config_src *ctx, const char *key, const sbio__config_node *value,
                                      const sbio__config_node **map);
/* true or false, nothing else. */
sbio_code sbio__config_expect_bool(const sbio__config_src *ctx, const char *key, const sbio__config_node *value,
                                   int *out);
/* One of `choices` (NULL-terminated, matched case-insensitively); *out is
 * its index. `spelled` lists them for the message. */
sbio_code sbio__config_expect_choice(const sbio__config_src *ctx, const char *key, const sbio__config_node *value,
                                     const char *const *choices, const char *spelled, int *out);
/* A scalar starting with '/'; *out is a copy. `what` names it in messages. */
sbio_code sbio__config_expect_absolute_path(const sbio__config_src *ctx, const char *what,
                                            const sbio__config_node *value, char **out);

#endif
