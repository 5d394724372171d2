/* SPDX-License-Identifier: MIT */
/* K=V arguments (-e, -l, --secret, --label). */
#ifndef SBIO_CLI_KV_H
#define SBIO_CLI_KV_H

#include <stddef.h>

typedef struct cli_kv {
  char *key;         /* owned */
  const char *value; /* points into the argument (argv outlives the command) */
} cli_kv;

typedef struct cli_kv_list {
  cli_kv *items;
  size_t n, cap;
} cli_kv_list;

/* Splits "K=V" (K non-empty; V may be empty) and appends it. Returns 0,
 * -1 when the text is not K=V (nothing appended), -2 on out of memory. */
int cli_kv_add(cli_kv_list *l, const char *text);
void cli_kv_free(cli_kv_list *l);

#endif
