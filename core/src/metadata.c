/* SPDX-License-Identifier: MIT */
/* The backend metadata document: strict parsing and schema validation.
 *
 * The document comes from a file we have not decided to trust, and what it
 * says ends up in listings, audit events and policy decisions. So the schema
 * is closed: unknown keys, duplicate keys, wrong types and oversized values
 * are refused with a reason naming the field, never skipped. Text must be
 * valid UTF-8 without control characters, because it is shown on terminals
 * (`sbio inspect`) and written to one-line audit records.
 *
 * Whether a declared tier is believed is not decided here: a source whose
 * url or date is malformed is still a valid document (trust.c makes that
 * mechanism UNKNOWN and says why). */
#include "metadata.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MECHANISMS 16
#define MAX_STRING_BYTES 4096
/* A backend reports the mechanism it used in sbio_bk_sandbox_info.mechanism
 * (64 bytes with the NUL); a longer declared name could never be matched. */
#define MAX_MECHANISM_NAME_BYTES 63
#define MAX_CREDENTIALS 16
#define MAX_CREDENTIAL_NAME_BYTES 64

typedef struct parse_ctx {
  char *reason;
  size_t reason_size;
} parse_ctx;

static int schema_error(parse_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int schema_error(parse_ctx *ctx, const char *fmt, ...) {
  if (ctx->reason != NULL && ctx->reason_size > 0) {
    int n = snprintf(ctx->reason, ctx->reason_size, "metadata: ");
    if (n > 0 && (size_t)n < ctx->reason_size) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(ctx->reason + n, ctx->reason_size - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

/* Untrusted text quoted in a reason: printable ASCII only, and short, so a
 * hostile document cannot inject escapes or flood a log line. */
static const char *printable(const char *text, char *buf, size_t buf_size) {
  size_t limit = buf_size - 4; /* room for "..." and the NUL */
  size_t i = 0;
  for (; text[i] != '\0' && i < limit; i++) {
    unsigned char c = (unsigned char)text[i];
    buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
  }
  if (text[i] != '\0') {
    memcpy(buf + i, "...", 3);
    i += 3;
  }
  buf[i] = '\0';
  return buf;
}

int sbio__backend_name_valid(const char *name) {
  if (name == NULL || !(name[0] >= 'a' && name[0] <= 'z')) return 0;
  size_t i = 1;
  for (; name[i] != '\0'; i++) {
    char c = name[i];
    if (i > 30) return 0;
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------- text */

/* Length of the well-formed UTF-8 sequence at s (1-4), or 0. Overlong
 * forms, surrogates and code points above U+10FFFF are not well-formed. */
static size_t utf8_sequence(const unsigned char *s) {
  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xc2 && s[0] <= 0xdf) return (s[1] & 0xc0) == 0x80 ? 2 : 0;
  if (s[0] >= 0xe0 && s[0] <= 0xef) {
    unsigned char lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
    return (s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80) ? 3 : 0;
  }
  if (s[0] >= 0xf0 && s[0] <= 0xf4) {
    unsigned char lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
    return (s[1] >= lo && s[1] <= hi && (s[2] & 0xc0) == 0x80 && (s[3] & 0xc0) == 0x80) ? 4 : 0;
  }
  return 0;
}

/* NULL when the text is acceptable, else what is wrong with it. */
static const char *text_problem(const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  while (*s != '\0') {
    size_t n = utf8_sequence(s);
    if (n == 0) return "is not valid UTF-8";
    /* C0 controls, DEL and C1 controls (U+0080..U+009F, 0xC2 0x80..0x9F). */
    if ((n == 1 && (s[0] < 0x20 || s[0] == 0x7f)) || (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)) {
      return "contains a control character";
    }
    s += n;
  }
  return NULL;
}

/* cJSON decodes "\u0000" into a NUL that silently truncates the string (a
 * key "abi\u0000x" would become "abi"). The raw text is scanned for it
 * before parsing, following string and escape boundaries. */
static int has_escaped_nul(const char *json, size_t len) {
  int in_string = 0;
  for (size_t i = 0; i < len; i++) {
    char c = json[i];
    if (!in_string) {
      if (c == '"') in_string = 1;
      continue;
    }
    if (c == '"') {
      in_string = 0;
    } else if (c == '\\' && i + 1 < len) {
      if (json[i + 1] == 'u' && len - i >= 6 && memcmp(json + i + 2, "0000", 4) == 0) return 1;
      i++; /* skip the escaped character */
    }
  }
  return 0;
}

/* Copies a string value after checking type, size and content. */
static int take_string(parse_ctx *ctx, const cJSON *item, const char *path, size_t max_bytes, int allow_empty,
                       char **out) {
  if (!cJSON_IsString(item) || item->valuestring == NULL) return schema_error(ctx, "%s: not a string", path);
  size_t len = strlen(item->valuestring);
  if (len > max_bytes) return schema_error(ctx, "%s: longer than %zu bytes", path, max_bytes);
  if (len == 0 && !allow_empty) return schema_error(ctx, "%s: empty", path);
  const char *problem = text_problem(item->valuestring);
  if (problem != NULL) return schema_error(ctx, "%s: %s", path, problem);
  *out = strdup(item->valuestring);
  if (*out == NULL) return schema_error(ctx, "%s: out of memory", path);
  return 0;
}

/* Index of `key` in `keys`, or -1 when the schema has no such key. */
static int key_index(const char *key, const char *const *keys, int n) {
  for (int i = 0; i < n; i++) {
    if (strcmp(key, keys[i]) == 0) return i;
  }
  return -1;
}

/* Checks an object's keys against its closed key set, refusing unknown and
 * repeated keys, and records each known member in `members`. */
static int object_members(parse_ctx *ctx, const cJSON *obj, const char *path, const char *const *keys, int n,
                          const cJSON **members) {
  if (!cJSON_IsObject(obj)) return schema_error(ctx, "%s: not an object", path[0] ? path : "document");
  for (int i = 0; i < n; i++) members[i] = NULL;
  const cJSON *child;
  cJSON_ArrayForEach(child, obj) {
    char shown[64];
    const char *key = child->string != NULL ? child->string : "";
    int i = key_index(key, keys, n);
    if (i < 0) {
      return schema_error(ctx, "%s%sunknown key \"%s\"", path, path[0] ? ": " : "",
                          printable(key, shown, sizeof shown));
    }
    if (members[i] != NULL) {
      return schema_error(ctx, "%s%s\"%s\": duplicate key", path, path[0] ? "." : "", keys[i]);
    }
    members[i] = child;
  }
  return 0;
}

/* ----------------------------------------------------------------- fields */
static int parse_abi(parse_ctx *ctx, const cJSON *item, int *out) {
  if (!cJSON_IsNumber(item)) return schema_error(ctx, "\"abi\": not an integer");
  double v = item->valuedouble;
  if (!isfinite(v) || v != floor(v) || v < 0 || v > INT_MAX) {
    return schema_error(ctx, "\"abi\": not an integer in 0..%d", INT_MAX);
  }
  *out = (int)v;
  return 0;
}

static int parse_capabilities(parse_ctx *ctx, const cJSON *arr, sbio_caps *out) {
  if (!cJSON_IsArray(arr)) return schema_error(ctx, "\"capabilities\": not an array");
  int index = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, arr) {
    if (!cJSON_IsString(item) || item->valuestring == NULL) {
      return schema_error(ctx, "\"capabilities\"[%d]: not a string", index);
    }
    sbio_caps flag;
    if (sbio_capability_parse(item->valuestring, &flag) != 0) {
      char shown[64];
      return schema_error(ctx, "\"capabilities\"[%d]: unknown capability \"%s\"", index,
                          printable(item->valuestring, shown, sizeof shown));
    }
    *out |= flag; /* a repeated name is harmless */
    index++;
  }
  return 0;
}

static int parse_source(parse_ctx *ctx, const cJSON *obj, const char *path, sbio__mechanism *m) {
  static const char *const keys[] = {"url", "verified_on", "quote"};
  const cJSON *members[3];
  char field_path[96];
  snprintf(field_path, sizeof field_path, "%s.\"source\"", path);
  if (object_members(ctx, obj, field_path, keys, 3, members) != 0) return -1;
  char **targets[3] = {&m->url, &m->verified_on, &m->quote};
  for (int i = 0; i < 3; i++) {
    if (members[i] == NULL) continue; /* missing: trust.c makes it UNKNOWN */
    char sub[128];
    snprintf(sub, sizeof sub, "%s.\"%s\"", field_path, keys[i]);
    if (take_string(ctx, members[i], sub, MAX_STRING_BYTES, 1, targets[i]) != 0) return -1;
  }
  return 0;
}

enum { MECH_NAME, MECH_TIER, MECH_SOURCE, MECH_UNVERIFIED, MECH_KEYS };

static int parse_mechanism(parse_ctx *ctx, const cJSON *obj, int index, sbio__mechanism *m) {
  static const char *const keys[MECH_KEYS] = {"name", "tier", "source", "unverified"};
  const cJSON *members[MECH_KEYS];
  char path[48], sub[96];
  snprintf(path, sizeof path, "\"mechanisms\"[%d]", index);
  m->claimed = SBIO_TIER_UNKNOWN;
  m->effective = SBIO_TIER_UNKNOWN;
  m->age_days = -1;
  if (object_members(ctx, obj, path, keys, MECH_KEYS, members) != 0) return -1;

  if (members[MECH_NAME] == NULL) return schema_error(ctx, "%s: missing \"name\"", path);
  snprintf(sub, sizeof sub, "%s.\"name\"", path);
  if (take_string(ctx, members[MECH_NAME], sub, MAX_MECHANISM_NAME_BYTES, 0, &m->name) != 0) return -1;

  if (members[MECH_TIER] == NULL) return schema_error(ctx, "%s: missing \"tier\"", path);
  snprintf(sub, sizeof sub, "%s.\"tier\"", path);
  const cJSON *tier = members[MECH_TIER];
  if (!cJSON_IsString(tier) || tier->valuestring == NULL) return schema_error(ctx, "%s: not a string", sub);
  if (sbio_tier_parse(tier->valuestring, &m->claimed) != 0) {
    char shown[64];
    return schema_error(ctx, "%s: unknown tier \"%s\"", sub, printable(tier->valuestring, shown, sizeof shown));
  }

  if (members[MECH_SOURCE] != NULL && members[MECH_UNVERIFIED] != NULL) {
    return schema_error(ctx, "%s: both \"source\" and \"unverified\" (a mechanism has one or the other)", path);
  }
  if (members[MECH_SOURCE] != NULL && parse_source(ctx, members[MECH_SOURCE], path, m) != 0) return -1;
  if (members[MECH_UNVERIFIED] != NULL) {
    snprintf(sub, sizeof sub, "%s.\"unverified\"", path);
    if (take_string(ctx, members[MECH_UNVERIFIED], sub, MAX_STRING_BYTES, 1, &m->unverified) != 0) return -1;
  }
  return 0;
}

static int parse_mechanisms(parse_ctx *ctx, const cJSON *arr, sbio__metadata *out) {
  if (!cJSON_IsArray(arr)) return schema_error(ctx, "\"mechanisms\": not an array");
  int count = cJSON_GetArraySize(arr);
  if (count > MAX_MECHANISMS) {
    return schema_error(ctx, "\"mechanisms\": %d entries, more than %d mechanisms", count, MAX_MECHANISMS);
  }
  if (count == 0) return 0;
  out->mechs = calloc((size_t)count, sizeof *out->mechs);
  if (out->mechs == NULL) return schema_error(ctx, "\"mechanisms\": out of memory");

  int index = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, arr) {
    sbio__mechanism *m = &out->mechs[index];
    out->n_mechs = (size_t)index + 1; /* so a partial entry is freed too */
    if (parse_mechanism(ctx, item, index, m) != 0) return -1;
    for (int j = 0; j < index; j++) {
      if (strcmp(out->mechs[j].name, m->name) == 0) {
        char shown[80];
        return schema_error(ctx, "\"mechanisms\"[%d].\"name\": duplicate mechanism \"%s\"", index,
                            printable(m->name, shown, sizeof shown));
      }
    }
    index++;
  }
  return 0;
}

/* ------------------------------------------------------------ credentials */
/* An environment variable name (upper or lower case, digits, '_', not
 * starting with a digit), or with `setting_key` a setting key (lower
 * case). */
static int credential_name_valid(const char *s, int setting_key) {
  size_t n = strlen(s);
  if (n == 0 || n > MAX_CREDENTIAL_NAME_BYTES || (s[0] >= '0' && s[0] <= '9')) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (!setting_key && c >= 'A' && c <= 'Z');
    if (!ok) return 0;
  }
  return 1;
}

static int parse_credential_list(parse_ctx *ctx, const cJSON *arr, const char *key, int setting_key, char ***out,
                                 size_t *n_out) {
  if (!cJSON_IsArray(arr)) return schema_error(ctx, "\"credentials\".\"%s\": not an array", key);
  int count = cJSON_GetArraySize(arr);
  if (count > MAX_CREDENTIALS)
    return schema_error(ctx, "\"credentials\".\"%s\": %d entries, more than %d", key, count, MAX_CREDENTIALS);
  if (count == 0) return 0;
  *out = calloc((size_t)count, sizeof **out);
  if (*out == NULL) return schema_error(ctx, "\"credentials\": out of memory");
  int index = 0;
  const cJSON *item;
  cJSON_ArrayForEach(item, arr) {
    char path[64], shown[80];
    snprintf(path, sizeof path, "\"credentials\".\"%s\"[%d]", key, index);
    char *name = NULL;
    if (take_string(ctx, item, path, MAX_CREDENTIAL_NAME_BYTES, 0, &name) != 0) return -1;
    (*out)[index] = name;
    *n_out = (size_t)index + 1; /* so a partial list is freed too */
    if (!credential_name_valid(name, setting_key))
      return schema_error(ctx, "%s: \"%s\" is not %s", path, printable(name, shown, sizeof shown),
                          setting_key ? "a setting key ([a-z_][a-z0-9_]*)"
                                      : "an environment variable name ([A-Za-z_][A-Za-z0-9_]*)");
    for (int j = 0; j < index; j++)
      if (strcmp((*out)[j], name) == 0) return schema_error(ctx, "%s: duplicate \"%s\"", path, name);
    index++;
  }
  return 0;
}

static int parse_credentials(parse_ctx *ctx, const cJSON *obj, sbio__metadata *out) {
  static const char *const keys[] = {"env", "settings"};
  const cJSON *members[2];
  if (object_members(ctx, obj, "\"credentials\"", keys, 2, members) != 0) return -1;
  if (members[0] && parse_credential_list(ctx, members[0], "env", 0, &out->cred_env, &out->n_cred_env) != 0) return -1;
  if (members[1] &&
      parse_credential_list(ctx, members[1], "settings", 1, &out->cred_settings, &out->n_cred_settings) != 0)
    return -1;
  return 0;
}

/* ---------------------------------------------------------------- document */
/* Every key before DOC_REQUIRED is required; the ones after are later,
 * optional additions (an older backend's note lacks them). */
enum {
  DOC_ABI,
  DOC_NAME,
  DOC_VERSION,
  DOC_SUMMARY,
  DOC_CAPS,
  DOC_MECHS,
  DOC_REQUIRED,
  DOC_CREDS = DOC_REQUIRED,
  DOC_KEYS
};

static int parse_document(parse_ctx *ctx, const cJSON *root, sbio__metadata *out) {
  static const char *const keys[DOC_KEYS] = {"abi",          "name",       "version",    "summary",
                                             "capabilities", "mechanisms", "credentials"};
  const cJSON *members[DOC_KEYS];
  if (object_members(ctx, root, "", keys, DOC_KEYS, members) != 0) return -1;
  for (int i = 0; i < DOC_REQUIRED; i++) {
    if (members[i] == NULL) return schema_error(ctx, "missing \"%s\"", keys[i]);
  }
  if (members[DOC_CREDS] != NULL && parse_credentials(ctx, members[DOC_CREDS], out) != 0) return -1;
  if (parse_abi(ctx, members[DOC_ABI], &out->abi) != 0) return -1;
  if (take_string(ctx, members[DOC_NAME], "\"name\"", MAX_STRING_BYTES, 0, &out->name) != 0) return -1;
  if (!sbio__backend_name_valid(out->name)) {
    char shown[64];
    return schema_error(ctx, "\"name\": invalid backend name \"%s\" (must match [a-z][a-z0-9_]{0,30})",
                        printable(out->name, shown, sizeof shown));
  }
  if (take_string(ctx, members[DOC_VERSION], "\"version\"", MAX_STRING_BYTES, 0, &out->version) != 0) return -1;
  if (take_string(ctx, members[DOC_SUMMARY], "\"summary\"", MAX_STRING_BYTES, 1, &out->summary) != 0) return -1;
  if (parse_capabilities(ctx, members[DOC_CAPS], &out->caps) != 0) return -1;
  return parse_mechanisms(ctx, members[DOC_MECHS], out);
}

static int json_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int sbio__metadata_parse(const char *json, size_t len, sbio__metadata *out, char *reason, size_t reason_size) {
  parse_ctx ctx = {reason, reason_size};
  if (out == NULL) return schema_error(&ctx, "no output");
  memset(out, 0, sizeof *out);
  if (json == NULL || len == 0) return schema_error(&ctx, "empty document");
  if (has_escaped_nul(json, len)) return schema_error(&ctx, "a string contains an escaped NUL (\\u0000)");

  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
  if (root == NULL) {
    size_t at = (end != NULL && end >= json && end <= json + len) ? (size_t)(end - json) : 0;
    return schema_error(&ctx, "invalid JSON at byte %zu", at);
  }
  /* cJSON stops after the first value; anything but whitespace after it
   * means the document is not what the backend author thinks it is. */
  for (const char *p = end; p != NULL && p < json + len; p++) {
    if (!json_space(*p)) {
      cJSON_Delete(root);
      return schema_error(&ctx, "unexpected data after the JSON document at byte %zu", (size_t)(p - json));
    }
  }
  int rc = parse_document(&ctx, root, out);
  cJSON_Delete(root);
  if (rc != 0) sbio__metadata_free(out);
  return rc;
}

void sbio__metadata_free(sbio__metadata *m) {
  if (m == NULL) return;
  for (size_t i = 0; i < m->n_mechs; i++) {
    free(m->mechs[i].name);
    free(m->mechs[i].url);
    free(m->mechs[i].verified_on);
    free(m->mechs[i].quote);
    free(m->mechs[i].unverified);
  }
  free(m->mechs);
  for (size_t i = 0; i < m->n_cred_env; i++) free(m->cred_env[i]);
  free(m->cred_env);
  for (size_t i = 0; i < m->n_cred_settings; i++) free(m->cred_settings[i]);
  free(m->cred_settings);
  free(m->name);
  free(m->version);
  free(m->summary);
  memset(m, 0, sizeof *m);
}
