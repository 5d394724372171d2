/* SPDX-License-Identifier: MIT */
/* JSON Schema subset validator; see json_schema.h. */
#include "json_schema.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const cJSON *root; /* for $ref */
  int strict;
  char *why;
  size_t size;
} ctx;

static int fail(ctx *c, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(ctx *c, const char *path, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(c->why, c->size, "%s: %s", path[0] ? path : "$", msg);
  return -1;
}

static const char *type_of(const cJSON *v) {
  if (cJSON_IsNull(v)) return "null";
  if (cJSON_IsBool(v)) return "boolean";
  if (cJSON_IsNumber(v)) return v->valuedouble == floor(v->valuedouble) ? "integer" : "number";
  if (cJSON_IsString(v)) return "string";
  if (cJSON_IsArray(v)) return "array";
  return "object";
}

static int has_type(const cJSON *v, const char *type) {
  const char *t = type_of(v);
  return !strcmp(t, type) || (!strcmp(type, "number") && !strcmp(t, "integer"));
}

static int equal(const cJSON *a, const cJSON *b) {
  return cJSON_Compare(a, b, 1);
}

static int validate(ctx *c, const cJSON *schema, const cJSON *v, const char *path);

static const cJSON *resolve_ref(ctx *c, const char *ref) {
  if (strncmp(ref, "#/$defs/", 8) != 0) return NULL;
  return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c->root, "$defs"), ref + 8);
}

static int check_type(ctx *c, const cJSON *type, const cJSON *v, const char *path) {
  if (cJSON_IsString(type)) {
    if (has_type(v, type->valuestring)) return 0;
    return fail(c, path, "is %s, not %s", type_of(v), type->valuestring);
  }
  const cJSON *t;
  cJSON_ArrayForEach(t, type) if (cJSON_IsString(t) && has_type(v, t->valuestring)) return 0;
  char *list = cJSON_PrintUnformatted(type);
  int rc = fail(c, path, "is %s, not one of %s", type_of(v), list ? list : "the types");
  cJSON_free(list);
  return rc;
}

static int check_enum(ctx *c, const cJSON *choices, const cJSON *v, const char *path) {
  const cJSON *e;
  cJSON_ArrayForEach(e, choices) if (equal(e, v)) return 0;
  char *text = cJSON_PrintUnformatted(v);
  int rc = fail(c, path, "value %.80s is not in the enum", text ? text : "?");
  cJSON_free(text);
  return rc;
}

static int check_pattern(ctx *c, const char *pattern, const char *s, const char *path) {
  regex_t re;
  if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) return fail(c, path, "bad pattern %s", pattern);
  int ok = regexec(&re, s, 0, NULL, 0) == 0;
  regfree(&re);
  return ok ? 0 : fail(c, path, "\"%.80s\" does not match %s", s, pattern);
}

static int check_object(ctx *c, const cJSON *schema, const cJSON *v, const char *path) {
  const cJSON *required = cJSON_GetObjectItemCaseSensitive(schema, "required");
  const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
  const cJSON *additional = cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
  const cJSON *r, *m;
  cJSON_ArrayForEach(r, required) {
    if (!cJSON_GetObjectItemCaseSensitive(v, r->valuestring))
      return fail(c, path, "required property \"%s\" is missing", r->valuestring);
  }
  cJSON_ArrayForEach(m, v) {
    char sub[512];
    snprintf(sub, sizeof sub, "%s.%s", path[0] ? path : "$", m->string);
    const cJSON *ps = props ? cJSON_GetObjectItemCaseSensitive(props, m->string) : NULL;
    if (ps) {
      if (validate(c, ps, m, sub)) return -1;
    } else if (additional && cJSON_IsFalse(additional)) {
      return fail(c, sub, "is not allowed (additionalProperties: false)");
    } else if (additional && cJSON_IsObject(additional)) {
      if (validate(c, additional, m, sub)) return -1;
    } else if (c->strict && schema == c->root && props) {
      return fail(c, sub, "is not declared in the schema (strict mode: document every field)");
    }
  }
  return 0;
}

static int check_conditional(ctx *c, const cJSON *schema, const cJSON *v, const char *path) {
  const cJSON *if_s = cJSON_GetObjectItemCaseSensitive(schema, "if");
  if (!if_s) return 0;
  /* The `if` outcome only selects a branch; its error is not reported. */
  char scratch[512];
  ctx probe = {c->root, 0, scratch, sizeof scratch};
  int matched = validate(&probe, if_s, v, path) == 0;
  const cJSON *branch = cJSON_GetObjectItemCaseSensitive(schema, matched ? "then" : "else");
  return branch ? validate(c, branch, v, path) : 0;
}

static int known_keyword(const char *k) {
  static const char *const known[] = {"$schema",     "$id",      "$defs",    "$comment",   "title",
                                      "description", "type",     "enum",     "const",      "pattern",
                                      "minLength",   "minimum",  "required", "properties", "additionalProperties",
                                      "items",       "allOf",    "if",       "then",       "else",
                                      "$ref",        "examples", "default",  NULL};
  for (size_t i = 0; known[i]; i++)
    if (!strcmp(k, known[i])) return 1;
  return 0;
}

static int validate(ctx *c, const cJSON *schema, const cJSON *v, const char *path) {
  if (cJSON_IsTrue(schema)) return 0;
  if (cJSON_IsFalse(schema)) return fail(c, path, "is not allowed (schema false)");
  if (!cJSON_IsObject(schema)) return fail(c, path, "the schema here is not an object");
  const cJSON *k;
  cJSON_ArrayForEach(k, schema) {
    if (!known_keyword(k->string))
      return fail(c, path, "the schema uses \"%s\", which this validator does not implement", k->string);
  }
  const cJSON *ref = cJSON_GetObjectItemCaseSensitive(schema, "$ref");
  if (ref) {
    const cJSON *target = cJSON_IsString(ref) ? resolve_ref(c, ref->valuestring) : NULL;
    if (!target) return fail(c, path, "unresolvable $ref");
    if (validate(c, target, v, path)) return -1;
  }
  const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");
  if (type && check_type(c, type, v, path)) return -1;
  const cJSON *en = cJSON_GetObjectItemCaseSensitive(schema, "enum");
  if (en && check_enum(c, en, v, path)) return -1;
  const cJSON *cn = cJSON_GetObjectItemCaseSensitive(schema, "const");
  if (cn && !equal(cn, v)) return fail(c, path, "is not the required constant");
  if (cJSON_IsString(v)) {
    const cJSON *pattern = cJSON_GetObjectItemCaseSensitive(schema, "pattern");
    const cJSON *min_len = cJSON_GetObjectItemCaseSensitive(schema, "minLength");
    if (pattern && check_pattern(c, pattern->valuestring, v->valuestring, path)) return -1;
    if (min_len && strlen(v->valuestring) < (size_t)min_len->valuedouble)
      return fail(c, path, "is shorter than %d", min_len->valueint);
  }
  if (cJSON_IsNumber(v)) {
    const cJSON *min = cJSON_GetObjectItemCaseSensitive(schema, "minimum");
    if (min && v->valuedouble < min->valuedouble) return fail(c, path, "is below the minimum %g", min->valuedouble);
  }
  if (cJSON_IsObject(v) && check_object(c, schema, v, path)) return -1;
  if (cJSON_IsArray(v)) {
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(schema, "items"), *e;
    int i = 0;
    cJSON_ArrayForEach(e, v) {
      char sub[512];
      snprintf(sub, sizeof sub, "%s[%d]", path[0] ? path : "$", i++);
      if (items && validate(c, items, e, sub)) return -1;
    }
  }
  const cJSON *all = cJSON_GetObjectItemCaseSensitive(schema, "allOf"), *s;
  cJSON_ArrayForEach(s, all) if (validate(c, s, v, path)) return -1;
  return check_conditional(c, schema, v, path);
}

int json_schema_validate(const cJSON *schema, const cJSON *instance, int strict, char *why, size_t size) {
  ctx c = {schema, strict, why, size};
  if (why && size) why[0] = '\0';
  return validate(&c, schema, instance, "");
}
