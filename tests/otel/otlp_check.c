/* SPDX-License-Identifier: MIT */
/* OTLP/JSON checker; see otlp_check.h. Field sets follow the protobuf
 * definitions of opentelemetry-proto (trace/v1, common/v1, resource/v1)
 * in their JSON (lowerCamelCase) spelling. */
#include "otlp_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *why;
  size_t size;
} ctx;

static int bad(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->why, c->size, fmt, ap);
  va_end(ap);
  return -1;
}

/* Every member of obj is one of `allowed` (NULL-terminated). */
static int only_fields(ctx *c, const cJSON *obj, const char *where, const char *const *allowed) {
  if (!cJSON_IsObject(obj)) return bad(c, "%s is not an object", where);
  const cJSON *m;
  cJSON_ArrayForEach(m, obj) {
    int known = 0;
    for (size_t i = 0; allowed[i] && !known; i++) known = !strcmp(m->string, allowed[i]);
    if (!known) return bad(c, "%s has a field \"%s\" that OTLP/JSON does not define", where, m->string);
  }
  return 0;
}

static int is_hex(const char *s, size_t len) {
  if (strlen(s) != len) return 0;
  int nonzero = 0;
  for (size_t i = 0; i < len; i++) {
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
    nonzero |= s[i] != '0';
  }
  return nonzero; /* all-zero ids are invalid */
}

/* A 64-bit integer in OTLP/JSON: a decimal string (optionally signed). */
static int is_int64_string(const cJSON *v, int allow_sign) {
  if (!cJSON_IsString(v)) return 0;
  const char *s = v->valuestring;
  if (allow_sign && *s == '-') s++;
  if (!*s || strlen(s) > 19) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

static int check_any_value(ctx *c, const cJSON *v, const char *where, int depth);

static int check_key_values(ctx *c, const cJSON *arr, const char *where, int depth) {
  static const char *const kv_fields[] = {"key", "value", NULL};
  if (!cJSON_IsArray(arr)) return bad(c, "%s is not an array", where);
  const cJSON *kv;
  int i = 0;
  cJSON_ArrayForEach(kv, arr) {
    char here[256];
    snprintf(here, sizeof here, "%s[%d]", where, i++);
    if (only_fields(c, kv, here, kv_fields)) return -1;
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(kv, "key");
    if (!cJSON_IsString(key) || !key->valuestring[0]) return bad(c, "%s.key is not a non-empty string", here);
    const cJSON *value = cJSON_GetObjectItemCaseSensitive(kv, "value");
    if (!value) return bad(c, "%s (%s) has no value", here, key->valuestring);
    snprintf(here + strlen(here), sizeof here - strlen(here), "(%s).value", key->valuestring);
    if (check_any_value(c, value, here, depth + 1)) return -1;
  }
  return 0;
}

static int check_any_value(ctx *c, const cJSON *v, const char *where, int depth) {
  static const char *const any_fields[] = {"stringValue", "boolValue",   "intValue",   "doubleValue",
                                           "arrayValue",  "kvlistValue", "bytesValue", NULL};
  if (depth > 16) return bad(c, "%s nests too deep", where);
  if (only_fields(c, v, where, any_fields)) return -1;
  if (cJSON_GetArraySize(v) != 1) return bad(c, "%s must hold exactly one typed value", where);
  const cJSON *m = v->child;
  char here[300];
  if (!strcmp(m->string, "stringValue") && !cJSON_IsString(m)) return bad(c, "%s.stringValue is not a string", where);
  if (!strcmp(m->string, "boolValue") && !cJSON_IsBool(m)) return bad(c, "%s.boolValue is not a boolean", where);
  if (!strcmp(m->string, "intValue") && !is_int64_string(m, 1))
    return bad(c, "%s.intValue is not a decimal string (64-bit integers are strings in OTLP/JSON)", where);
  if (!strcmp(m->string, "doubleValue") && !cJSON_IsNumber(m)) return bad(c, "%s.doubleValue is not a number", where);
  if (!strcmp(m->string, "bytesValue") && !cJSON_IsString(m)) return bad(c, "%s.bytesValue is not base64", where);
  if (!strcmp(m->string, "arrayValue")) {
    static const char *const arr_fields[] = {"values", NULL};
    snprintf(here, sizeof here, "%s.arrayValue", where);
    if (only_fields(c, m, here, arr_fields)) return -1;
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(m, "values"), *e;
    if (values && !cJSON_IsArray(values)) return bad(c, "%s.values is not an array", here);
    int i = 0;
    cJSON_ArrayForEach(e, values) {
      char item[340];
      snprintf(item, sizeof item, "%s.values[%d]", here, i++);
      if (check_any_value(c, e, item, depth + 1)) return -1;
    }
  }
  if (!strcmp(m->string, "kvlistValue")) {
    static const char *const kvl_fields[] = {"values", NULL};
    snprintf(here, sizeof here, "%s.kvlistValue", where);
    if (only_fields(c, m, here, kvl_fields)) return -1;
    const cJSON *values = cJSON_GetObjectItemCaseSensitive(m, "values");
    if (values && check_key_values(c, values, here, depth + 1)) return -1;
  }
  return 0;
}

static int check_span(ctx *c, const cJSON *span, const char *where) {
  static const char *const span_fields[] = {"traceId",
                                            "spanId",
                                            "traceState",
                                            "parentSpanId",
                                            "flags",
                                            "name",
                                            "kind",
                                            "startTimeUnixNano",
                                            "endTimeUnixNano",
                                            "attributes",
                                            "droppedAttributesCount",
                                            "events",
                                            "droppedEventsCount",
                                            "links",
                                            "droppedLinksCount",
                                            "status",
                                            NULL};
  if (only_fields(c, span, where, span_fields)) return -1;
  const cJSON *trace_id = cJSON_GetObjectItemCaseSensitive(span, "traceId");
  const cJSON *span_id = cJSON_GetObjectItemCaseSensitive(span, "spanId");
  const cJSON *parent = cJSON_GetObjectItemCaseSensitive(span, "parentSpanId");
  if (!cJSON_IsString(trace_id) || !is_hex(trace_id->valuestring, 32))
    return bad(c, "%s.traceId is not 32 lower-case hex digits (not all zero)", where);
  if (!cJSON_IsString(span_id) || !is_hex(span_id->valuestring, 16))
    return bad(c, "%s.spanId is not 16 lower-case hex digits (not all zero)", where);
  if (parent && (!cJSON_IsString(parent) || !is_hex(parent->valuestring, 16)))
    return bad(c, "%s.parentSpanId is not 16 lower-case hex digits", where);
  const cJSON *name = cJSON_GetObjectItemCaseSensitive(span, "name");
  if (!cJSON_IsString(name) || !name->valuestring[0]) return bad(c, "%s.name is not a non-empty string", where);
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(span, "kind");
  if (kind && (!cJSON_IsNumber(kind) || kind->valuedouble < 0 || kind->valuedouble > 5 ||
               kind->valuedouble != (int)kind->valuedouble))
    return bad(c, "%s.kind is not a SpanKind number 0..5", where);
  const cJSON *start = cJSON_GetObjectItemCaseSensitive(span, "startTimeUnixNano");
  const cJSON *end = cJSON_GetObjectItemCaseSensitive(span, "endTimeUnixNano");
  if (!is_int64_string(start, 0) || !is_int64_string(end, 0))
    return bad(c, "%s start/endTimeUnixNano are not decimal strings of nanoseconds", where);
  unsigned long long s = strtoull(start->valuestring, NULL, 10), e = strtoull(end->valuestring, NULL, 10);
  if (s < 1000000000000000000ULL) return bad(c, "%s.startTimeUnixNano %llu is not in nanoseconds since 1970", where, s);
  if (e < s) return bad(c, "%s ends before it starts", where);
  const cJSON *attrs = cJSON_GetObjectItemCaseSensitive(span, "attributes");
  char here[300];
  if (snprintf(here, sizeof here, "%s.attributes", where) >= (int)sizeof here) return bad(c, "JSON path too long at %s", where);
  if (attrs && check_key_values(c, attrs, here, 0)) return -1;
  const cJSON *status = cJSON_GetObjectItemCaseSensitive(span, "status");
  if (status) {
    static const char *const status_fields[] = {"message", "code", NULL};
    if (snprintf(here, sizeof here, "%s.status", where) >= (int)sizeof here) return bad(c, "JSON path too long at %s", where);
    if (only_fields(c, status, here, status_fields)) return -1;
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(status, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(status, "message");
    if (code && (!cJSON_IsNumber(code) || code->valuedouble < 0 || code->valuedouble > 2))
      return bad(c, "%s.code is not a StatusCode number 0..2", here);
    if (msg && !cJSON_IsString(msg)) return bad(c, "%s.message is not a string", here);
  }
  return 0;
}

int otlp_check_request(const cJSON *doc, char *why, size_t size) {
  static const char *const top_fields[] = {"resourceSpans", NULL};
  static const char *const rs_fields[] = {"resource", "scopeSpans", "schemaUrl", NULL};
  static const char *const res_fields[] = {"attributes", "droppedAttributesCount", NULL};
  static const char *const ss_fields[] = {"scope", "spans", "schemaUrl", NULL};
  static const char *const scope_fields[] = {"name", "version", "attributes", "droppedAttributesCount", NULL};
  ctx c = {why, size};
  if (only_fields(&c, doc, "request", top_fields)) return -1;
  const cJSON *rss = cJSON_GetObjectItemCaseSensitive(doc, "resourceSpans"), *rs;
  if (!cJSON_IsArray(rss) || !cJSON_GetArraySize(rss)) return bad(&c, "resourceSpans is not a non-empty array");
  int i = 0;
  cJSON_ArrayForEach(rs, rss) {
    char where[200];
    snprintf(where, sizeof where, "resourceSpans[%d]", i++);
    if (only_fields(&c, rs, where, rs_fields)) return -1;
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(rs, "resource");
    char here[300];
    snprintf(here, sizeof here, "%s.resource", where);
    if (res && only_fields(&c, res, here, res_fields)) return -1;
    const cJSON *res_attrs = res ? cJSON_GetObjectItemCaseSensitive(res, "attributes") : NULL;
    snprintf(here, sizeof here, "%s.resource.attributes", where);
    if (res_attrs && check_key_values(&c, res_attrs, here, 0)) return -1;
    const cJSON *sss = cJSON_GetObjectItemCaseSensitive(rs, "scopeSpans"), *ss;
    if (!cJSON_IsArray(sss)) return bad(&c, "%s.scopeSpans is not an array", where);
    int j = 0;
    cJSON_ArrayForEach(ss, sss) {
      char sw[260];
      snprintf(sw, sizeof sw, "%s.scopeSpans[%d]", where, j++);
      if (only_fields(&c, ss, sw, ss_fields)) return -1;
      const cJSON *scope = cJSON_GetObjectItemCaseSensitive(ss, "scope");
      snprintf(here, sizeof here, "%s.scope", sw);
      if (scope && only_fields(&c, scope, here, scope_fields)) return -1;
      const cJSON *spans = cJSON_GetObjectItemCaseSensitive(ss, "spans"), *span;
      if (!cJSON_IsArray(spans)) return bad(&c, "%s.spans is not an array", sw);
      int k = 0;
      cJSON_ArrayForEach(span, spans) {
        snprintf(here, sizeof here, "%s.spans[%d]", sw, k++);
        if (check_span(&c, span, here)) return -1;
      }
    }
  }
  return 0;
}

const cJSON *otlp_attr(const cJSON *owner, const char *key) {
  const cJSON *kv;
  cJSON_ArrayForEach(kv, cJSON_GetObjectItemCaseSensitive(owner, "attributes")) {
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(kv, "key");
    if (cJSON_IsString(k) && !strcmp(k->valuestring, key)) return cJSON_GetObjectItemCaseSensitive(kv, "value");
  }
  return NULL;
}

const char *otlp_attr_string(const cJSON *owner, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(otlp_attr(owner, key), "stringValue");
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

long long otlp_attr_int(const cJSON *owner, const char *key, int *found) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(otlp_attr(owner, key), "intValue");
  if (found) *found = cJSON_IsString(v);
  return cJSON_IsString(v) ? strtoll(v->valuestring, NULL, 10) : -1;
}

int otlp_attr_bool(const cJSON *owner, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(otlp_attr(owner, key), "boolValue");
  return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

const char *otlp_field(const cJSON *span, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(span, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}
