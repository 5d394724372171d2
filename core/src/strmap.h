/* SPDX-License-Identifier: MIT */
/* A string -> pointer map (open addressing, FNV-1a) for lookups that would
 * otherwise compare every pair: the registry's "is this name or path
 * already known" while scanning a thousand backends. Keys are borrowed,
 * never copied: they must outlive the map. */
#ifndef SBIO_STRMAP_H
#define SBIO_STRMAP_H

#include <stddef.h>

typedef struct sbio__strmap {
  const char **keys;
  void **values;
  size_t cap, n; /* cap is 0 or a power of two */
} sbio__strmap;

/* The value of key, or NULL. */
void *sbio__strmap_get(const sbio__strmap *m, const char *key);
/* Adds key (or replaces its value). 0, or -1 on out of memory. */
int sbio__strmap_put(sbio__strmap *m, const char *key, void *value);
void sbio__strmap_free(sbio__strmap *m);

#endif
