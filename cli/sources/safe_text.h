/* SPDX-License-Identifier: MIT */
/* Text from the network made fit to show on a terminal or put in JSON.
 *
 * Page text, redirect targets and transport messages come from servers
 * nobody vouches for. Shown as they are, they could carry terminal escape
 * sequences, bidirectional overrides that reorder a line, bytes that make
 * a JSON document invalid UTF-8, or a megabyte of text. Everything the
 * command prints that did not come from its own literals goes through one
 * of these. */
#ifndef SBIO_SOURCES_SAFE_TEXT_H
#define SBIO_SOURCES_SAFE_TEXT_H

#include <stddef.h>

/* A malloc'd copy of len bytes of s that is valid UTF-8 (malformed bytes
 * become U+FFFD), holds no control, bidirectional-control or zero-width
 * character (white space becomes one space), and is at most max_bytes
 * long, cut at a character boundary and ending in "..." when cut. NULL on
 * out of memory. */
char *src_safe_text(const char *s, size_t len, size_t max_bytes);

/* A URL from a server (a redirect target) for display: printable ASCII
 * only (other bytes percent-encoded), no user name or password, query
 * values replaced by "***" (they may be tokens), at most max_bytes with
 * "..." when cut. NULL on out of memory. */
char *src_safe_url(const char *url, size_t max_bytes);

#endif
