/* SPDX-License-Identifier: MIT */
#include "fenv.h"

#include "sorted.h"

#include <stdlib.h>
#include <string.h>

void sbio__fake_env_init(fake_env *e) {
  memset(e, 0, sizeof *e);
}

void sbio__fake_env_free(fake_env *e) {
  for (size_t i = 0; i < e->n; i++) {
    free(e->keys[i]);
    free(e->vals[i]);
  }
  free(e->keys);
  free(e->vals);
  sbio__fake_env_init(e);
}

static const char *env_key_at(const void *table, size_t i) {
  return ((const fake_env *)table)->keys[i];
}

/* Index of `key`, or where it would be inserted (*found says which). */
static size_t env_find(const fake_env *e, const char *key, int *found) {
  return sbio__fake_sorted_find(e, e->n, env_key_at, key, found);
}

static int env_reserve(fake_env *e) {
  if (e->n < e->cap) return 0;
  size_t cap = e->cap ? e->cap * 2 : 16;
  char **keys = realloc(e->keys, cap * sizeof *keys);
  if (!keys) return -1;
  e->keys = keys;
  char **vals = realloc(e->vals, cap * sizeof *vals);
  if (!vals) return -1;
  e->vals = vals;
  e->cap = cap;
  return 0;
}

int sbio__fake_env_set(fake_env *e, const char *key, const char *val) {
  int found;
  size_t at = env_find(e, key, &found);
  char *v = strdup(val ? val : "");
  if (!v) return -1;
  if (found) {
    free(e->vals[at]);
    e->vals[at] = v;
    return 0;
  }
  char *k = strdup(key);
  if (!k || env_reserve(e) != 0) {
    free(k);
    free(v);
    return -1;
  }
  memmove(e->keys + at + 1, e->keys + at, (e->n - at) * sizeof *e->keys);
  memmove(e->vals + at + 1, e->vals + at, (e->n - at) * sizeof *e->vals);
  e->keys[at] = k;
  e->vals[at] = v;
  e->n++;
  return 0;
}

int sbio__fake_env_set_all(fake_env *e, const sbio_bk_kv *kv, size_t n) {
  for (size_t i = 0; kv && i < n; i++) {
    if (kv[i].key && sbio__fake_env_set(e, kv[i].key, kv[i].value) != 0) return -1;
  }
  return 0;
}

const char *sbio__fake_env_get(const fake_env *e, const char *key) {
  int found;
  size_t at = env_find(e, key, &found);
  return found ? e->vals[at] : NULL;
}

int sbio__fake_env_copy(fake_env *dst, const fake_env *src) {
  for (size_t i = 0; i < src->n; i++) {
    if (sbio__fake_env_set(dst, src->keys[i], src->vals[i]) != 0) return -1;
  }
  return 0;
}
