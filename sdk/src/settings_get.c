/* SPDX-License-Identifier: MIT */
/* Typed getters of the settings reader. Messages name the key path and the
 * expected shape, never the value found. */
#include "settings_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXACT_INT 9007199254740992.0 /* 2^53: every integer up to it is a double */

/* Marks `key` and finds its value. Returns the value, or NULL when absent
 * (null counts as absent) or on failure, with *rc set. */
static const cJSON *find(sbio_sdk_settings *s, const char *key, unsigned flags, int *rc, sbio_bk_error *err) {
  *rc = s->ctx->failed;
  if (*rc) return NULL;
  *rc = sbio__settings_mark(s, key, err);
  if (*rc) return NULL;
  const cJSON *v = s->obj ? cJSON_GetObjectItemCaseSensitive(s->obj, key) : NULL;
  if (v && cJSON_IsNull(v)) v = NULL;
  if (!v && (flags & SBIO_SDK_REQUIRED))
    *rc = sbio__settings_fail(s, err, SBIO_E_CONFIG, "'%s%s' is required", s->path, key);
  return v;
}

static int bad(sbio_sdk_settings *s, const char *key, const char *what, sbio_bk_error *err) {
  return sbio__settings_fail(s, err, SBIO_E_CONFIG, "'%s%s' %s", s->path, key, what);
}

/* The string rules of `flags`; `name` is how the value is named. */
static int check_string(sbio_sdk_settings *s, const cJSON *v, const char *name, unsigned flags, sbio_bk_error *err) {
  if (!cJSON_IsString(v) || !v->valuestring) return bad(s, name, "must be a string", err);
  if ((flags & SBIO_SDK_NONEMPTY) && !v->valuestring[0]) return bad(s, name, "must not be empty", err);
  if (flags & SBIO_SDK_ONELINE)
    for (const char *p = v->valuestring; *p; p++)
      if ((unsigned char)*p < 0x20 || *p == 0x7f) return bad(s, name, "must not contain control characters", err);
  return SBIO_OK;
}

int sbio_sdk_settings_has(sbio_sdk_settings *s, const char *key) {
  int rc;
  return find(s, key, 0, &rc, NULL) != NULL;
}

int sbio_sdk_settings_string(sbio_sdk_settings *s, const char *key, unsigned flags, char **out, sbio_bk_error *err) {
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  if ((rc = check_string(s, v, key, flags, err))) return rc;
  char *copy = strdup(v->valuestring);
  if (!copy) return sbio__settings_oom(s, err);
  free(*out);
  *out = copy;
  return SBIO_OK;
}

int sbio_sdk_settings_bool(sbio_sdk_settings *s, const char *key, unsigned flags, int *out, sbio_bk_error *err) {
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  if (!cJSON_IsBool(v)) return bad(s, key, "must be true or false", err);
  *out = cJSON_IsTrue(v) ? 1 : 0;
  return SBIO_OK;
}

int sbio_sdk_settings_int(sbio_sdk_settings *s, const char *key, unsigned flags, int64_t min, int64_t max, int64_t *out,
                          sbio_bk_error *err) {
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!isfinite(d) || d != floor(d) || fabs(d) > MAX_EXACT_INT || d < (double)min || d > (double)max) {
    char what[128];
    snprintf(what, sizeof what, "must be an integer from %lld to %lld", (long long)min, (long long)max);
    return bad(s, key, what, err);
  }
  *out = (int64_t)d;
  return SBIO_OK;
}

int sbio_sdk_settings_number(sbio_sdk_settings *s, const char *key, unsigned flags, double min, double max, double *out,
                             sbio_bk_error *err) {
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!isfinite(d) || d < min || d > max) {
    char what[128];
    snprintf(what, sizeof what, "must be a number from %g to %g", min, max);
    return bad(s, key, what, err);
  }
  *out = d;
  return SBIO_OK;
}

int sbio_sdk_settings_choice(sbio_sdk_settings *s, const char *key, unsigned flags, const char *const *choices,
                             int *out, sbio_bk_error *err) {
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  if (cJSON_IsString(v) && v->valuestring)
    for (int i = 0; choices[i]; i++)
      if (!strcmp(choices[i], v->valuestring)) {
        *out = i;
        return SBIO_OK;
      }
  char what[300] = "must be one of:";
  size_t used = strlen(what);
  for (int i = 0; choices[i] && used + 1 < sizeof what; i++) {
    int n = snprintf(what + used, sizeof what - used, "%s %s", i ? "," : "", choices[i]);
    if (n < 0) break;
    used += (size_t)n;
  }
  return bad(s, key, what, err);
}

void sbio_sdk_strings_free(char **strings, size_t n) {
  if (!strings) return;
  for (size_t i = 0; i < n; i++) free(strings[i]);
  free(strings);
}

int sbio_sdk_settings_strings(sbio_sdk_settings *s, const char *key, unsigned flags, char ***out, size_t *n,
                              sbio_bk_error *err) {
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  if (!cJSON_IsArray(v)) return bad(s, key, "must be a list of strings", err);
  size_t count = (size_t)cJSON_GetArraySize(v), i = 0;
  char **list = calloc(count ? count : 1, sizeof *list);
  if (!list) return sbio__settings_oom(s, err);
  for (const cJSON *item = v->child; item; item = item->next, i++) {
    char name[160];
    snprintf(name, sizeof name, "%s[%zu]", key, i);
    rc = check_string(s, item, name, flags, err);
    if (rc == SBIO_OK && !(list[i] = strdup(item->valuestring))) rc = sbio__settings_oom(s, err);
    if (rc != SBIO_OK) {
      sbio_sdk_strings_free(list, i);
      return rc;
    }
  }
  sbio_sdk_strings_free(*out, *n);
  *out = list;
  *n = count;
  return SBIO_OK;
}

/* A reader for `obj`, named `name` under `s`, owned by `s`. */
static int child_reader(sbio_sdk_settings *s, const cJSON *obj, const char *name, sbio_sdk_settings **child,
                        sbio_bk_error *err) {
  char path[300];
  snprintf(path, sizeof path, "%s%s.", s->path, name);
  *child = sbio__settings_child(s, obj, path);
  if (!*child) return sbio__settings_oom(s, err);
  int rc = sbio__settings_adopt(s, *child, err);
  if (rc) *child = NULL;
  return rc;
}

int sbio_sdk_settings_object(sbio_sdk_settings *s, const char *key, unsigned flags, sbio_sdk_settings **child,
                             sbio_bk_error *err) {
  *child = NULL;
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  if (!cJSON_IsObject(v)) return bad(s, key, "must be a mapping of keys to values", err);
  return child_reader(s, v, key, child, err);
}

int sbio_sdk_settings_objects(sbio_sdk_settings *s, const char *key, unsigned flags, sbio_sdk_settings ***children,
                              size_t *n, sbio_bk_error *err) {
  *children = NULL;
  *n = 0;
  int rc;
  const cJSON *v = find(s, key, flags, &rc, err);
  if (!v) return rc;
  if (!cJSON_IsArray(v)) return bad(s, key, "must be a list of mappings", err);
  size_t count = (size_t)cJSON_GetArraySize(v), i = 0;
  sbio_sdk_settings **list = calloc(count ? count : 1, sizeof *list);
  if (!list) return sbio__settings_oom(s, err);
  if ((rc = sbio__settings_keep_array(s, list, err))) return rc;
  for (const cJSON *item = v->child; item; item = item->next, i++) {
    char name[160];
    snprintf(name, sizeof name, "%s[%zu]", key, i);
    if (!cJSON_IsObject(item)) return bad(s, name, "must be a mapping of keys to values", err);
    if ((rc = child_reader(s, item, name, &list[i], err))) return rc;
  }
  *children = list;
  *n = count;
  return SBIO_OK;
}
