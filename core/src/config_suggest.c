/* SPDX-License-Identifier: MIT */
/* Guessing the key a typo meant: a prefix match or a small edit distance. */
#include "config_suggest.h"

#include <stddef.h>
#include <string.h>

#define SUGGEST_MAX_DISTANCE 2
#define SUGGEST_MAX_LEN 64

/* Optimal string alignment distance: a swap of two letters counts once. */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
  for (size_t i = 0; i <= la; i++) d[i][0] = i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t best = d[i - 1][j - 1] + cost;
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[la][lb];
}

/* The known key the user most likely meant: one that starts with the key
 * (a cut-short "on_fail" is as likely a slip as a typo), else the closest
 * within SUGGEST_MAX_DISTANCE edits. NULL when nothing is close. */
const char *sbio__config_suggest(const char *key, const char *const *known) {
  size_t key_len = strlen(key);
  if (key_len > SUGGEST_MAX_LEN) return NULL;
  const char *best = NULL;
  size_t best_distance = SUGGEST_MAX_DISTANCE + 1;
  for (size_t i = 0; known[i]; i++) {
    if (key_len >= 3 && !strncmp(key, known[i], key_len)) return known[i];
    size_t distance = edit_distance(key, known[i]);
    if (distance < best_distance && distance < strlen(known[i])) {
      best = known[i];
      best_distance = distance;
    }
  }
  return best;
}
