/* SPDX-License-Identifier: MIT */
/* Binary search over a table kept sorted by a string key (strcmp order):
 * the fake's environment and its in-memory file system both store their
 * entries that way. */
#ifndef SBIO_FAKE_SORTED_H
#define SBIO_FAKE_SORTED_H

#include <stddef.h>

/* The key of entry i of `table`. */
typedef const char *(*fake_key_at)(const void *table, size_t i);

/* Index of the entry whose key is `key` (*found = 1), or of where it would
 * be inserted to keep the order (*found = 0). */
size_t sbio__fake_sorted_find(const void *table, size_t n, fake_key_at key_at, const char *key, int *found);

#endif
