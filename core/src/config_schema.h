/* SPDX-License-Identifier: MIT */
/* The configuration schema (keys in docs/configuration.md): a parsed file
 * (config_node.h) -> a `layer`, every key checked for name, type and value
 * before anything is merged, so that a bad file never half-applies. */
#ifndef SBIO_CONFIG_SCHEMA_H
#define SBIO_CONFIG_SCHEMA_H

#include "config.h"
#include "config_node.h"
#include "config_report.h"

#include <sandboxio/sandboxio.h>

/* One file's settings: sbio__config's fields plus "was it set" flags for
 * those the public struct keeps without one. Free with sbio__config_free
 * on `v`. */
typedef struct sbio__config_layer {
  sbio__config v;
  int max_age_days_set, stale_set, backends_default_set, audit_on_failure_set, audit_stderr_set;
} sbio__config_layer;

/* Reads a whole file's tree into *l (zeroed by the caller). root NULL or
 * null is an empty file. On error *l may hold a part: free it all the same. */
sbio_code sbio__config_read_layer(const sbio__config_src *ctx, const sbio__config_node *root, sbio__config_layer *l);

/* The `tracing` section (config_schema_tracing.c). */
sbio_code sbio__config_read_tracing(const sbio__config_src *ctx, const sbio__config_node *value, sbio__config_layer *l);

#endif
