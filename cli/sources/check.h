/* SPDX-License-Identifier: MIT */
/* The verdict on one mechanism's tier claim: fetch its source page (once
 * per URL in a run), read it as text and look for the quote.
 *
 *   confirmed    the page has the quote (a redirect to the same page, such
 *                as an added or removed trailing slash, is followed)
 *   changed      the page was read and does not have it; the closest
 *                passage is kept when it shares at least half its words
 *   moved        the address redirects to another page (followed when it
 *                is https, and the quote looked for there too)
 *   gone         HTTP 404 or 410
 *   unreachable  the page could not be read: DNS, connection, proxy, TLS,
 *                timeout, an HTTP error other than 404/410, a page over
 *                the size cap, a redirect loop
 *   unchecked    the claim has no source that can be checked (no https
 *                URL, no quote): the metadata needs fixing
 *   no_source    the mechanism claims no tier (UNKNOWN by declaration)
 *
 * Every text kept here for display has been through safe_text.h. */
#ifndef SBIO_SOURCES_CHECK_H
#define SBIO_SOURCES_CHECK_H

#include "fetch.h"

#include <sandboxio/sandboxio.h>
#include <stddef.h>
#include <stdint.h>

typedef enum src_verdict {
  SRC_CONFIRMED,
  SRC_CHANGED,
  SRC_MOVED,
  SRC_GONE,
  SRC_UNREACHABLE,
  SRC_UNCHECKED,
  SRC_NO_SOURCE,
  SRC_VERDICT_COUNT
} src_verdict;

/* "confirmed", "changed", ... as in the JSON document. */
const char *src_verdict_name(src_verdict v);

typedef struct src_result {
  src_verdict verdict;
  /* unreachable (or moved, about the new address): "dns", "connect",
   * "proxy", "tls", "timeout", "transfer", "too_large", "http",
   * "redirects"; NULL otherwise */
  const char *failure;
  char *detail;                           /* one line for people */
  long status;                            /* HTTP status of the last answer; 0 without one */
  char *page_url;                         /* the address whose answer decided (display form); NULL without a fetch */
  char *redirects[SRC_MAX_REDIRECTS + 1]; /* display forms, in order */
  size_t n_redirects;
  char *moved_to;  /* moved: the new address (display form) */
  int found_there; /* moved: 1 the quote is there, 0 it is not, -1 not known */
  char *closest;   /* the closest passage (display form), or NULL */
  size_t matched_words, quote_words;
} src_result;

typedef struct src_checker src_checker;

/* total_seconds bounds the whole run, page_seconds each page (redirects
 * included); a page gets what is left of the total when that is less. */
src_checker *src_checker_new(const src_fetch_options *fetch, double total_seconds, double page_seconds, int verbose);
void src_checker_free(src_checker *c);

/* Judges mechanism i of backend b. Returns 0, or -1 on out of memory. */
int src_check_mechanism(src_checker *c, const sbio_backend_info *b, size_t i, src_result *out);
void src_result_free(src_result *r);

#endif
