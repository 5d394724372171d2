/* SPDX-License-Identifier: MIT */
/* Quoting. Daytona's process/execute takes one string and hands it to the
 * user's shell, so an argv must be quoted to mean itself: nothing expanded,
 * split or redirected. '=' counts as special so that a first word such as
 * "A=b" stays a command name rather than becoming an assignment. */
#include "shquote.h"

#include <stdlib.h>
#include <string.h>

static int plain(const char *w) {
  if (!*w) return 0;
  for (const char *p = w; *p; p++) {
    char c = *p;
    int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("_@%+:,./-", c);
    if (!ok) return 0;
  }
  return 1;
}

char *sbio__dt_shell_join(const char *const *argv, size_t argc) {
  size_t need = 1;
  for (size_t i = 0; i < argc; i++) {
    size_t quotes = 0;
    for (const char *p = argv[i]; *p; p++) quotes += *p == '\'';
    need += strlen(argv[i]) + quotes * 3 + 3;
  }
  char *out = malloc(need);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < argc; i++) {
    if (i) out[o++] = ' ';
    const char *w = argv[i];
    if (plain(w)) {
      size_t n = strlen(w);
      memcpy(out + o, w, n);
      o += n;
      continue;
    }
    out[o++] = '\'';
    for (const char *p = w; *p; p++) {
      if (*p == '\'') {
        memcpy(out + o, "'\\''", 4);
        o += 4;
      } else {
        out[o++] = *p;
      }
    }
    out[o++] = '\'';
  }
  out[o] = '\0';
  return out;
}
