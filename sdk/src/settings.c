/* SPDX-License-Identifier: MIT */
/* Settings readers: the tree, the key bookkeeping and the unknown-key
 * check. The typed getters are in settings_get.c. */
#include "settings_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_HINT "check this backend's settings in the configuration (backends: {NAME: {settings: ...}})"

static sbio_sdk_settings *reader_new(settings_ctx *ctx, const cJSON *obj, const char *path) {
  sbio_sdk_settings *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->path = strdup(path);
  if (!s->path) {
    free(s);
    return NULL;
  }
  s->ctx = ctx;
  s->obj = obj;
  return s;
}

static void reader_free(sbio_sdk_settings *s) {
  for (size_t i = 0; i < s->n_children; i++) reader_free(s->children[i]);
  for (size_t i = 0; i < s->n_arrays; i++) free(s->arrays[i]);
  free(s->children);
  free(s->arrays);
  for (size_t i = 0; i < s->n_known; i++) free(s->known[i]);
  free(s->known);
  free(s->path);
  free(s);
}

static void ctx_free(settings_ctx *ctx) {
  if (!ctx) return;
  cJSON_Delete(ctx->doc);
  free(ctx->backend);
  free(ctx->hint);
  free(ctx);
}

int sbio_sdk_settings_parse(const char *json, const char *backend, const char *hint, sbio_sdk_settings **out,
                            sbio_bk_error *err) {
  *out = NULL;
  settings_ctx *ctx = calloc(1, sizeof *ctx);
  if (ctx) {
    ctx->backend = strdup(backend ? backend : "backend");
    ctx->hint = strdup(hint ? hint : DEFAULT_HINT);
  }
  if (!ctx || !ctx->backend || !ctx->hint) {
    ctx_free(ctx);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "%s: out of memory reading the settings",
                          backend ? backend : "backend");
  }
  ctx->doc = cJSON_ParseWithOpts(json ? json : "{}", NULL, 1);
  int rc = SBIO_OK;
  if (!ctx->doc)
    rc = sbio_sdk_error(err, SBIO_E_CONFIG, ctx->hint, "%s settings are not valid JSON", ctx->backend);
  else if (!cJSON_IsObject(ctx->doc) && !cJSON_IsNull(ctx->doc))
    rc = sbio_sdk_error(err, SBIO_E_CONFIG, ctx->hint, "%s settings must be a mapping of keys to values", ctx->backend);
  if (rc == SBIO_OK) {
    /* null stands for "no settings", like an empty mapping. */
    *out = reader_new(ctx, cJSON_IsObject(ctx->doc) ? ctx->doc : NULL, "");
    if (!*out) rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "%s: out of memory reading the settings", ctx->backend);
  }
  if (rc != SBIO_OK) {
    ctx_free(ctx);
    return rc;
  }
  (*out)->owns_ctx = 1;
  return SBIO_OK;
}

void sbio_sdk_settings_free(sbio_sdk_settings *s) {
  if (!s) return;
  settings_ctx *ctx = s->owns_ctx ? s->ctx : NULL;
  reader_free(s);
  ctx_free(ctx);
}

int sbio__settings_fail(sbio_sdk_settings *s, sbio_bk_error *err, int code, const char *fmt, ...) {
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  sbio_sdk_error(err, code, code == SBIO_E_CONFIG ? s->ctx->hint : NULL, "%s settings: %s", s->ctx->backend, what);
  s->ctx->failed = code;
  return code;
}

int sbio__settings_oom(sbio_sdk_settings *s, sbio_bk_error *err) {
  return sbio__settings_fail(s, err, SBIO_E_INTERNAL, "out of memory");
}

/* A key as it may appear in a message: at most 100 bytes, no control
 * characters (the name comes from the configuration file). */
void sbio__settings_key_text(const char *key, char *buf, size_t size) {
  snprintf(buf, size < 101 ? size : 101, "%s", key ? key : "");
  for (char *p = buf; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
}

int sbio__settings_mark(sbio_sdk_settings *s, const char *key, sbio_bk_error *err) {
  for (size_t i = 0; i < s->n_known; i++)
    if (!strcmp(s->known[i], key)) return SBIO_OK;
  if (s->n_known == s->cap_known) {
    size_t cap = s->cap_known ? s->cap_known * 2 : 8;
    char **grown = realloc(s->known, cap * sizeof *grown);
    if (!grown) return sbio__settings_oom(s, err);
    s->known = grown;
    s->cap_known = cap;
  }
  s->known[s->n_known] = strdup(key);
  if (!s->known[s->n_known]) return sbio__settings_oom(s, err);
  s->n_known++;
  return SBIO_OK;
}

int sbio__settings_adopt(sbio_sdk_settings *s, sbio_sdk_settings *child, sbio_bk_error *err) {
  if (s->n_children == s->cap_children) {
    size_t cap = s->cap_children ? s->cap_children * 2 : 4;
    sbio_sdk_settings **grown = realloc(s->children, cap * sizeof *grown);
    if (!grown) {
      reader_free(child);
      return sbio__settings_oom(s, err);
    }
    s->children = grown;
    s->cap_children = cap;
  }
  s->children[s->n_children++] = child;
  return SBIO_OK;
}

sbio_sdk_settings *sbio__settings_child(sbio_sdk_settings *s, const cJSON *obj, const char *path) {
  return reader_new(s->ctx, obj, path);
}

int sbio__settings_keep_array(sbio_sdk_settings *s, void *array, sbio_bk_error *err) {
  void **grown = realloc(s->arrays, (s->n_arrays + 1) * sizeof *grown);
  if (!grown) {
    free(array);
    return sbio__settings_oom(s, err);
  }
  s->arrays = grown;
  s->arrays[s->n_arrays++] = array;
  return SBIO_OK;
}

static void known_list(const sbio_sdk_settings *s, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < s->n_known && used + 1 < size; i++) {
    int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", s->known[i]);
    if (n < 0) break;
    used += (size_t)n;
  }
}

static int check_reader(sbio_sdk_settings *s, sbio_bk_error *err) {
  for (const cJSON *item = s->obj ? s->obj->child : NULL; item; item = item->next) {
    const char *key = item->string ? item->string : "";
    char shown[101];
    sbio__settings_key_text(key, shown, sizeof shown);
    for (const cJSON *prev = s->obj->child; prev != item; prev = prev->next)
      if (prev->string && !strcmp(prev->string, key))
        return sbio__settings_fail(s, err, SBIO_E_CONFIG, "duplicate key '%s%s'", s->path, shown);
    size_t i = 0;
    while (i < s->n_known && strcmp(s->known[i], key) != 0) i++;
    if (i < s->n_known) continue;
    char known[200];
    known_list(s, known, sizeof known);
    if (known[0])
      return sbio__settings_fail(s, err, SBIO_E_CONFIG, "unknown key '%s%s' (known: %s)", s->path, shown, known);
    return sbio__settings_fail(s, err, SBIO_E_CONFIG, "unknown key '%s%s' (no settings are taken %s)", s->path, shown,
                               s->path[0] ? "here" : "at all");
  }
  for (size_t i = 0; i < s->n_children; i++) {
    int rc = check_reader(s->children[i], err);
    if (rc != SBIO_OK) return rc;
  }
  return SBIO_OK;
}

int sbio_sdk_settings_finish(sbio_sdk_settings *s, sbio_bk_error *err) {
  if (s->ctx->failed) return s->ctx->failed;
  return check_reader(s, err);
}
