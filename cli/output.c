/* SPDX-License-Identifier: MIT */
/* Colour, tables and JSON. Colour is a decision about stdout only: stderr
 * carries errors that are read in logs as often as on terminals. */
#include "output.h"

#include "exitcode.h"
#include "shown_text.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ANSI_RED "\033[31m"
#define ANSI_GREEN "\033[32m"
#define ANSI_YELLOW "\033[33m"
#define ANSI_CYAN "\033[36m"
#define ANSI_RESET "\033[0m"

int cli_color_enabled(void) {
  static int decided = -1;
  if (decided < 0) {
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    decided = isatty(STDOUT_FILENO) && (no_color == NULL || no_color[0] == '\0') &&
              (term == NULL || strcmp(term, "dumb") != 0);
  }
  return decided;
}

const char *cli_color_for_tier(sbio_tier tier) {
  if (!cli_color_enabled()) return "";
  switch (tier) {
  case SBIO_TIER_UNKNOWN:
    return ANSI_RED;
  case SBIO_TIER_CONTAINER:
    return ANSI_YELLOW;
  case SBIO_TIER_GVISOR:
    return ANSI_CYAN;
  case SBIO_TIER_MICROVM:
    return ANSI_GREEN;
  }
  return "";
}

const char *cli_color_for_status(sbio_backend_status status) {
  if (!cli_color_enabled()) return "";
  return status == SBIO_BACKEND_REFUSED ? ANSI_RED : "";
}

const char *cli_color_reset(void) {
  return cli_color_enabled() ? ANSI_RESET : "";
}

const char *cli_tier_text(sbio_tier tier) {
  const char *name = sbio_tier_name(tier);
  return name ? name : "?";
}

/* ------------------------------------------------------------------ table */
struct cli_table {
  size_t ncols;
  size_t nrows; /* the header is row 0 */
  size_t cap;
  char **cells;        /* nrows * ncols */
  const char **colors; /* nrows * ncols, NULL = none */
};

static void table_free_rows(cli_table *t) {
  for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
}

cli_table *cli_table_new(size_t ncols, const char *const *headers) {
  cli_table *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->ncols = ncols;
  if (cli_table_add(t, headers, NULL) != 0) {
    cli_table_free(t);
    return NULL;
  }
  return t;
}

int cli_table_add(cli_table *t, const char *const *cells, const char *const *colors) {
  if (t->nrows == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 8;
    char **c = realloc(t->cells, cap * t->ncols * sizeof *c);
    if (!c) return -1;
    t->cells = c;
    const char **k = realloc(t->colors, cap * t->ncols * sizeof *k);
    if (!k) return -1;
    t->colors = k;
    t->cap = cap;
  }
  size_t base = t->nrows * t->ncols;
  for (size_t i = 0; i < t->ncols; i++) {
    /* Cells hold names and reasons from backends and the file system. */
    t->cells[base + i] = cli_shown_dup(cells[i] ? cells[i] : "");
    t->colors[base + i] = colors ? colors[i] : NULL;
    if (!t->cells[base + i]) {
      for (size_t j = 0; j < i; j++) free(t->cells[base + j]);
      return -1;
    }
  }
  t->nrows++;
  return 0;
}

size_t cli_table_rows(const cli_table *t) {
  return t->nrows ? t->nrows - 1 : 0;
}

/* The columns a cell takes on a terminal: one per character, not per byte.
 * Cells are valid UTF-8 (cli_shown_dup), so every byte that is not a
 * continuation byte starts a character. A wide character (East Asian
 * scripts, emoji) still counts as one column: telling those apart needs the
 * locale's wcwidth tables, which a table for pipes and logs should not
 * depend on. */
static size_t shown_columns(const char *cell) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)cell; *p; p++)
    if ((*p & 0xC0) != 0x80) n++;
  return n;
}

void cli_table_print(const cli_table *t, FILE *out) {
  size_t *width = calloc(t->ncols, sizeof *width);
  if (!width) return;
  for (size_t r = 0; r < t->nrows; r++) {
    for (size_t c = 0; c < t->ncols; c++) {
      size_t len = shown_columns(t->cells[r * t->ncols + c]);
      if (len > width[c]) width[c] = len;
    }
  }
  for (size_t r = 0; r < t->nrows; r++) {
    for (size_t c = 0; c < t->ncols; c++) {
      const char *cell = t->cells[r * t->ncols + c];
      const char *color = t->colors[r * t->ncols + c];
      int last = c + 1 == t->ncols;
      if (color && color[0])
        fprintf(out, "%s%s%s", color, cell, cli_color_reset());
      else
        fputs(cell, out);
      /* No trailing blanks after the last column. */
      if (!last) fprintf(out, "%*s", (int)(width[c] - shown_columns(cell) + 2), "");
    }
    fputc('\n', out);
  }
  free(width);
}

void cli_table_free(cli_table *t) {
  if (!t) return;
  table_free_rows(t);
  free(t->cells);
  free(t->colors);
  free(t);
}

/* ------------------------------------------------------------------- JSON */
cJSON *cli_json_doc(int ok) {
  cJSON *doc = cJSON_CreateObject();
  if (!doc) return NULL;
  if (!cJSON_AddNumberToObject(doc, "schema_version", CLI_JSON_SCHEMA_VERSION) ||
      !cJSON_AddBoolToObject(doc, "ok", ok)) {
    cJSON_Delete(doc);
    return NULL;
  }
  return doc;
}

cJSON *cli_json_add_string_or_null(cJSON *obj, const char *key, const char *s) {
  if (s == NULL || s[0] == '\0') return cJSON_AddNullToObject(obj, key);
  return cJSON_AddStringToObject(obj, key, s);
}

int cli_json_emit(cJSON *doc) {
  char *text = doc ? cJSON_PrintUnformatted(doc) : NULL;
  cJSON_Delete(doc);
  /* cJSON escapes control characters but passes every other byte as it
   * is: a file name or a backend message that is not UTF-8 would make the
   * document invalid. Outside strings the text is ASCII, so repairing the
   * whole text repairs exactly the strings. */
  char *valid = text ? cli_utf8_valid_copy(text) : NULL;
  cJSON_free(text);
  if (!valid) {
    fputs("sbio: error: out of memory while building the JSON output\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  fputs(valid, stdout);
  fputc('\n', stdout);
  free(valid);
  return CLI_EXIT_OK;
}

int cli_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int cli_finish_stdout(int code) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    /* EPIPE: the reader went away (`sbio backends | head`); that is the
     * reader's choice, not a failure worth a message. */
    if (errno != EPIPE) fprintf(stderr, "sbio: error: cannot write output: %s\n", strerror(errno));
    return code == CLI_EXIT_OK ? CLI_EXIT_IOERR : code;
  }
  return code;
}
