/* SPDX-License-Identifier: MIT */
/* Fetching a source page; see fetch.h. Redirects are followed here rather
 * than by libcurl so each target is checked (https only) and recorded:
 * where a page moved is the point of the report. */
#include "fetch.h"

#include <curl/curl.h>
#include <sandboxio/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CONNECT_TIMEOUT_MS 10000
/* One more try after a transient failure (a 503, a reset connection),
 * within the same deadline. */
#define ATTEMPTS 2

static const char *const request_headers[] = {
    "Accept: text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
    /* The quote was read in English; a page negotiated into another
     * language would read as changed. */
    "Accept-Language: en",
};

static char *url_part(CURLU *u, CURLUPart part, unsigned flags) {
  char *value = NULL;
  if (curl_url_get(u, part, &value, flags) != CURLUE_OK) return NULL;
  return value;
}

int src_url_is_https(const char *url) {
  CURLU *u = curl_url();
  if (!u) return 0;
  int ok = 0;
  if (url && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK) {
    char *scheme = url_part(u, CURLUPART_SCHEME, 0), *host = url_part(u, CURLUPART_HOST, 0);
    char *user = url_part(u, CURLUPART_USER, 0), *password = url_part(u, CURLUPART_PASSWORD, 0);
    ok = scheme && !strcmp(scheme, "https") && host && host[0] && !user && !password;
    curl_free(scheme);
    curl_free(host);
    curl_free(user);
    curl_free(password);
  }
  curl_url_cleanup(u);
  return ok;
}

/* The path without one trailing slash ("/" stays "/"). */
static size_t path_len(const char *path) {
  size_t n = strlen(path);
  return n > 1 && path[n - 1] == '/' ? n - 1 : n;
}

static int same_text(const char *a, const char *b) {
  return (!a && !b) || (a && b && !strcmp(a, b));
}

int src_same_page(const char *a, const char *b) {
  CURLU *ua = curl_url(), *ub = curl_url();
  int same = 0;
  if (ua && ub && curl_url_set(ua, CURLUPART_URL, a, 0) == CURLUE_OK &&
      curl_url_set(ub, CURLUPART_URL, b, 0) == CURLUE_OK) {
    char *ha = url_part(ua, CURLUPART_HOST, 0), *hb = url_part(ub, CURLUPART_HOST, 0);
    char *pa = url_part(ua, CURLUPART_PORT, CURLU_DEFAULT_PORT), *pb = url_part(ub, CURLUPART_PORT, CURLU_DEFAULT_PORT);
    char *qa = url_part(ua, CURLUPART_QUERY, 0), *qb = url_part(ub, CURLUPART_QUERY, 0);
    char *sa = url_part(ua, CURLUPART_SCHEME, 0), *sb = url_part(ub, CURLUPART_SCHEME, 0);
    char *xa = url_part(ua, CURLUPART_PATH, 0), *xb = url_part(ub, CURLUPART_PATH, 0);
    same = ha && hb && !strcasecmp(ha, hb) && same_text(pa, pb) && same_text(qa, qb) && same_text(sa, sb) && xa && xb &&
           path_len(xa) == path_len(xb) && !strncmp(xa, xb, path_len(xa));
    char *parts[] = {ha, hb, pa, pb, qa, qb, sa, sb, xa, xb};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) curl_free(parts[i]);
  }
  curl_url_cleanup(ua);
  curl_url_cleanup(ub);
  return same;
}

/* `location` resolved against `base`, without its fragment; malloc'd, or
 * NULL when it is not a URL. */
static char *resolve(const char *base, const char *location) {
  CURLU *u = curl_url();
  char *out = NULL;
  if (u && curl_url_set(u, CURLUPART_URL, base, 0) == CURLUE_OK &&
      curl_url_set(u, CURLUPART_URL, location, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
      curl_url_set(u, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK) {
    char *text = url_part(u, CURLUPART_URL, 0);
    if (text) out = strdup(text);
    curl_free(text);
  }
  curl_url_cleanup(u);
  return out;
}

static int is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/* One GET of `url` (absolute https, no fragment) within `call`. The SDK
 * client is made for the URL's origin, so a redirect elsewhere gets a
 * client of its own and shares nothing with the first. */
static int get(const src_fetch_options *opt, const char *url, const sbio_bk_call *call, sbio_sdk_http_response *resp) {
  const char *authority = strstr(url, "://");
  const char *path = authority ? strchr(authority + 3, '/') : NULL;
  char *origin = path ? strndup(url, (size_t)(path - url)) : NULL;
  memset(resp, 0, sizeof *resp);
  if (!origin) {
    resp->outcome = SBIO_SDK_HTTP_NOMEM;
    return -1;
  }
  sbio_sdk_http_options o = {.backend = "sources",
                             .base_url = origin,
                             .headers = request_headers,
                             .n_headers = sizeof request_headers / sizeof request_headers[0],
                             .user_agent = opt->user_agent,
                             .ca_file = opt->ca_file,
                             .connect_timeout_ms = CONNECT_TIMEOUT_MS,
                             .max_attempts = ATTEMPTS,
                             .body_limit = SRC_PAGE_LIMIT};
  sbio_sdk_http *client = NULL;
  sbio_bk_error err = {.size = sizeof err};
  int rc = sbio_sdk_http_new(&o, &client, &err);
  free(origin);
  if (rc != SBIO_OK) {
    resp->outcome = rc == SBIO_E_INTERNAL ? SBIO_SDK_HTTP_NOMEM : SBIO_SDK_HTTP_BROKEN;
    snprintf(resp->error, sizeof resp->error, "%.200s", err.message);
    return -1;
  }
  sbio_sdk_http_request req = {.method = "GET", .path = path};
  rc = sbio_sdk_http_send(client, &req, call, resp);
  sbio_sdk_http_free(client);
  return rc;
}

static void take_answer(src_page *page, sbio_sdk_http_response *resp) {
  page->answered = resp->outcome == SBIO_SDK_HTTP_ANSWERED;
  page->status = resp->status;
  page->outcome = resp->outcome;
  page->failed_at = resp->failed_at;
  snprintf(page->error, sizeof page->error, "%s", resp->error);
  free(page->body);
  page->body = resp->body;
  page->len = resp->len;
  resp->body = NULL;
  if (resp->outcome == SBIO_SDK_HTTP_NOMEM) page->nomem = 1;
}

void src_fetch(const src_fetch_options *opt, const char *url, double seconds, src_page *page) {
  memset(page, 0, sizeof *page);
  sbio_bk_call call;
  sbio_sdk_call_init(&call, NULL, seconds);
  page->url = resolve(url, url);
  if (!page->url) {
    page->nomem = 1;
    return;
  }
  for (;;) {
    sbio_sdk_http_response resp;
    get(opt, page->url, &call, &resp);
    take_answer(page, &resp);
    char location[4096];
    const char *target = page->answered && is_redirect(page->status)
                             ? sbio_sdk_http_header(&resp, "Location", location, sizeof location)
                             : NULL;
    sbio_sdk_http_response_free(&resp);
    if (!page->answered || !is_redirect(page->status)) return;
    char *next = target && target[0] && strlen(target) < sizeof location - 1 ? resolve(page->url, target) : NULL;
    if (!next) {
      page->stop = SRC_STOP_NO_LOCATION;
      return;
    }
    page->redirects[page->n_redirects++] = next;
    if (page->n_redirects > SRC_MAX_REDIRECTS) { /* the array has room for the one refused */
      page->stop = SRC_STOP_TOO_MANY;
      return;
    }
    if (!src_url_is_https(next)) {
      page->stop = SRC_STOP_NOT_HTTPS;
      return;
    }
    char *copy = strdup(next);
    if (!copy) {
      page->nomem = 1;
      return;
    }
    free(page->url);
    page->url = copy;
  }
}

void src_page_free(src_page *page) {
  free(page->body);
  free(page->url);
  for (size_t i = 0; i < page->n_redirects; i++) free(page->redirects[i]);
  memset(page, 0, sizeof *page);
}
