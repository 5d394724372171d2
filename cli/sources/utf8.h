/* SPDX-License-Identifier: MIT */
/* Reading UTF-8 that came from the network: every byte sequence decodes to
 * something, and what is not well-formed decodes to U+FFFD one byte at a
 * time, so hostile input can neither stop a scan nor hide in it. */
#ifndef SBIO_SOURCES_UTF8_H
#define SBIO_SOURCES_UTF8_H

#include <stddef.h>

#define SRC_REPLACEMENT 0xfffdu

/* Decodes the code point at s (len > 0 bytes left) into *cp and returns
 * the bytes it used (1-4). Overlong forms, surrogates, values above
 * U+10FFFF and truncated sequences give U+FFFD and 1. */
size_t src_utf8_next(const char *s, size_t len, unsigned *cp);

#endif
