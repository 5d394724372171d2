/* SPDX-License-Identifier: MIT */
/* A string map kept sorted by key: the sandbox environment, per-exec
 * overlays and labels. Sorted so `printenv` and `env` print in a stable
 * order without a separate sort, and lookups are a binary search. */
#ifndef SBIO_FAKE_FENV_H
#define SBIO_FAKE_FENV_H

#include <sandboxio/backend.h>
#include <stddef.h>

typedef struct fake_env {
  char **keys;
  char **vals;
  size_t n;
  size_t cap;
} fake_env;

void sbio__fake_env_init(fake_env *e);
void sbio__fake_env_free(fake_env *e);
/* Inserts or replaces. 0 ok, -1 out of memory (the map is unchanged). */
int sbio__fake_env_set(fake_env *e, const char *key, const char *val);
/* Sets every pair with a non-NULL key (a NULL value counts as ""). */
int sbio__fake_env_set_all(fake_env *e, const sbio_bk_kv *kv, size_t n);
/* NULL when unset. */
const char *sbio__fake_env_get(const fake_env *e, const char *key);
/* dst must be initialised and empty. 0 ok, -1 out of memory. */
int sbio__fake_env_copy(fake_env *dst, const fake_env *src);

#endif
