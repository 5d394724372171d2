/* SPDX-License-Identifier: MIT */
/* SDK: typed access to a backend's settings.
 *
 * `open` receives the backend's `settings` from the configuration as a JSON
 * object. A typo in a setting must never be silently ignored, so the reader
 * remembers every key the backend asked for and sbio_sdk_settings_finish()
 * refuses any other key. Every problem is SBIO_E_CONFIG with a message that
 * names the key path and never the value (settings may be mistyped secrets):
 *
 *   acme settings: 'pool.size' must be an integer from 1 to 64
 *   acme settings: unknown key 'regoin' (known: region, pool, image)
 *
 * Usage:
 *
 *   sbio_sdk_settings *s;
 *   if (sbio_sdk_settings_parse(json, "acme", "see acme's README", &s, err)) return err->code;
 *   int rc = sbio_sdk_settings_string(s, "region", SBIO_SDK_NONEMPTY, &inst->region, err);
 *   if (!rc) rc = sbio_sdk_settings_int(s, "max_sandboxes", 0, 1, 1000, &inst->max, err);
 *   if (!rc) rc = sbio_sdk_settings_finish(s, err);
 *   sbio_sdk_settings_free(s);
 *
 * A getter leaves *out untouched when the key is absent (or null), so set
 * defaults first. Getters after a failure keep failing with the first
 * error, so a chain of calls can be checked once at the end. */
#ifndef SANDBOXIO_SDK_SETTINGS_H
#define SANDBOXIO_SDK_SETTINGS_H

#include <sandboxio/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sbio_sdk_settings sbio_sdk_settings;

/* Flags for the getters. */
#define SBIO_SDK_REQUIRED 0x1u /* absent (or null) is an error */
#define SBIO_SDK_NONEMPTY 0x2u /* strings: "" is an error */
#define SBIO_SDK_ONELINE 0x4u  /* strings: no control characters (for URLs, headers, names) */

/* Parses `json` (NULL means "{}"), which must be an object. `backend`
 * starts every message; `hint` goes with every error (NULL: a generic
 * pointer to the configuration). */
int sbio_sdk_settings_parse(const char *json, const char *backend, const char *hint, sbio_sdk_settings **out,
                            sbio_bk_error *err);
/* Frees the reader and every child reader obtained from it. */
void sbio_sdk_settings_free(sbio_sdk_settings *s);

/* Whether the key is present and not null; marks it as known. */
int sbio_sdk_settings_has(sbio_sdk_settings *s, const char *key);

/* *out is replaced by a malloc'd copy (the previous value is freed). */
int sbio_sdk_settings_string(sbio_sdk_settings *s, const char *key, unsigned flags, char **out, sbio_bk_error *err);
int sbio_sdk_settings_bool(sbio_sdk_settings *s, const char *key, unsigned flags, int *out, sbio_bk_error *err);
/* An integral number in [min, max] (at most 2^53 in magnitude: JSON numbers
 * are doubles). */
int sbio_sdk_settings_int(sbio_sdk_settings *s, const char *key, unsigned flags, int64_t min, int64_t max, int64_t *out,
                          sbio_bk_error *err);
/* A finite number in [min, max]. */
int sbio_sdk_settings_number(sbio_sdk_settings *s, const char *key, unsigned flags, double min, double max, double *out,
                             sbio_bk_error *err);
/* One of the NULL-terminated `choices`; *out is its index. */
int sbio_sdk_settings_choice(sbio_sdk_settings *s, const char *key, unsigned flags, const char *const *choices,
                             int *out, sbio_bk_error *err);
/* An array of strings (each checked with `flags`' string rules). *out and
 * *n are replaced (the previous array is freed with sbio_sdk_strings_free). */
int sbio_sdk_settings_strings(sbio_sdk_settings *s, const char *key, unsigned flags, char ***out, size_t *n,
                              sbio_bk_error *err);
void sbio_sdk_strings_free(char **strings, size_t n);

/* A nested object, read with the same functions; its keys are named
 * "key.sub" in messages. *child is NULL when absent, and belongs to `s`. */
int sbio_sdk_settings_object(sbio_sdk_settings *s, const char *key, unsigned flags, sbio_sdk_settings **child,
                             sbio_bk_error *err);
/* An array of objects: *children[i] reads element i ("key[i].sub"). The
 * array and the readers belong to `s`; *n is 0 when absent. */
int sbio_sdk_settings_objects(sbio_sdk_settings *s, const char *key, unsigned flags, sbio_sdk_settings ***children,
                              size_t *n, sbio_bk_error *err);

/* Refuses any key no getter asked for, in `s` and in every child reader
 * obtained from it, and any key given twice. Call it after the getters. */
int sbio_sdk_settings_finish(sbio_sdk_settings *s, sbio_bk_error *err);

#ifdef __cplusplus
}
#endif
#endif
