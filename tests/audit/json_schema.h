/* SPDX-License-Identifier: MIT */
/* A validator for the subset of JSON Schema (2020-12) that
 * docs/audit.schema.json uses: type, enum, const, pattern (POSIX extended
 * regular expressions, which the schema's patterns stay within),
 * minLength, minimum, required, properties, additionalProperties, items,
 * allOf, if/then/else and local $ref into $defs. A schema keyword outside
 * this subset is an error, never silently ignored, so the tests cannot
 * pass on a rule nobody checked. */
#ifndef SBIO_TEST_JSON_SCHEMA_H
#define SBIO_TEST_JSON_SCHEMA_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* 0 when instance is valid. Otherwise -1 and `why` names the JSON path
 * and the rule. With `strict`, a property of the top-level object that the
 * schema's `properties` does not declare is an error too (the published
 * schema allows them so readers keep working when fields are added; the
 * tests use strict mode so that every field the library emits is
 * documented). */
int json_schema_validate(const cJSON *schema, const cJSON *instance, int strict, char *why, size_t size);

#endif
