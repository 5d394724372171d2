/* SPDX-License-Identifier: MIT */
/* The HTTP client: construction, the connection pool, small helpers. */
#include "http_internal.h"

#include <sandboxio/sdk/url.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CONNECT_TIMEOUT_MS 10000
#define DEFAULT_MAX_ATTEMPTS 3
#define DEFAULT_BACKOFF_INITIAL_MS 200
#define DEFAULT_BACKOFF_MAX_MS 5000
#define DEFAULT_RETRY_AFTER_MAX_MS 30000
#define DEFAULT_BODY_LIMIT ((size_t)16 << 20)

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_OK;

/* libcurl stays loaded for the rest of the process once initialised. It
 * is never cleaned up (below), so unloading it with this backend would
 * drop initialised global state (OpenSSL's included) without a cleanup,
 * and the next host in the process would map, relocate and initialise
 * libcurl's tree of some thirty libraries again. Marked RTLD_NODELETE on
 * the library that really holds curl_global_init (whatever its soname),
 * found with dladdr; the backend itself is still unloaded as usual. */
static void keep_curl_loaded(void) {
  CURLcode (*init)(long) = curl_global_init;
  void *addr;
  memcpy(&addr, &init, sizeof addr); /* dladdr takes an object pointer */
  Dl_info where;
  if (!dladdr(addr, &where) || !where.dli_fname) return;
  /* RTLD_NOLOAD: only the library already mapped; never a second one. The
   * reference this takes is kept on purpose. */
  (void)dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

/* The process-wide libcurl rule (http.h): initialised once, here, before
 * the first handle, and never cleaned up: the core and other backends in
 * the same process use libcurl too, and cleanup is not safe while they do. */
static void curl_init(void) {
  curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (curl_init_rc == CURLE_OK) keep_curl_loaded();
}

static int dup_opt(const char *in, char **out) {
  *out = NULL;
  if (!in) return 0;
  *out = strdup(in);
  return *out ? 0 : -1;
}

/* http:// or https://, a host, no credentials, nothing unprintable. */
static int base_url_ok(const char *url) {
  const char *rest = !strncmp(url, "https://", 8) ? url + 8 : !strncmp(url, "http://", 7) ? url + 7 : NULL;
  if (!rest || !*rest || *rest == '/') return 0;
  size_t authority = strcspn(rest, "/?#");
  if (memchr(rest, '@', authority)) return 0;
  for (const char *p = url; *p; p++)
    if ((unsigned char)*p <= 0x20 || *p == 0x7f) return 0;
  return 1;
}

/* "Name: value" on one line, with a token for a name. */
static int header_ok(const char *line) {
  const char *colon = line ? strchr(line, ':') : NULL;
  if (!colon || colon == line) return 0;
  for (const char *p = line; p < colon; p++)
    if ((unsigned char)*p <= 0x20 || *p == 0x7f) return 0;
  return strpbrk(colon, "\r\n") == NULL;
}

static int add_headers(sbio_sdk_http *c, const char *const *lines, size_t n, int secret, sbio_bk_error *err) {
  for (size_t i = 0; i < n; i++) {
    if (!header_ok(lines[i]))
      return sbio_sdk_error(err, SBIO_E_CONFIG, "fix the header lines given to sbio_sdk_http_new",
                            "%s: %sheader %zu is not one line of the form 'Name: value'", c->backend,
                            secret ? "secret " : "", i + 1);
    char *copy = strdup(lines[i]);
    if (!copy) return SBIO_E_INTERNAL;
    c->headers[c->n_headers++] = copy;
    if (secret) {
      const char *value = strchr(lines[i], ':') + 1;
      while (*value == ' ' || *value == '\t') value++;
      if (sbio_sdk_secrets_add(c->own_secrets, value) != 0) return SBIO_E_INTERNAL;
    }
  }
  return SBIO_OK;
}

static const long default_retry_statuses[] = {408, 500, 502, 503, 504};

static int copy_retry_statuses(sbio_sdk_http *c, const sbio_sdk_http_options *opt) {
  const long *from = opt->retry_statuses ? opt->retry_statuses : default_retry_statuses;
  size_t n =
      opt->retry_statuses ? opt->n_retry_statuses : sizeof default_retry_statuses / sizeof default_retry_statuses[0];
  c->retry_statuses = calloc(n + 1, sizeof *c->retry_statuses);
  if (!c->retry_statuses) return -1;
  memcpy(c->retry_statuses, from, n * sizeof *from);
  c->n_retry_statuses = n;
  return 0;
}

static int configure(sbio_sdk_http *c, const sbio_sdk_http_options *opt, sbio_bk_error *err) {
  if (dup_opt(opt->backend ? opt->backend : "backend", &c->backend)) return SBIO_E_INTERNAL;
  if (!opt->base_url || !base_url_ok(opt->base_url))
    return sbio_sdk_error(err, SBIO_E_CONFIG, "give an http:// or https:// URL with a host and without credentials",
                          "%s: the provider's base URL is not a valid http(s) URL", c->backend);
  char why[300];
  if (opt->loopback_http_only && sbio_sdk_url_check(opt->base_url, SBIO_SDK_URL_LOOPBACK_HTTP, why, sizeof why) != 0)
    return sbio_sdk_error(err, SBIO_E_CONFIG, "use https, or plain http only to this machine",
                          "%s: the provider's base URL is refused: %s", c->backend, why);
  char ua[128];
  snprintf(ua, sizeof ua, "sandboxio-backend-%s", c->backend);
  if (dup_opt(opt->base_url, &c->base_url) || dup_opt(opt->unix_socket, &c->unix_socket) ||
      dup_opt(opt->user_agent ? opt->user_agent : ua, &c->user_agent) || dup_opt(opt->ca_file, &c->ca_file) ||
      dup_opt(opt->credential_env, &c->credential_env))
    return SBIO_E_INTERNAL;
  size_t len = strlen(c->base_url);
  while (len > 0 && c->base_url[len - 1] == '/') c->base_url[--len] = '\0';
  c->own_secrets = sbio_sdk_secrets_new();
  c->headers = calloc(opt->n_headers + opt->n_secret_headers + 1, sizeof *c->headers);
  if (!c->own_secrets || !c->headers) return SBIO_E_INTERNAL;
  int rc = add_headers(c, opt->headers, opt->n_headers, 0, err);
  if (rc == SBIO_OK) rc = add_headers(c, opt->secret_headers, opt->n_secret_headers, 1, err);
  c->secrets = opt->secrets;
  c->host = opt->host;
  c->connect_timeout_ms = opt->connect_timeout_ms > 0 ? opt->connect_timeout_ms : DEFAULT_CONNECT_TIMEOUT_MS;
  c->max_attempts = opt->max_attempts > 0 ? opt->max_attempts : DEFAULT_MAX_ATTEMPTS;
  c->backoff_initial_ms = opt->backoff_initial_ms > 0 ? opt->backoff_initial_ms : DEFAULT_BACKOFF_INITIAL_MS;
  c->backoff_max_ms = opt->backoff_max_ms > 0 ? opt->backoff_max_ms : DEFAULT_BACKOFF_MAX_MS;
  c->retry_after_max_ms = opt->retry_after_max_ms > 0 ? opt->retry_after_max_ms : DEFAULT_RETRY_AFTER_MAX_MS;
  c->body_limit = opt->body_limit > 0 ? opt->body_limit : DEFAULT_BODY_LIMIT;
  if (rc == SBIO_OK) rc = sbio__http_transport_configure(c, opt);
  c->request_timeout_ms = opt->request_timeout_ms > 0 ? opt->request_timeout_ms : 0;
  if (rc == SBIO_OK && copy_retry_statuses(c, opt) != 0) rc = SBIO_E_INTERNAL;
  return rc;
}

int sbio_sdk_http_new(const sbio_sdk_http_options *opt, sbio_sdk_http **out, sbio_bk_error *err) {
  *out = NULL;
  const char *name = opt && opt->backend ? opt->backend : "backend";
  pthread_once(&curl_once, curl_init);
  if (curl_init_rc != CURLE_OK)
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "%s: libcurl failed to initialise: %s", name,
                          curl_easy_strerror(curl_init_rc));
  if (!opt) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "%s: no HTTP client options given", name);
  sbio_sdk_http *c = calloc(1, sizeof *c);
  if (!c) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "%s: out of memory creating the HTTP client", name);
  pthread_mutex_init(&c->lock, NULL);
  int rc = configure(c, opt, err);
  if (rc == SBIO_E_INTERNAL)
    sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "%s: out of memory creating the HTTP client", name);
  if (rc != SBIO_OK) {
    sbio_sdk_http_free(c);
    return rc;
  }
  *out = c;
  return SBIO_OK;
}

static void slot_free(http_slot *slot) {
  if (!slot) return;
  if (slot->easy) curl_easy_cleanup(slot->easy);
  if (slot->multi) curl_multi_cleanup(slot->multi);
  free(slot);
}

void sbio_sdk_http_free(sbio_sdk_http *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n_idle; i++) slot_free(c->idle[i]);
  for (size_t i = 0; i < c->n_headers; i++) {
    sbio__sdk_wipe(c->headers[i], strlen(c->headers[i]));
    free(c->headers[i]);
  }
  free(c->headers);
  sbio_sdk_secrets_free(c->own_secrets);
  free(c->backend);
  free(c->base_url);
  free(c->unix_socket);
  free(c->user_agent);
  free(c->ca_file);
  free(c->credential_env);
  sbio__http_transport_free(c);
  free(c->retry_statuses);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

http_slot *sbio__http_slot_take(sbio_sdk_http *c) {
  http_slot *slot = NULL;
  pthread_mutex_lock(&c->lock);
  if (c->n_idle) slot = c->idle[--c->n_idle];
  pthread_mutex_unlock(&c->lock);
  if (slot) return slot;
  slot = calloc(1, sizeof *slot);
  if (!slot) return NULL;
  slot->multi = curl_multi_init();
  slot->easy = curl_easy_init();
  if (!slot->multi || !slot->easy) {
    slot_free(slot);
    return NULL;
  }
  return slot;
}

void sbio__http_slot_give(sbio_sdk_http *c, http_slot *slot) {
  if (!slot) return;
  pthread_mutex_lock(&c->lock);
  if (c->n_idle < HTTP_POOL_SIZE) {
    c->idle[c->n_idle++] = slot;
    slot = NULL;
  }
  pthread_mutex_unlock(&c->lock);
  slot_free(slot); /* the pool is full */
}

char *sbio_sdk_http_path(const char *before, const char *value, const char *after) {
  char *esc = sbio_sdk_http_escape(value);
  if (!esc) return NULL;
  size_t n = strlen(before) + strlen(esc) + strlen(after) + 1;
  char *path = malloc(n);
  if (path) snprintf(path, n, "%s%s%s", before, esc, after);
  free(esc);
  return path;
}

char *sbio_sdk_http_escape(const char *text) {
  static const char hex[] = "0123456789ABCDEF";
  size_t len = strlen(text ? text : "");
  char *out = malloc(len * 3 + 1), *o = out;
  if (!out) return NULL;
  for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
    if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
        *p == '_' || *p == '~') {
      *o++ = (char)*p;
    } else {
      *o++ = '%';
      *o++ = hex[*p >> 4];
      *o++ = hex[*p & 15];
    }
  }
  *o = '\0';
  return out;
}

void sbio__http_one_line(char *s) {
  for (char *p = s; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
  size_t n = strlen(s);
  while (n && s[n - 1] == ' ') s[--n] = '\0';
}

static int never_cancelled(const sbio_bk_call *call) {
  (void)call;
  return 0;
}

void sbio_sdk_call_init(sbio_bk_call *call, const sbio_host_services *host, double seconds) {
  memset(call, 0, sizeof *call);
  call->size = sizeof *call;
  call->host = host;
  call->cancelled = never_cancelled;
  int64_t now = sbio__sdk_now_ns(call);
  double span = seconds > 0 ? seconds * 1e9 : 0;
  call->deadline_ns = span >= 9e18 - (double)now ? INT64_MAX : now + (int64_t)span;
}
