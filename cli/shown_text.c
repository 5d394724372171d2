/* SPDX-License-Identifier: MIT */
/* Valid UTF-8 for JSON, visible escapes for terminals; see shown_text.h. */
#include "shown_text.h"

#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/* The rules are the core's (core/src/utf8.c, compiled into the CLI too):
 * what the library cuts and escapes, the CLI cuts and escapes alike. */
size_t cli_utf8_char_len(const char *s, size_t n) {
  return sbio__utf8_char_len(s, n);
}

char *cli_utf8_valid_copy(const char *s) {
  return sbio__utf8_valid_copy(s);
}

/* A line of sbio's own output may hold a tab; everything else that moves
 * or recolours a terminal is spelled out. */
static size_t render_char(const char *s, size_t n, char *out, size_t *used) {
  return sbio__utf8_render_char(s, n, out, used, 1);
}

/* Rendered into a buffer and written at once: stderr is unbuffered, and a
 * write per character let a reader see a message in hundreds of pieces,
 * interleaved with the command's own stderr that `sbio run` copies. */
void cli_fputs_shown(const char *s, FILE *f) {
  char *shown = cli_shown_dup(s);
  if (shown) {
    fputs(shown, f);
    free(shown);
    return;
  }
  size_t n = strlen(s); /* out of memory: piece by piece, as shown as ever */
  char piece[12];
  for (size_t i = 0, used; i < n; i += used) fwrite(piece, 1, render_char(s + i, n - i, piece, &used), f);
}

void cli_print_shown_line(FILE *f, const char *lead, const char *value) {
  char *shown = cli_shown_dup(value);
  if (shown) {
    fprintf(f, "%s%s\n", lead, shown); /* one write, also on unbuffered stderr */
    free(shown);
    return;
  }
  fputs(lead, f);
  cli_fputs_shown(value, f);
  fputc('\n', f);
}

char *cli_shown_dup(const char *s) {
  size_t n = strlen(s);
  /* \u{NNNN} is the longest rendering: 8 bytes for at least 2 of s. */
  char *out = malloc(n * 4 + 1);
  if (!out) return NULL;
  size_t o = 0;
  char piece[12];
  for (size_t i = 0, used; i < n; i += used) {
    size_t k = render_char(s + i, n - i, piece, &used);
    memcpy(out + o, piece, k);
    o += k;
  }
  out[o] = '\0';
  return out;
}

void cli_utf8_trim_tail(char *s) {
  sbio__utf8_trim_tail(s);
}
