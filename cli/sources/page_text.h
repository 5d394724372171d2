/* SPDX-License-Identifier: MIT */
/* A fetched page as the text a reader sees, and the same folding for the
 * quote, so that markup and typography never decide a verdict:
 *
 * - markup: tags are removed; block-level tags separate words, inline ones
 *   (a, em, code, span, ...) do not; comments, doctypes and the contents of
 *   script, style, template, svg and similar elements are dropped;
 * - character references are decoded (the common named ones, and every
 *   numeric one as the HTML standard reads it);
 * - folding: typographic quotes become ' and ", dashes and minus signs -,
 *   the ellipsis "...", every kind of space one space; soft hyphens,
 *   zero-width and bidirectional-control characters disappear; control
 *   characters are dropped; runs of white space become one space.
 *
 * The result is valid UTF-8 (malformed bytes read as U+FFFD) without any
 * control character: safe to compare, and safe to show once shortened. A
 * page whose markup is broken still gives text: nothing here fails but
 * memory. */
#ifndef SBIO_SOURCES_PAGE_TEXT_H
#define SBIO_SOURCES_PAGE_TEXT_H

#include <stddef.h>

/* The page's text (markup removed, then folded); malloc'd, length in
 * *out_len. NULL on out of memory. */
char *src_page_text(const char *page, size_t len, size_t *out_len);

/* Only the folding, for text that is not markup (the quote). */
char *src_text_fold(const char *text, size_t len, size_t *out_len);

/* Only what makes text unsafe to show (controls, invisible and
 * bidirectional characters, malformed bytes; white space runs become one
 * space), typography kept. */
char *src_text_clean(const char *text, size_t len, size_t *out_len);

#endif
