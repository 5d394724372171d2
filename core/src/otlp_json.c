/* SPDX-License-Identifier: MIT */
#include "otlp_json.h"

#include <sandboxio/sandboxio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPAN_KIND_INTERNAL 1 /* execute_tool spans are INTERNAL (GenAI semconv) */
#define STATUS_CODE_ERROR 2  /* success leaves the status UNSET, as instrumentation should */

typedef enum { ATTR_STRING, ATTR_INT, ATTR_BOOL, ATTR_STRING_ARRAY } attr_type;

/* Audit record field -> span attribute. All attribute names live here. */
static const struct {
  const char *field;
  const char *attribute;
  attr_type type;
} attribute_map[] = {
    {"backend", "sandboxio.backend", ATTR_STRING},
    {"tier", "sandboxio.isolation", ATTR_STRING},
    {"claimed_tier", "sandboxio.isolation.claimed", ATTR_STRING},
    {"required_tier", "sandboxio.isolation.required", ATTR_STRING},
    {"source_url", "sandboxio.isolation.source_url", ATTR_STRING},
    {"verified_on", "sandboxio.isolation.verified_on", ATTR_STRING},
    {"mechanism", "sandboxio.mechanism", ATTR_STRING},
    {"sandbox_id", "sandboxio.sandbox.id", ATTR_STRING},
    {"tenant_id", "sandboxio.tenant_id", ATTR_STRING},
    {"session_id", "sandboxio.session_id", ATTR_STRING},
    {"session", "sandboxio.host.session", ATTR_STRING},
    {"template", "sandboxio.template", ATTR_STRING},
    {"argv", "sandboxio.argv", ATTR_STRING_ARRAY},
    {"shell", "sandboxio.shell", ATTR_BOOL},
    {"exit_code", "sandboxio.exit_code", ATTR_INT},
    {"duration_ms", "sandboxio.duration_ms", ATTR_INT},
    {"bytes_in", "sandboxio.bytes_in", ATTR_INT},
    {"bytes_out", "sandboxio.bytes_out", ATTR_INT},
    {"killed", "sandboxio.killed", ATTR_BOOL},
    {"outcome", "sandboxio.outcome", ATTR_STRING},
    {"error_code", "sandboxio.error.code", ATTR_STRING},
};

static const char *const operations[] = {
    "create_denied", "created",        "create_failed", "exec",           "file_read",
    "file_write",    "file_list",      "file_mkdir",    "file_remove",    "kill",
    "kill_managed",  "connect_denied", "connected",     "connect_failed", NULL};

int sbio__otlp_is_operation(const char *event) {
  for (size_t i = 0; event && operations[i]; i++)
    if (!strcmp(event, operations[i])) return 1;
  return 0;
}

/* {"key":K,"value":{TYPE:V}}; the value object is returned to fill. */
static cJSON *add_attribute(cJSON *attributes, const char *key) {
  cJSON *kv = cJSON_CreateObject();
  cJSON *value = kv ? cJSON_CreateObject() : NULL;
  if (!value || !cJSON_AddStringToObject(kv, "key", key) || !cJSON_AddItemToObject(kv, "value", value)) {
    cJSON_Delete(value);
    cJSON_Delete(kv);
    return NULL;
  }
  if (!cJSON_AddItemToArray(attributes, kv)) {
    cJSON_Delete(kv);
    return NULL;
  }
  return value;
}

static int add_string(cJSON *attributes, const char *key, const char *s) {
  cJSON *v = add_attribute(attributes, key);
  return v && cJSON_AddStringToObject(v, "stringValue", s) ? 0 : -1;
}

static int add_int(cJSON *attributes, const char *key, long long n) {
  char text[32];
  snprintf(text, sizeof text, "%lld", n);
  cJSON *v = add_attribute(attributes, key);
  return v && cJSON_AddStringToObject(v, "intValue", text) ? 0 : -1;
}

static int add_bool(cJSON *attributes, const char *key, int b) {
  cJSON *v = add_attribute(attributes, key);
  return v && cJSON_AddBoolToObject(v, "boolValue", b) ? 0 : -1;
}

static int add_string_array(cJSON *attributes, const char *key, const cJSON *array) {
  cJSON *v = add_attribute(attributes, key);
  cJSON *arr = v ? cJSON_AddObjectToObject(v, "arrayValue") : NULL;
  cJSON *values = arr ? cJSON_AddArrayToObject(arr, "values") : NULL;
  if (!values) return -1;
  const cJSON *item;
  cJSON_ArrayForEach(item, array) {
    if (!cJSON_IsString(item)) continue;
    cJSON *entry = cJSON_CreateObject();
    if (!entry || !cJSON_AddStringToObject(entry, "stringValue", item->valuestring) ||
        !cJSON_AddItemToArray(values, entry)) {
      cJSON_Delete(entry);
      return -1;
    }
  }
  return 0;
}

/* One record field as an attribute; absent and null fields are omitted. */
static int map_field(cJSON *attributes, const cJSON *record, size_t i) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(record, attribute_map[i].field);
  const char *key = attribute_map[i].attribute;
  if (!f || cJSON_IsNull(f)) return 0;
  switch (attribute_map[i].type) {
  case ATTR_STRING:
    return cJSON_IsString(f) ? add_string(attributes, key, f->valuestring) : 0;
  case ATTR_INT:
    return cJSON_IsNumber(f) ? add_int(attributes, key, (long long)f->valuedouble) : 0;
  case ATTR_BOOL:
    if (cJSON_IsBool(f)) return add_bool(attributes, key, cJSON_IsTrue(f));
    return cJSON_IsNumber(f) ? add_bool(attributes, key, f->valuedouble != 0) : 0;
  case ATTR_STRING_ARRAY:
    return cJSON_IsArray(f) ? add_string_array(attributes, key, f) : 0;
  }
  return 0;
}

static const char *record_string(const cJSON *record, const char *key) {
  const cJSON *f = cJSON_GetObjectItemCaseSensitive(record, key);
  return cJSON_IsString(f) ? f->valuestring : NULL;
}

/* error.type: the catalogue class ("ExecutionTimeout") of the record's
 * error code, low-cardinality as the conventions ask; "_OTHER" when the
 * record has none. */
static const char *error_type(const cJSON *record) {
  const char *code = record_string(record, "error_code");
  if (code && !strncmp(code, "SBX_E", 5)) {
    const char *cls = sbio_code_class((sbio_code)atoi(code + 5));
    if (cls) return cls;
  }
  return "_OTHER";
}

static int add_time(cJSON *span, const char *key, int64_t ns) {
  char text[32];
  snprintf(text, sizeof text, "%lld", (long long)(ns < 0 ? 0 : ns));
  return cJSON_AddStringToObject(span, key, text) ? 0 : -1;
}

static int add_hex(cJSON *span, const char *key, const unsigned char *bytes, size_t n) {
  char hex[2 * SBIO__TRACE_ID_BYTES + 1];
  sbio__hex_encode(bytes, n, hex);
  return cJSON_AddStringToObject(span, key, hex) ? 0 : -1;
}

static int fill_span(cJSON *span, const cJSON *record, const sbio__span_ids *ids, int64_t start, int64_t end) {
  const char *event = record_string(record, "event");
  if (!event) event = "unknown";
  char name[96];
  snprintf(name, sizeof name, "execute_tool %s", event);
  if (add_hex(span, "traceId", ids->trace_id, sizeof ids->trace_id) ||
      add_hex(span, "spanId", ids->span_id, sizeof ids->span_id) ||
      (ids->has_parent && add_hex(span, "parentSpanId", ids->parent_id, sizeof ids->parent_id)) ||
      !cJSON_AddStringToObject(span, "name", name) || !cJSON_AddNumberToObject(span, "kind", SPAN_KIND_INTERNAL) ||
      add_time(span, "startTimeUnixNano", start) || add_time(span, "endTimeUnixNano", end < start ? start : end))
    return -1;
  cJSON *attributes = cJSON_AddArrayToObject(span, "attributes");
  if (!attributes || add_string(attributes, "gen_ai.operation.name", "execute_tool") ||
      add_string(attributes, "gen_ai.tool.name", event))
    return -1;
  for (size_t i = 0; i < sizeof attribute_map / sizeof *attribute_map; i++)
    if (map_field(attributes, record, i) != 0) return -1;
  const char *outcome = record_string(record, "outcome");
  if (outcome && !strcmp(outcome, "error")) {
    if (add_string(attributes, "error.type", error_type(record))) return -1;
    const char *message = record_string(record, "error");
    cJSON *status = cJSON_AddObjectToObject(span, "status");
    if (!status || !cJSON_AddNumberToObject(status, "code", STATUS_CODE_ERROR) ||
        !cJSON_AddStringToObject(status, "message", message ? message : event))
      return -1;
  }
  return 0;
}

cJSON *sbio__otlp_span(const cJSON *record, const sbio__span_ids *ids, int64_t start_unix_ns, int64_t end_unix_ns) {
  cJSON *span = cJSON_CreateObject();
  if (span && fill_span(span, record, ids, start_unix_ns, end_unix_ns) != 0) {
    cJSON_Delete(span);
    return NULL;
  }
  return span;
}

static cJSON *resource_object(const char *service_name, const sbio__kvlist *extra) {
  cJSON *resource = cJSON_CreateObject();
  cJSON *attributes = resource ? cJSON_AddArrayToObject(resource, "attributes") : NULL;
  int bad = !attributes || add_string(attributes, "service.name", service_name) ||
            add_string(attributes, "telemetry.sdk.name", "sandboxio") ||
            add_string(attributes, "telemetry.sdk.version", sbio_version());
  /* A key appears once. service.name was chosen by precedence (it may come
   * from these attributes); the telemetry.sdk.* keys say which code made
   * the spans, so OTEL_RESOURCE_ATTRIBUTES does not restate them. */
  static const char *const own[] = {"service.name", "telemetry.sdk.name", "telemetry.sdk.version", NULL};
  for (size_t i = 0; !bad && extra && i < extra->n; i++) {
    int ours = 0;
    for (size_t k = 0; own[k] && !ours; k++) ours = !strcmp(extra->keys[i], own[k]);
    if (!ours) bad = add_string(attributes, extra->keys[i], extra->values[i]);
  }
  if (bad) {
    cJSON_Delete(resource);
    return NULL;
  }
  return resource;
}

char *sbio__otlp_request(cJSON *const *spans, size_t n, const char *service_name, const sbio__kvlist *resource) {
  cJSON *doc = cJSON_CreateObject();
  cJSON *resource_spans = doc ? cJSON_AddArrayToObject(doc, "resourceSpans") : NULL;
  cJSON *rs = resource_spans ? cJSON_CreateObject() : NULL;
  char *text = NULL;
  if (!rs || !cJSON_AddItemToArray(resource_spans, rs)) {
    cJSON_Delete(rs);
    goto out;
  }
  cJSON *res = resource_object(service_name, resource);
  if (!res || !cJSON_AddItemToObject(rs, "resource", res)) {
    cJSON_Delete(res);
    goto out;
  }
  cJSON *scope_spans = cJSON_AddArrayToObject(rs, "scopeSpans");
  cJSON *ss = scope_spans ? cJSON_CreateObject() : NULL;
  if (!ss || !cJSON_AddItemToArray(scope_spans, ss)) {
    cJSON_Delete(ss);
    goto out;
  }
  cJSON *scope = cJSON_AddObjectToObject(ss, "scope");
  cJSON *list =
      scope && cJSON_AddStringToObject(scope, "name", "sandboxio") &&
              cJSON_AddStringToObject(scope, "version", sbio_version()) &&
              cJSON_AddStringToObject(ss, "schemaUrl", "https://opentelemetry.io/schemas/" SBIO__OTEL_SEMCONV_VERSION)
          ? cJSON_AddArrayToObject(ss, "spans")
          : NULL;
  if (!list) goto out;
  /* References: the spans stay owned by the queue, no deep copy. */
  for (size_t i = 0; i < n; i++)
    if (!cJSON_AddItemReferenceToArray(list, spans[i])) goto out;
  text = cJSON_PrintUnformatted(doc);
out:
  cJSON_Delete(doc);
  return text;
}
