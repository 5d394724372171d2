/* SPDX-License-Identifier: MIT */
/* Settings readers, shared by settings.c and settings_get.c. */
#ifndef SBIO_SDK_SETTINGS_INTERNAL_H
#define SBIO_SDK_SETTINGS_INTERNAL_H

#include "sdk_internal.h"

#include <cjson/cJSON.h>

/* What every reader of one settings document shares. */
typedef struct settings_ctx {
  cJSON *doc;
  char *backend;
  char *hint;
  int failed; /* the first error's code: later getters return it at once */
} settings_ctx;

struct sbio_sdk_settings {
  settings_ctx *ctx;
  int owns_ctx;     /* the root reader */
  const cJSON *obj; /* the object read; NULL: no settings (every key absent) */
  char *path;       /* prefix of this reader's keys in messages: "", "pool.", "scripts[2]." */
  char **known;     /* keys a getter asked for */
  size_t n_known, cap_known;
  sbio_sdk_settings **children; /* readers of nested objects */
  size_t n_children, cap_children;
  void **arrays; /* arrays handed out by sbio_sdk_settings_objects */
  size_t n_arrays;
};

/* Fills err with "BACKEND settings: <fmt>", records the failure, returns code. */
int sbio__settings_fail(sbio_sdk_settings *s, sbio_bk_error *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
int sbio__settings_oom(sbio_sdk_settings *s, sbio_bk_error *err);
void sbio__settings_key_text(const char *key, char *buf, size_t size);
/* Records `key` as known. */
int sbio__settings_mark(sbio_sdk_settings *s, const char *key, sbio_bk_error *err);
/* A reader for a nested object; NULL on OOM. adopt() makes the parent own
 * it (and frees it if that fails). */
sbio_sdk_settings *sbio__settings_child(sbio_sdk_settings *s, const cJSON *obj, const char *path);
int sbio__settings_adopt(sbio_sdk_settings *s, sbio_sdk_settings *child, sbio_bk_error *err);
/* The parent frees `array` with itself (and frees it now if that fails). */
int sbio__settings_keep_array(sbio_sdk_settings *s, void *array, sbio_bk_error *err);

#endif
