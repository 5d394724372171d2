/* SPDX-License-Identifier: MIT */
/* Fetching a source page: GET over HTTPS through the SDK's HTTP client
 * (the one backends use: its deadlines, TLS verification, proxy handling),
 * following at most SRC_MAX_REDIRECTS redirects, each to an https URL only.
 *
 * Safe by construction: only GET, no cookie and no credential sent (the
 * SDK client sends neither, and redirects are followed here, by URL, with
 * nothing carried over), nothing written, the body capped at
 * SRC_PAGE_LIMIT, and the whole fetch, redirects included, bounded by one
 * deadline. */
#ifndef SBIO_SOURCES_FETCH_H
#define SBIO_SOURCES_FETCH_H

#include <stddef.h>
#include <stdint.h>

#define SRC_MAX_REDIRECTS 5
#define SRC_PAGE_LIMIT ((size_t)4 << 20)

/* Why a redirect was not followed. */
enum {
  SRC_STOP_NONE = 0,
  SRC_STOP_NOT_HTTPS,   /* the target is not an https URL (plain http, or another scheme) */
  SRC_STOP_TOO_MANY,    /* more than SRC_MAX_REDIRECTS in a row */
  SRC_STOP_NO_LOCATION, /* a 3xx answer without a usable Location */
};

typedef struct src_fetch_options {
  const char *ca_file;    /* PEM bundle to verify servers with; NULL: the system's */
  const char *user_agent; /* required */
} src_fetch_options;

typedef struct src_page {
  int answered;    /* the last request got an HTTP answer (see status) */
  long status;     /* its status; 0 without an answer */
  int outcome;     /* SBIO_SDK_HTTP_* of the last request */
  int failed_at;   /* SBIO_SDK_HTTP_AT_* when it was a transport failure */
  char error[256]; /* libcurl's one line about a transport failure */
  char *body;      /* the last answer's body (NUL-terminated), NULL if none */
  size_t len;
  char *url;                              /* the URL last requested (absolute, without fragment) */
  char *redirects[SRC_MAX_REDIRECTS + 1]; /* every Location followed or refused, absolute, in order */
  size_t n_redirects;
  int stop;  /* SRC_STOP_*: why the last redirect was not followed */
  int nomem; /* ran out of memory: nothing else is reliable */
} src_page;

/* Fetches url (which must be https); the requests, redirects included,
 * must all end within `seconds` from now. Always fills page; free it with
 * src_page_free. */
void src_fetch(const src_fetch_options *opt, const char *url, double seconds, src_page *page);
void src_page_free(src_page *page);

/* Whether url is an absolute https URL with a host (and no credentials). */
int src_url_is_https(const char *url);

/* Whether two absolute URLs name the same page: same host (letter case
 * aside) and port, same query, and the same path up to one trailing slash.
 * The scheme is https for both by the time this is asked. */
int src_same_page(const char *a, const char *b);

#endif
