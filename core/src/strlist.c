/* SPDX-License-Identifier: MIT */
#include "strlist.h"

#include <stdlib.h>
#include <string.h>

char *sbio__strdup0(const char *s) {
  return s ? strdup(s) : NULL;
}

static int grow(void **items, size_t elem, size_t *cap, size_t need) {
  if (need <= *cap) return 0;
  size_t ncap = *cap ? *cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  void *p = realloc(*items, ncap * elem);
  if (!p) return -1;
  *items = p;
  *cap = ncap;
  return 0;
}

int sbio__strlist_add(sbio__strlist *l, const char *s) {
  if (grow((void **)&l->items, sizeof(char *), &l->cap, l->n + 1) != 0) return -1;
  char *copy = strdup(s);
  if (!copy) return -1;
  l->items[l->n++] = copy;
  return 0;
}

int sbio__strlist_split(sbio__strlist *l, const char *s, char sep) {
  const char *start = s;
  for (;;) {
    const char *end = strchr(start, sep);
    size_t len = end ? (size_t)(end - start) : strlen(start);
    char *piece = strndup(start, len);
    if (!piece) return -1;
    int rc = sbio__strlist_add(l, piece);
    free(piece);
    if (rc != 0) return -1;
    if (!end) return 0;
    start = end + 1;
  }
}

int sbio__strlist_copy(sbio__strlist *dst, const sbio__strlist *src) {
  for (size_t i = 0; i < src->n; i++)
    if (sbio__strlist_add(dst, src->items[i]) != 0) return -1;
  return 0;
}

void sbio__strlist_free(sbio__strlist *l) {
  for (size_t i = 0; i < l->n; i++) free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

static void refresh_view(sbio__kvlist *l) {
  for (size_t i = 0; i < l->n; i++) {
    l->view[i].key = l->keys[i];
    l->view[i].value = l->values[i];
  }
}

int sbio__kvlist_set(sbio__kvlist *l, const char *key, const char *value) {
  char *v = strdup(value);
  if (!v) return -1;
  for (size_t i = 0; i < l->n; i++) {
    if (strcmp(l->keys[i], key) == 0) {
      free(l->values[i]);
      l->values[i] = v;
      refresh_view(l);
      return 0;
    }
  }
  size_t cap = l->cap;
  if (grow((void **)&l->keys, sizeof(char *), &cap, l->n + 1) != 0) goto oom;
  cap = l->cap;
  if (grow((void **)&l->values, sizeof(char *), &cap, l->n + 1) != 0) goto oom;
  cap = l->cap;
  if (grow((void **)&l->view, sizeof(sbio_bk_kv), &cap, l->n + 1) != 0) goto oom;
  l->cap = cap;
  char *k = strdup(key);
  if (!k) goto oom;
  l->keys[l->n] = k;
  l->values[l->n] = v;
  l->n++;
  refresh_view(l);
  return 0;
oom:
  free(v);
  return -1;
}

const char *sbio__kvlist_get(const sbio__kvlist *l, const char *key) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->keys[i], key) == 0) return l->values[i];
  return NULL;
}

int sbio__kvlist_copy(sbio__kvlist *dst, const sbio__kvlist *src) {
  for (size_t i = 0; i < src->n; i++)
    if (sbio__kvlist_set(dst, src->keys[i], src->values[i]) != 0) return -1;
  return 0;
}

void sbio__kvlist_free(sbio__kvlist *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->keys[i]);
    /* Values may be secrets: wipe before freeing. */
    explicit_bzero(l->values[i], strlen(l->values[i]));
    free(l->values[i]);
  }
  free(l->keys);
  free(l->values);
  free(l->view);
  memset(l, 0, sizeof *l);
}
