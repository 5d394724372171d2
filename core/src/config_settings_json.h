/* SPDX-License-Identifier: MIT */
/* A backend's `settings` mapping -> the JSON object handed to the backend. */
#ifndef SBIO_CONFIG_SETTINGS_JSON_H
#define SBIO_CONFIG_SETTINGS_JSON_H

#include "config_node.h"

/* The node as compact JSON (malloc'd), or NULL on out of memory. Numbers
 * keep every digit of the file; those JSON cannot spell (.inf, .nan, hex
 * or octal beyond 64 bits) and quoted scalars stay strings. */
char *sbio__config_settings_json(const sbio__config_node *n);

#endif
