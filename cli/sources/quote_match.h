/* SPDX-License-Identifier: MIT */
/* Is the quote still on the page, and if not, which passage comes closest.
 *
 * Both are folded text (page_text.h). They are compared as sequences of
 * words: a word is a run of letters and digits (ASCII letters without
 * regard to case; any other letter as written), and everything between
 * words (spaces, punctuation, what markup left) is a separator. The quote
 * is found when its words occur on the page in the same order with nothing
 * between them. So a rewording is a change; "per-sandbox" against
 * "per‑sandbox" or a line break inside <em> is not.
 *
 * The closest passage is the run of as many page words as the quote has
 * whose words overlap the quote's most (as multisets: order aside), found
 * in one pass over the page, without the words at its edges that the quote
 * does not have. */
#ifndef SBIO_SOURCES_QUOTE_MATCH_H
#define SBIO_SOURCES_QUOTE_MATCH_H

#include <stddef.h>

typedef struct src_match {
  int found;            /* the quote's words occur in order, contiguously */
  size_t quote_words;   /* words in the quote */
  size_t matched_words; /* of those, how many the closest passage has */
  size_t start, end;    /* the passage (or the match) as byte offsets in the page text */
} src_match;

/* Returns 0, or -1 on out of memory. A quote without words is never found
 * (quote_words 0). A page without words has no passage (end == start). */
int src_quote_match(const char *page, size_t page_len, const char *quote, size_t quote_len, src_match *out);

#endif
