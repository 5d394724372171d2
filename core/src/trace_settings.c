/* SPDX-License-Identifier: MIT */
/* Span export settings. Precedence, most specific first:
 *   off:       OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none, or
 *              tracing.enabled: false in the configuration (a policy)
 *   endpoint:  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is),
 *              OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces),
 *              tracing.endpoint (+ /v1/traces),
 *              tracing.enabled: true alone (http://localhost:4318/v1/traces)
 *   headers:   tracing.headers, then OTEL_EXPORTER_OTLP_HEADERS, then
 *              OTEL_EXPORTER_OTLP_TRACES_HEADERS (a later one replaces a
 *              header of the same name)
 *   service:   OTEL_SERVICE_NAME, tracing.service_name, service.name in
 *              OTEL_RESOURCE_ATTRIBUTES, "unknown_service:PROGRAM"
 * Environment variables are read with secure_getenv: the environment of
 * whoever starts a set-user-ID program must not decide where its spans go. */
#include "trace_settings.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_ENDPOINT "http://localhost:4318"
#define TRACES_PATH "v1/traces"
#define DEFAULT_TIMEOUT_MS 10000
#define DEFAULT_SCHEDULE_DELAY_MS 5000
#define DEFAULT_MAX_QUEUE 2048
#define DEFAULT_MAX_BATCH 512
#define MAX_MS 600000 /* ten minutes: anything longer is a typo */
#define MAX_SPANS 1000000

typedef struct {
  sbio__warn_fn fn;
  void *user;
} warner;

static void warn(const warner *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(const warner *w, const char *fmt, ...) {
  if (!w->fn) return;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  w->fn(w->user, msg);
}

static const char *env(const char *name) {
  const char *v = secure_getenv(name);
  return v && v[0] ? v : NULL;
}

/* The port after the host of an authority (user-info already skipped):
 * empty (no ':'), or 1 to 65535 in digits. An IPv6 literal is bracketed. */
static const char *port_problem(const char *host, size_t len) {
  const char *end = host + len, *colon;
  if (*host == '[') {
    const char *close = memchr(host, ']', len);
    if (!close) return "the IPv6 address has no closing ']'";
    colon = close + 1 < end ? close + 1 : NULL;
    if (colon && *colon != ':') return "only a port may follow the IPv6 address";
  } else {
    colon = memchr(host, ':', len);
  }
  if (!colon) return NULL;
  size_t digits = (size_t)(end - colon - 1);
  if (digits == 0) return "the port after ':' is empty (give a number, or no ':' for the scheme's default)";
  long port = 0;
  for (const char *p = colon + 1; p < end; p++) {
    if (*p < '0' || *p > '9' || digits > 5) return "the port is not a number from 1 to 65535";
    port = port * 10 + (*p - '0');
  }
  return port >= 1 && port <= 65535 ? NULL : "the port is not a number from 1 to 65535";
}

const char *sbio__otlp_url_problem(const char *text) {
  const char *rest = !strncmp(text, "http://", 7) ? text + 7 : !strncmp(text, "https://", 8) ? text + 8 : NULL;
  if (!rest) return "not an http:// or https:// URL";
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    if (*p <= 0x20 || *p == 0x7f) return "it holds a space or a control character";
  if (!*rest || strchr("/?#:@", *rest)) return "there is no host after the scheme";
  size_t authority = strcspn(rest, "/?#");
  const char *at = memchr(rest, '@', authority);
  const char *host = at ? at + 1 : rest;
  size_t host_len = authority - (size_t)(host - rest);
  if (!host_len || *host == ':') return "there is no host after the scheme";
  return port_problem(host, host_len);
}

int sbio__otlp_url_valid(const char *text) {
  return sbio__otlp_url_problem(text) == NULL;
}

/* scheme://host[:port]/path: no user-info, query or fragment, which are
 * where credentials hide in a URL. */
static char *display_url(const char *url) {
  const char *host = strstr(url, "://") + 3;
  size_t scheme_len = (size_t)(host - url);
  size_t authority = strcspn(host, "/?#");
  const char *at = memchr(host, '@', authority);
  if (at) {
    authority -= (size_t)(at + 1 - host);
    host = at + 1;
  }
  size_t path = strcspn(host + authority, "?#");
  size_t n = scheme_len + authority + path;
  char *out = malloc(n + 1);
  if (!out) return NULL;
  memcpy(out, url, scheme_len);
  memcpy(out + scheme_len, host, authority + path);
  out[n] = '\0';
  return out;
}

/* base + "/v1/traces", in the path: a query string (or fragment) stays
 * after it ("http://h:4318/p?x=1" gives "http://h:4318/p/v1/traces?x=1"). */
static char *join_traces_path(const char *base) {
  size_t n = strcspn(base, "?#");
  const char *sep = n && base[n - 1] == '/' ? "" : "/";
  size_t size = strlen(base) + strlen(sep) + strlen(TRACES_PATH) + 1;
  char *out = malloc(size);
  if (out) snprintf(out, size, "%.*s%s%s%s", (int)n, base, sep, TRACES_PATH, base + n);
  return out;
}

/* A positive whole number of at most `max`; `fallback` with a warning
 * otherwise. The values are not secret, so the warning quotes them. */
static long env_number(const warner *w, const char *name, long fallback, long max) {
  const char *v = env(name);
  if (!v) return fallback;
  char *end = NULL;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (errno || end == v || *end || n <= 0 || n > max) {
    warn(w, "ignoring %s=\"%.32s\": not a whole number from 1 to %ld; using %ld", name, v, max, fallback);
    return fallback;
  }
  return n;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Percent-decodes [s, s+n) with surrounding spaces trimmed; NULL on OOM.
 * *bad is set when the result holds a control character (it would become
 * part of a header). */
static char *decode_trimmed(const char *s, size_t n, int *bad) {
  while (n && (*s == ' ' || *s == '\t')) s++, n--;
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    int hi, lo;
    if (s[i] == '%' && i + 2 < n && (hi = hex_digit(s[i + 1])) >= 0 && (lo = hex_digit(s[i + 2])) >= 0) {
      out[o++] = (char)(hi << 4 | lo);
      i += 2;
    } else {
      out[o++] = s[i];
    }
  }
  out[o] = '\0';
  for (size_t i = 0; i < o; i++) /* a decoded %00, %0d or %0a must not reach a header */
    if (((unsigned char)out[i] < 0x20 && out[i] != '\t') || out[i] == 0x7f) *bad = 1;
  return out;
}

/* Sets name to value, replacing a header of the same name in any case. */
static int set_header(sbio__kvlist *l, const char *name, const char *value) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcasecmp(l->keys[i], name)) return sbio__kvlist_set(l, l->keys[i], value);
  return sbio__kvlist_set(l, name, value);
}

static int valid_token(const char *s) {
  return *s && s[strspn(s, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")] == '\0';
}

/* "k1=v1,k2=v2" (the W3C baggage format the OTel variables use; values
 * percent-encoded). Entries that do not parse are skipped with a warning
 * naming the variable and the entry's position, never its value. For
 * headers, names must be HTTP tokens; for resource attributes, any
 * non-empty key. Returns 0, or -1 on out of memory. */
static int parse_pairs(const warner *w, const char *var, const char *text, sbio__kvlist *out, int headers) {
  size_t index = 0;
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, ",");
    const char *eq = memchr(p, '=', n);
    index++;
    int bad = 0;
    char *key = eq ? decode_trimmed(p, (size_t)(eq - p), &bad) : NULL;
    char *value = eq ? decode_trimmed(eq + 1, n - (size_t)(eq + 1 - p), &bad) : NULL;
    if (eq && (!key || !value)) {
      free(key);
      free(value);
      return -1;
    }
    int all_blank = n == strspn(p, " \t");
    if (!all_blank && (!eq || bad || !key[0] || (headers && !valid_token(key)))) {
      warn(w, "ignoring entry %zu of %s: not NAME=VALUE with a valid name (entries are separated by commas)", index,
           var);
    } else if (!all_blank && (headers ? set_header(out, key, value) : sbio__kvlist_set(out, key, value)) != 0) {
      free(key);
      free(value);
      return -1;
    }
    free(key);
    free(value);
    p += n;
    if (*p == ',') p++;
  }
  return 0;
}

/* Where spans go, or NULL with s->off_reason set. Returns 0 or -1 (OOM). */
static int pick_url(const warner *w, sbio__trace_settings *s, const sbio__config *cfg) {
  const char *signal = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const char *base = env("OTEL_EXPORTER_OTLP_ENDPOINT");
  const char *problem, *ignored = NULL;
  /* The reason names what is wrong, never the URL: it may carry a token. */
  if (signal && (problem = sbio__otlp_url_problem(signal))) {
    warn(w, "ignoring OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: %s", problem);
    signal = NULL;
    ignored = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not a usable URL (see its warning), and no other endpoint is "
              "configured";
  }
  if (base && (problem = sbio__otlp_url_problem(base))) {
    warn(w, "ignoring OTEL_EXPORTER_OTLP_ENDPOINT: %s", problem);
    base = NULL;
    ignored = "OTEL_EXPORTER_OTLP_ENDPOINT is not a usable URL (see its warning), and no other endpoint is configured";
  }
  if (signal) {
    s->url = strdup(signal);
  } else if (base) {
    s->url = join_traces_path(base);
  } else if (cfg->trace_endpoint) {
    s->url = join_traces_path(cfg->trace_endpoint);
  } else if (cfg->trace_enabled_set && cfg->trace_enabled) {
    s->url = join_traces_path(DEFAULT_ENDPOINT);
  } else {
    s->off_reason = ignored ? ignored : "no endpoint is configured (tracing.endpoint or OTEL_EXPORTER_OTLP_ENDPOINT)";
    return 0;
  }
  if (!s->url || !(s->display_url = display_url(s->url))) return -1;
  return 0;
}

static int is_off(const warner *w, sbio__trace_settings *s, const sbio__config *cfg) {
  const char *disabled = env("OTEL_SDK_DISABLED");
  if (disabled && !strcasecmp(disabled, "true")) {
    s->off_reason = "OTEL_SDK_DISABLED=true";
    return 1;
  }
  const char *exporter = env("OTEL_TRACES_EXPORTER");
  if (exporter && !strcasecmp(exporter, "none")) {
    s->off_reason = "OTEL_TRACES_EXPORTER=none";
    return 1;
  }
  if (exporter && strcasecmp(exporter, "otlp") != 0) {
    warn(w, "OTEL_TRACES_EXPORTER=\"%.32s\" is not supported (only otlp and none are); spans are not exported",
         exporter);
    s->off_reason = "OTEL_TRACES_EXPORTER names an exporter sandboxio does not have";
    return 1;
  }
  if (cfg->trace_enabled_set && !cfg->trace_enabled) {
    s->off_reason = "tracing.enabled is false in the configuration";
    return 1;
  }
  return 0;
}

static void check_protocol(const warner *w) {
  const char *names[] = {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"};
  for (size_t i = 0; i < 2; i++) {
    const char *v = env(names[i]);
    if (!v) continue;
    if (strcmp(v, "http/json") != 0)
      warn(w, "%s=\"%.32s\": sandboxio exports OTLP over HTTP with JSON encoding only; sending http/json", names[i], v);
    return; /* the signal-specific one, when set, decides */
  }
}

static int pick_service_name(sbio__trace_settings *s, const sbio__config *cfg) {
  const char *name = env("OTEL_SERVICE_NAME");
  if (!name) name = cfg->trace_service_name;
  if (!name) name = sbio__kvlist_get(&s->resource, "service.name");
  char fallback[300];
  if (!name) {
    snprintf(fallback, sizeof fallback, "unknown_service:%s", program_invocation_short_name);
    name = fallback;
  }
  return (s->service_name = strdup(name)) ? 0 : -1;
}

sbio_code sbio__trace_settings_load(sbio__trace_settings *s, const sbio__config *cfg, sbio__warn_fn warn_fn,
                                    void *user) {
  const warner w = {warn_fn, user};
  memset(s, 0, sizeof *s);
  s->timeout_ms = DEFAULT_TIMEOUT_MS;
  s->schedule_delay_ms = DEFAULT_SCHEDULE_DELAY_MS;
  s->max_queue = DEFAULT_MAX_QUEUE;
  s->max_batch = DEFAULT_MAX_BATCH;
  if (is_off(&w, s, cfg)) return SBIO_OK;
  if (pick_url(&w, s, cfg) != 0) goto oom;
  if (!s->url) return SBIO_OK;
  check_protocol(&w);
  for (size_t i = 0; i < cfg->n_trace_headers; i++)
    if (set_header(&s->headers, cfg->trace_header_names[i], cfg->trace_header_values[i]) != 0) goto oom;
  const char *header_vars[] = {"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"};
  for (size_t i = 0; i < 2; i++) {
    const char *v = env(header_vars[i]);
    if (v && parse_pairs(&w, header_vars[i], v, &s->headers, 1) != 0) goto oom;
  }
  const char *resource = env("OTEL_RESOURCE_ATTRIBUTES");
  if (resource && parse_pairs(&w, "OTEL_RESOURCE_ATTRIBUTES", resource, &s->resource, 0) != 0) goto oom;
  if (pick_service_name(s, cfg) != 0) goto oom;
  const char *timeout_var =
      env("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ? "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT" : "OTEL_EXPORTER_OTLP_TIMEOUT";
  s->timeout_ms = env_number(&w, timeout_var, DEFAULT_TIMEOUT_MS, MAX_MS);
  s->schedule_delay_ms = env_number(&w, "OTEL_BSP_SCHEDULE_DELAY", DEFAULT_SCHEDULE_DELAY_MS, MAX_MS);
  s->max_queue = (size_t)env_number(&w, "OTEL_BSP_MAX_QUEUE_SIZE", DEFAULT_MAX_QUEUE, MAX_SPANS);
  s->max_batch = (size_t)env_number(&w, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", DEFAULT_MAX_BATCH, MAX_SPANS);
  if (s->max_batch > s->max_queue) s->max_batch = s->max_queue;
  s->export_on = 1;
  return SBIO_OK;
oom:
  sbio__trace_settings_free(s);
  return SBIO_E_INTERNAL;
}

void sbio__trace_settings_free(sbio__trace_settings *s) {
  if (!s) return;
  free(s->url);
  free(s->display_url);
  free(s->service_name);
  sbio__kvlist_free(&s->headers);
  sbio__kvlist_free(&s->resource);
  memset(s, 0, sizeof *s);
}
