/* SPDX-License-Identifier: MIT */
/* Verdicts; see check.h. */
#include "check.h"

#include "page_text.h"
#include "quote_match.h"
#include "safe_text.h"

#include <sandboxio/sdk.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DETAIL_BYTES 600
#define URL_BYTES 400
/* The closest passage is shown at most this long: about the longest
 * sentence a quote is, with room for what a rewording added. */
#define PASSAGE_BYTES 600
/* A page allowed less time than this could only time out: it is not asked. */
#define MIN_PAGE_SECONDS 0.1

typedef struct cached_page {
  char *source; /* the URL as the metadata has it */
  src_page page;
  int fetched; /* 0: not fetched because the total time ran out */
  char *text;  /* folded text of a 2xx body, NULL until needed */
  size_t text_len;
} cached_page;

struct src_checker {
  src_fetch_options fetch;
  double page_seconds;
  struct timespec deadline; /* of the whole run, CLOCK_MONOTONIC */
  double total_seconds;
  int verbose;
  cached_page *pages;
  size_t n_pages;
};

static const char *const verdict_names[SRC_VERDICT_COUNT] = {"confirmed",   "changed",   "moved",    "gone",
                                                             "unreachable", "unchecked", "no_source"};

const char *src_verdict_name(src_verdict v) {
  return v >= 0 && v < SRC_VERDICT_COUNT ? verdict_names[v] : "?";
}

static double seconds_left(const src_checker *c) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(c->deadline.tv_sec - now.tv_sec) + (double)(c->deadline.tv_nsec - now.tv_nsec) / 1e9;
}

src_checker *src_checker_new(const src_fetch_options *fetch, double total_seconds, double page_seconds, int verbose) {
  src_checker *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->fetch = *fetch;
  c->page_seconds = page_seconds;
  c->total_seconds = total_seconds;
  c->verbose = verbose;
  clock_gettime(CLOCK_MONOTONIC, &c->deadline);
  double whole = (double)(time_t)total_seconds;
  c->deadline.tv_sec += (time_t)whole;
  c->deadline.tv_nsec += (long)((total_seconds - whole) * 1e9);
  if (c->deadline.tv_nsec >= 1000000000L) {
    c->deadline.tv_sec++;
    c->deadline.tv_nsec -= 1000000000L;
  }
  return c;
}

void src_checker_free(src_checker *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n_pages; i++) {
    free(c->pages[i].source);
    src_page_free(&c->pages[i].page);
    free(c->pages[i].text);
  }
  free(c->pages);
  free(c);
}

/* The page at `url`, fetched on first use. NULL on out of memory. */
static cached_page *page_for(src_checker *c, const char *url) {
  for (size_t i = 0; i < c->n_pages; i++)
    if (!strcmp(c->pages[i].source, url)) return &c->pages[i];
  cached_page *grown = realloc(c->pages, (c->n_pages + 1) * sizeof *grown);
  if (!grown) return NULL;
  c->pages = grown;
  cached_page *p = &c->pages[c->n_pages];
  memset(p, 0, sizeof *p);
  p->source = strdup(url);
  if (!p->source) return NULL;
  c->n_pages++;
  double left = seconds_left(c);
  if (left < MIN_PAGE_SECONDS) return p;
  double seconds = left < c->page_seconds ? left : c->page_seconds;
  if (c->verbose) fprintf(stderr, "sbio: info: fetching %s (at most %.1f s)\n", url, seconds);
  src_fetch(&c->fetch, url, seconds, &p->page);
  p->fetched = 1;
  if (p->page.nomem) return NULL;
  return p;
}

static int page_text(cached_page *p) {
  if (p->text) return 0;
  p->text = src_page_text(p->page.body ? p->page.body : "", p->page.body ? p->page.len : 0, &p->text_len);
  return p->text ? 0 : -1;
}

static int set_detail(src_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int set_detail(src_result *r, const char *fmt, ...) {
  char line[DETAIL_BYTES * 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  free(r->detail);
  r->detail = src_safe_text(line, strlen(line), DETAIL_BYTES);
  return r->detail ? 0 : -1;
}

/* ------------------------------------------------------------ failures */

static const char *failure_kind(const src_page *p) {
  if (p->outcome == SBIO_SDK_HTTP_TIMEOUT || p->outcome == SBIO_SDK_HTTP_SLOW) return "timeout";
  if (p->outcome == SBIO_SDK_HTTP_TOO_LARGE) return "too_large";
  switch (p->failed_at) {
  case SBIO_SDK_HTTP_AT_DNS:
    return "dns";
  case SBIO_SDK_HTTP_AT_CONNECT:
    return "connect";
  case SBIO_SDK_HTTP_AT_PROXY:
    return "proxy";
  case SBIO_SDK_HTTP_AT_TLS:
    return "tls";
  default:
    return "transfer";
  }
}

static const char *step_name(int failed_at) {
  switch (failed_at) {
  case SBIO_SDK_HTTP_AT_DNS:
    return "resolving the host name";
  case SBIO_SDK_HTTP_AT_CONNECT:
    return "connecting";
  case SBIO_SDK_HTTP_AT_PROXY:
    return "going through the proxy";
  case SBIO_SDK_HTTP_AT_TLS:
    return "the TLS handshake";
  default:
    return "the transfer";
  }
}

/* "tls: SSL certificate problem: ...", "timeout: no answer within ..." */
static void describe_failure(const src_page *p, char *out, size_t size) {
  const char *kind = failure_kind(p);
  if (!strcmp(kind, "timeout"))
    snprintf(out, size, "timeout: no complete answer within the time allowed (stopped during %s)",
             step_name(p->failed_at));
  else if (!strcmp(kind, "too_large"))
    snprintf(out, size, "too_large: the page is larger than the %zu MiB cap", SRC_PAGE_LIMIT >> 20);
  else
    snprintf(out, size, "%s: %s", kind, p->error[0] ? p->error : "the request failed");
}

/* ----------------------------------------------------------- verdicts */

static int unreachable(src_result *r, const char *failure, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int unreachable(src_result *r, const char *failure, const char *fmt, ...) {
  char line[DETAIL_BYTES * 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  r->verdict = SRC_UNREACHABLE;
  r->failure = failure;
  return set_detail(r, "%s", line);
}

static int keep_closest(src_result *r, const char *text, const src_match *m) {
  r->matched_words = m->matched_words;
  r->quote_words = m->quote_words;
  /* Less than half the quote's words in common: not a passage that
   * resembles it, only noise. */
  if (m->found || m->end <= m->start || m->matched_words * 2 < m->quote_words) return 0;
  r->closest = src_safe_text(text + m->start, m->end - m->start, PASSAGE_BYTES);
  return r->closest ? 0 : -1;
}

/* Looks for the quote in a page that answered 2xx. */
static int match_page(cached_page *p, const char *quote, src_match *m) {
  size_t quote_len = 0;
  char *folded = src_text_fold(quote, strlen(quote), &quote_len);
  if (!folded || page_text(p) != 0) {
    free(folded);
    return -1;
  }
  int rc = src_quote_match(p->text, p->text_len, folded, quote_len, m);
  free(folded);
  return rc;
}

static int record_addresses(src_result *r, const cached_page *p) {
  r->page_url = src_safe_url(p->page.url, URL_BYTES);
  if (!r->page_url) return -1;
  for (size_t i = 0; i < p->page.n_redirects; i++) {
    r->redirects[i] = src_safe_url(p->page.redirects[i], URL_BYTES);
    if (!r->redirects[i]) return -1;
    r->n_redirects = i + 1;
  }
  return 0;
}

/* The page is somewhere else now: say where, and what is there. */
static int judge_moved(cached_page *p, const char *quote, src_result *r) {
  const src_page *pg = &p->page;
  r->verdict = SRC_MOVED;
  r->found_there = -1;
  r->moved_to = src_safe_url(pg->redirects[pg->n_redirects - 1], URL_BYTES);
  if (!r->moved_to) return -1;
  char why[400];
  if (pg->stop == SRC_STOP_NOT_HTTPS)
    return set_detail(r, "redirected to %s: not followed, not an https URL", r->moved_to);
  if (!pg->answered) {
    describe_failure(pg, why, sizeof why);
    r->failure = failure_kind(pg);
    return set_detail(r, "redirected to %s, which could not be read (%s)", r->moved_to, why);
  }
  if (pg->status < 200 || pg->status > 299) {
    r->failure = "http";
    return set_detail(r, "redirected to %s, which answers HTTP %ld", r->moved_to, pg->status);
  }
  src_match m;
  if (match_page(p, quote, &m) != 0 || keep_closest(r, p->text, &m) != 0) return -1;
  r->found_there = m.found;
  return set_detail(r, "redirected to %s; the quote is %s there", r->moved_to, m.found ? "still" : "not");
}

static int judge_page(src_checker *c, cached_page *p, const char *source, const char *quote, src_result *r) {
  const src_page *pg = &p->page;
  if (!p->fetched)
    return unreachable(r, "timeout", "not fetched: the run's time limit (--timeout %.0f s) ran out first",
                       c->total_seconds);
  if (record_addresses(r, p) != 0) return -1;
  r->status = pg->status;
  char why[400];
  if (pg->stop == SRC_STOP_TOO_MANY)
    return unreachable(r, "redirects", "more than %d redirects in a row (a loop?); the last to %s", SRC_MAX_REDIRECTS,
                       r->redirects[r->n_redirects - 1]);
  if (pg->stop == SRC_STOP_NO_LOCATION)
    return unreachable(r, "http", "HTTP %ld redirect without a usable Location", pg->status);
  /* Redirects that ended on the same page are followed silently; any
   * other destination is news. */
  if (pg->n_redirects > 0 && !src_same_page(source, pg->redirects[pg->n_redirects - 1]))
    return judge_moved(p, quote, r);
  if (!pg->answered) {
    describe_failure(pg, why, sizeof why);
    return unreachable(r, failure_kind(pg), "%s", why);
  }
  if (pg->status == 404 || pg->status == 410) {
    r->verdict = SRC_GONE;
    return set_detail(r, "HTTP %ld %s", pg->status, pg->status == 404 ? "Not Found" : "Gone");
  }
  if (pg->status < 200 || pg->status > 299) return unreachable(r, "http", "the server answered HTTP %ld", pg->status);
  src_match m;
  if (match_page(p, quote, &m) != 0 || keep_closest(r, p->text, &m) != 0) return -1;
  r->matched_words = m.matched_words;
  if (m.found) {
    r->verdict = SRC_CONFIRMED;
    if (pg->n_redirects > 0) return set_detail(r, "quote found, after a redirect to the same page (%s)", r->page_url);
    return set_detail(r, "quote found");
  }
  r->verdict = SRC_CHANGED;
  if (r->closest)
    return set_detail(r, "the page no longer has the quote; closest passage shares %zu of its %zu words",
                      m.matched_words, m.quote_words);
  return set_detail(r, "the page no longer has the quote, nor any passage sharing half its words");
}

int src_check_mechanism(src_checker *c, const sbio_backend_info *b, size_t i, src_result *r) {
  memset(r, 0, sizeof *r);
  r->found_there = -1;
  const char *url = sbio_mechanism_source_url(b, i), *quote = sbio_mechanism_quote(b, i);
  if (sbio_mechanism_claimed_tier(b, i) == SBIO_TIER_UNKNOWN) {
    r->verdict = SRC_NO_SOURCE;
    const char *reason = sbio_mechanism_reason(b, i);
    return set_detail(r, "claims no tier (UNKNOWN)%s%s", reason && reason[0] ? ": " : "", reason ? reason : "");
  }
  r->verdict = SRC_UNCHECKED;
  if (!url || !url[0])
    return set_detail(r, "claims %s without a source URL", sbio_tier_name(sbio_mechanism_claimed_tier(b, i)));
  if (!src_url_is_https(url))
    return set_detail(r, "the source URL is not an https URL with a host (and without credentials)");
  if (!quote || !quote[0]) return set_detail(r, "the source has no quote to look for");
  size_t folded_len = 0;
  char *folded = src_text_fold(quote, strlen(quote), &folded_len);
  if (!folded) return -1;
  src_match m;
  int rc = src_quote_match("", 0, folded, folded_len, &m);
  free(folded);
  if (rc != 0) return -1;
  if (m.quote_words == 0) return set_detail(r, "the quote has no words to look for");

  cached_page *p = page_for(c, url);
  if (!p) return -1;
  return judge_page(c, p, url, quote, r);
}

void src_result_free(src_result *r) {
  free(r->detail);
  free(r->page_url);
  for (size_t i = 0; i < r->n_redirects; i++) free(r->redirects[i]);
  free(r->moved_to);
  free(r->closest);
  memset(r, 0, sizeof *r);
}
