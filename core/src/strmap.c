/* SPDX-License-Identifier: MIT */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s) {
  uint64_t h = 14695981039346656037ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t slot_of(const sbio__strmap *m, const char *key) {
  size_t i = (size_t)hash(key) & (m->cap - 1);
  while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & (m->cap - 1);
  return i;
}

void *sbio__strmap_get(const sbio__strmap *m, const char *key) {
  if (!m->cap) return NULL;
  size_t i = slot_of(m, key);
  return m->keys[i] ? m->values[i] : NULL;
}

static int grow(sbio__strmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  sbio__strmap bigger = {calloc(cap, sizeof *bigger.keys), calloc(cap, sizeof *bigger.values), cap, 0};
  if (!bigger.keys || !bigger.values) {
    free(bigger.keys);
    free(bigger.values);
    return -1;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = slot_of(&bigger, m->keys[i]);
    bigger.keys[j] = m->keys[i];
    bigger.values[j] = m->values[i];
    bigger.n++;
  }
  sbio__strmap_free(m);
  *m = bigger;
  return 0;
}

int sbio__strmap_put(sbio__strmap *m, const char *key, void *value) {
  /* At most half full: probes stay short. */
  if ((m->n + 1) * 2 > m->cap && grow(m) != 0) return -1;
  size_t i = slot_of(m, key);
  if (!m->keys[i]) {
    m->keys[i] = key;
    m->n++;
  }
  m->values[i] = value;
  return 0;
}

void sbio__strmap_free(sbio__strmap *m) {
  free(m->keys);
  free(m->values);
  m->keys = NULL;
  m->values = NULL;
  m->cap = m->n = 0;
}
