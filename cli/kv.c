/* SPDX-License-Identifier: MIT */
/* K=V argument lists; see kv.h. */
#include "kv.h"

#include <stdlib.h>
#include <string.h>

int cli_kv_add(cli_kv_list *l, const char *text) {
  const char *eq = strchr(text, '=');
  if (!eq || eq == text) return -1;
  if (l->n == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 4;
    cli_kv *items = realloc(l->items, cap * sizeof *items);
    if (!items) return -2;
    l->items = items;
    l->cap = cap;
  }
  char *key = strndup(text, (size_t)(eq - text));
  if (!key) return -2;
  l->items[l->n].key = key;
  l->items[l->n].value = eq + 1;
  l->n++;
  return 0;
}

void cli_kv_free(cli_kv_list *l) {
  for (size_t i = 0; i < l->n; i++) free(l->items[i].key);
  free(l->items);
  l->items = NULL;
  l->n = l->cap = 0;
}
