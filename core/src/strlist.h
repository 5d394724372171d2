/* SPDX-License-Identifier: MIT */
/* Growable string lists and key/value lists: the option objects and the
 * requests handed to backends are built from these. */
#ifndef SBIO_STRLIST_H
#define SBIO_STRLIST_H

#include <sandboxio/backend.h>
#include <stddef.h>

typedef struct sbio__strlist {
  char **items;
  size_t n, cap;
} sbio__strlist;

/* Owned copies; `view` mirrors them as sbio_bk_kv for the ABI. */
typedef struct sbio__kvlist {
  char **keys;
  char **values;
  sbio_bk_kv *view;
  size_t n, cap;
} sbio__kvlist;

int sbio__strlist_add(sbio__strlist *l, const char *s); /* 0 ok, -1 OOM */
/* Splits on `sep` and appends every piece (empty pieces too, as ""). */
int sbio__strlist_split(sbio__strlist *l, const char *s, char sep);
int sbio__strlist_copy(sbio__strlist *dst, const sbio__strlist *src);
void sbio__strlist_free(sbio__strlist *l);

/* Sets key to value, replacing an existing key (last one wins). */
int sbio__kvlist_set(sbio__kvlist *l, const char *key, const char *value);
const char *sbio__kvlist_get(const sbio__kvlist *l, const char *key);
int sbio__kvlist_copy(sbio__kvlist *dst, const sbio__kvlist *src);
void sbio__kvlist_free(sbio__kvlist *l);

/* strdup that accepts NULL. */
char *sbio__strdup0(const char *s);

#endif
