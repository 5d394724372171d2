/* SPDX-License-Identifier: MIT */
/* Checks an ExportTraceServiceRequest against the OTLP/JSON mapping: the
 * field names (lowerCamelCase, no unknown ones), hex trace and span ids of
 * the right length, 64-bit integers (timestamps, intValue) as decimal
 * strings, enums as numbers, and AnyValue holding exactly one typed
 * member. */
#ifndef SBIO_TEST_OTLP_CHECK_H
#define SBIO_TEST_OTLP_CHECK_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* 0 when valid; otherwise -1 and `why` says where and what. */
int otlp_check_request(const cJSON *doc, char *why, size_t size);

/* The attribute `key` of a span (or resource): its AnyValue, or NULL. */
const cJSON *otlp_attr(const cJSON *owner, const char *key);
/* Shorthands: the stringValue / intValue / boolValue, or NULL / -1. */
const char *otlp_attr_string(const cJSON *owner, const char *key);
long long otlp_attr_int(const cJSON *owner, const char *key, int *found);
int otlp_attr_bool(const cJSON *owner, const char *key); /* -1 when absent */
/* A span's string field ("name", "traceId", ...), or NULL. */
const char *otlp_field(const cJSON *span, const char *key);

#endif
