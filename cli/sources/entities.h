/* SPDX-License-Identifier: MIT */
/* HTML character references: the named ones documentation pages use, and
 * numeric ones with the HTML standard's replacements. */
#ifndef SBIO_SOURCES_ENTITIES_H
#define SBIO_SOURCES_ENTITIES_H

#include <stddef.h>

/* The code point of the named reference `name` (len bytes, without '&'
 * and ';'), or 0 when it is not one this table knows (the text is then
 * kept as written). */
unsigned src_entity_named(const char *name, size_t len);

/* What a numeric reference &#N; stands for, as the HTML standard says:
 * 0, surrogates and values past U+10FFFF become U+FFFD, and 0x80-0x9F
 * the Windows-1252 characters pages mean by them (&#146; is a ’). */
unsigned src_entity_numeric(unsigned long value);

#endif
