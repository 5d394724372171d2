/* SPDX-License-Identifier: MIT */
/* UTF-8 for the texts the core hands to its callers. Messages are built
 * from names nobody vouches for (file names, backend messages), are cut to
 * fixed buffers, and end up in JSON documents and on terminals: a cut never
 * splits a character, and a name is shown with its control characters and
 * malformed bytes spelled out. */
#ifndef SBIO_UTF8_H
#define SBIO_UTF8_H

#include <stddef.h>

/* Bytes (1 to 4) of the well-formed UTF-8 character at s (n > 0 bytes
 * left), or 0 when the bytes there are not one: overlong forms,
 * surrogates, values above U+10FFFF and truncated sequences are not. */
size_t sbio__utf8_char_len(const char *s, size_t n);

/* Whether all of s is well-formed UTF-8. */
int sbio__utf8_valid(const char *s);

/* A malloc'd copy of s in which each malformed byte is U+FFFD: a JSON
 * document built from names and arguments nobody vouches for, made valid.
 * NULL on out of memory. */
char *sbio__utf8_valid_copy(const char *s);

/* Drops an incomplete character from the end of the NUL-terminated s,
 * what remains of a cut made at a byte count. */
void sbio__utf8_trim_tail(char *s);

/* Renders the character at s (n > 0 bytes left) into out (at least 12
 * bytes) and returns its length there; *used gets the bytes of s it took.
 * Control characters (C0, DEL, C1; a tab too unless tab_ok), bidirectional
 * controls and malformed bytes become \xNN or \u{NNNN}. */
size_t sbio__utf8_render_char(const char *s, size_t n, char *out, size_t *used, int tab_ok);

/* Writes name into buf (size bytes, at least 16) for a message: control
 * characters (C0, DEL, C1), bidirectional controls and malformed bytes as
 * \xNN or \u{NNNN}, and, when longer than the buffer, only its end after
 * "...", so the file name survives. Returns buf. */
const char *sbio__utf8_shown_name(const char *name, char *buf, size_t size);

#endif
