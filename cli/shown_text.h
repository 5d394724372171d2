/* SPDX-License-Identifier: MIT */
/* Text from outside sbio made fit for its two audiences. File names,
 * backend messages and provider texts can hold escape sequences, line
 * breaks and bytes that are not UTF-8: on a terminal such a text could
 * recolour, rewrite or hide what sbio prints, and in a JSON document it
 * would make the document invalid. */
#ifndef SBIO_CLI_SHOWN_TEXT_H
#define SBIO_CLI_SHOWN_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Bytes (1 to 4) of the well-formed UTF-8 character at s (n > 0 bytes
 * left), or 0 when the bytes there are malformed. */
size_t cli_utf8_char_len(const char *s, size_t n);

/* A malloc'd copy of s in which every malformed byte is U+FFFD, so the
 * copy is valid UTF-8. NULL on out of memory. */
char *cli_utf8_valid_copy(const char *s);

/* Writes s to f with control characters (C0 but tab, DEL, C1),
 * bidirectional controls and malformed bytes spelled out as \xNN or
 * \u{NNNN}: what an untrusted text looks like, never what it could make
 * a terminal do. A line break in s is shown as \x0a, so one value stays
 * on one line. */
void cli_fputs_shown(const char *s, FILE *f);

/* One line, lead (sbio's own text, written as is), then value as
 * cli_fputs_shown shows it, then a line break, in a single write where
 * memory allows: a reader never sees half a message. */
void cli_print_shown_line(FILE *f, const char *lead, const char *value);

/* The same rendering as a malloc'd string (NULL on out of memory). */
char *cli_shown_dup(const char *s);

/* Cuts the NUL-terminated s (which fills a buffer of size bytes) so it
 * does not end inside a character, what a snprintf at a byte count can
 * leave. */
void cli_utf8_trim_tail(char *s);

#endif
