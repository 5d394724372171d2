/* SPDX-License-Identifier: MIT */
#include "sorted.h"

#include <string.h>

size_t sbio__fake_sorted_find(const void *table, size_t n, fake_key_at key_at, const char *key, int *found) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(key_at(table, mid), key);
    if (c == 0) {
      *found = 1;
      return mid;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *found = 0;
  return lo;
}
