/* SPDX-License-Identifier: MIT */
/* Output helpers shared by the commands: the colour decision, aligned
 * tables for humans and one-document JSON for programs. */
#ifndef SBIO_CLI_OUTPUT_H
#define SBIO_CLI_OUTPUT_H

#include <cjson/cJSON.h>
#include <sandboxio/sandboxio.h>
#include <stddef.h>
#include <stdio.h>

/* Version of every --json document's layout ("schema_version"). Bumped
 * only for a change that could break a reader; adding a field is not. */
#define CLI_JSON_SCHEMA_VERSION 1

/* Whether human output on stdout may use colour: stdout is a terminal,
 * NO_COLOR is unset or empty, and TERM is not "dumb". Decided once. */
int cli_color_enabled(void);

/* ANSI colour sequences (or "" when colour is off) for what is coloured. */
const char *cli_color_for_tier(sbio_tier tier);
const char *cli_color_for_status(sbio_backend_status status);
const char *cli_color_reset(void);

/* "CONTAINER", or "?" for a value that is not a tier. */
const char *cli_tier_text(sbio_tier tier);

/* A table printed with columns padded to their widest cell, counted in
 * characters, not bytes. Colour codes never count toward the width. */
typedef struct cli_table cli_table;
cli_table *cli_table_new(size_t ncols, const char *const *headers);
/* Copies the cells; `colors` (may be NULL, entries may be NULL) gives an
 * escape sequence per cell. Returns 0, or -1 on out of memory. */
int cli_table_add(cli_table *t, const char *const *cells, const char *const *colors);
size_t cli_table_rows(const cli_table *t);
void cli_table_print(const cli_table *t, FILE *out);
void cli_table_free(cli_table *t);

/* A new JSON document {"schema_version":1,"ok":ok}; NULL on out of memory. */
cJSON *cli_json_doc(int ok);
/* A string, or JSON null when `s` is NULL or empty: absent values are
 * null in every document, never "". Returns the added item or NULL. */
cJSON *cli_json_add_string_or_null(cJSON *obj, const char *key, const char *s);
/* Prints the document compactly on stdout followed by a newline and frees
 * it. Returns 0, or an exit code when it could not be printed. */
int cli_json_emit(cJSON *doc);

/* Writes all of buf to fd, retrying short writes and EINTR. Returns 0, or
 * -1 with errno set. */
int cli_write_all(int fd, const void *buf, size_t len);

/* Flushes stdout at the end of a command: a full disk or a closed pipe is
 * reported, not ignored. Returns `code`, or CLI_EXIT_IOERR when the output
 * was lost and `code` was a success. */
int cli_finish_stdout(int code);

#endif
