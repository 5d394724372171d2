/* SPDX-License-Identifier: MIT */
/* API version strings compare as numbers per component: 1.9 < 1.10. */
#include "engine.h"

#include <stdlib.h>

int sbio__dk_version_cmp(const char *a, const char *b) {
  for (;;) {
    char *ea, *eb;
    long x = strtol(a, &ea, 10), y = strtol(b, &eb, 10);
    if (x != y) return x < y ? -1 : 1;
    a = *ea == '.' ? ea + 1 : ea;
    b = *eb == '.' ? eb + 1 : eb;
    int more_a = *ea == '.', more_b = *eb == '.';
    if (!more_a && !more_b) return 0;
    /* "1.41" vs "1.41.0": a missing component counts as 0. */
  }
}
