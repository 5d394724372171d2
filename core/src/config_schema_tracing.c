/* SPDX-License-Identifier: MIT */
/* The `tracing` section of the configuration: OTLP/HTTP span export
 * (docs/tracing.md). Endpoints and header values may carry credentials, so
 * messages about them never echo the value. */
#include "config_check.h"
#include "config_schema.h"
#include "trace_settings.h"

#include <stdlib.h>
#include <string.h>

/* What is wrong with an endpoint, or NULL: the URL rules of the exporter
 * (trace_settings.h), and no user-info (a credential in a file that anyone
 * with read access sees). */
static const char *endpoint_problem(const char *s) {
  const char *problem = sbio__otlp_url_problem(s);
  if (problem) return problem;
  const char *rest = strstr(s, "://") + 3;
  if (memchr(rest, '@', strcspn(rest, "/?#"))) return "it has a user name or password";
  return NULL;
}

/* An HTTP field name: RFC 9110 token characters. */
static int valid_header_name(const char *s) {
  return *s && s[strspn(s, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")] == '\0';
}

/* A field value without CR, LF or other controls (tab allowed): nothing
 * that could start a second header or end the request head. */
static int valid_header_value(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p < 0x20 && *p != '\t') || *p == 0x7f) return 0;
  return 1;
}

/* Header values are typically credentials: messages name the header and
 * the kind of the value, never the value. */
static sbio_code read_tracing_headers(const sbio__config_src *ctx, const sbio__config_node *value,
                                      sbio__config_layer *l) {
  const sbio__config_node *map;
  sbio_code rc = sbio__config_expect_section(ctx, "headers", value, &map);
  if (rc) return rc;
  l->v.trace_headers_set = 1;
  size_t n = map ? map->n_items / 2 : 0;
  if (!n) return SBIO_OK;
  l->v.trace_header_names = calloc(n, sizeof *l->v.trace_header_names);
  l->v.trace_header_values = calloc(n, sizeof *l->v.trace_header_values);
  if (!l->v.trace_header_names || !l->v.trace_header_values) return sbio__config_fail_oom(ctx);
  l->v.n_trace_headers = n; /* counted now so a partial list is freed on error */
  for (size_t i = 0; i < n; i++) {
    const sbio__config_node *k = map->items[2 * i], *v = map->items[2 * i + 1];
    char q[SBIO__QUOTE_BUF];
    if (!valid_header_name(k->text))
      return sbio__config_fail_node(ctx, k, "invalid HTTP header name %s in tracing.headers",
                                    sbio__config_quote(k->text, q, sizeof q));
    if (v->kind != SBIO__NODE_SCALAR || (!v->quoted && v->type == SBIO__SCALAR_NULL))
      return sbio__config_fail_node(ctx, v, "header \"%s\" in tracing.headers must be a string, not %s", k->text,
                                    sbio__config_describe_kind(v));
    if (!valid_header_value(v->text))
      return sbio__config_fail_node(ctx, v, "header \"%s\" in tracing.headers holds a line break or control character",
                                    k->text);
    if (!(l->v.trace_header_names[i] = strdup(k->text)) || !(l->v.trace_header_values[i] = strdup(v->text)))
      return sbio__config_fail_oom(ctx);
  }
  return SBIO_OK;
}

sbio_code sbio__config_read_tracing(const sbio__config_src *ctx, const sbio__config_node *value,
                                    sbio__config_layer *l) {
  static const char *const keys[] = {"enabled", "endpoint", "headers", "service_name", NULL};
  const sbio__config_node *map;
  sbio_code rc = sbio__config_expect_section(ctx, "tracing", value, &map);
  for (size_t i = 0; !rc && map && i < map->n_items; i += 2) {
    const sbio__config_node *k = map->items[i], *v = map->items[i + 1];
    if (!strcmp(k->text, "enabled")) {
      rc = sbio__config_expect_bool(ctx, "enabled", v, &l->v.trace_enabled);
      l->v.trace_enabled_set = !rc;
    } else if (!strcmp(k->text, "endpoint")) {
      /* Only the kind and the problem in the message: a URL may carry a
       * token. */
      const char *problem = v->kind != SBIO__NODE_SCALAR ? "" : endpoint_problem(v->text);
      if (problem)
        rc = sbio__config_fail_node(
            ctx, v,
            "\"endpoint\" must be an http:// or https:// URL with a host and no user name or password "
            "(like http://localhost:4318); got %s that is not%s%s",
            sbio__config_describe_kind(v), problem[0] ? ": " : "", problem);
      else if (!(l->v.trace_endpoint = strdup(v->text)))
        rc = sbio__config_fail_oom(ctx);
    } else if (!strcmp(k->text, "headers")) {
      rc = read_tracing_headers(ctx, v, l);
    } else if (!strcmp(k->text, "service_name")) {
      char d[SBIO__QUOTE_BUF];
      if (v->kind != SBIO__NODE_SCALAR || (!v->quoted && v->type != SBIO__SCALAR_STRING) || !v->text[0] ||
          !valid_header_value(v->text))
        rc = sbio__config_fail_node(ctx, v, "\"service_name\" must be a non-empty string, not %s",
                                    sbio__config_describe(v, d, sizeof d));
      else if (!(l->v.trace_service_name = strdup(v->text)))
        rc = sbio__config_fail_oom(ctx);
    } else {
      rc = sbio__config_unknown_key(ctx, k, "tracing", keys);
    }
  }
  return rc;
}
