/* SPDX-License-Identifier: MIT */
/* JSON for the MCP server: a strict reader of untrusted text and a writer
 * that always produces valid UTF-8.
 *
 * Why not cJSON here (the rest of the CLI uses it): an MCP peer is
 * untrusted, and cJSON's reader accepts invalid UTF-8, truncates strings at
 * an escaped NUL, turns every number into a double (an id such as
 * 12345678901234567890 would come back different) and recurses without a
 * depth bound we choose. This reader:
 *   - accepts exactly RFC 8259 (no comments, trailing commas, NaN, leading
 *     zeros, BOM; only space, tab, CR and LF as whitespace);
 *   - validates UTF-8 (no overlong forms, no surrogates, nothing above
 *     U+10FFFF) and \u escapes (surrogates must pair);
 *   - refuses duplicate object keys (two "id"s would be ambiguous);
 *   - bounds nesting depth and keeps strings with their length, so an
 *     escaped NUL survives;
 *   - keeps every number as the lexeme it was written as.
 * All values of a document live in one arena freed with mj_free. */
#ifndef SBIO_MCP_JSON_H
#define SBIO_MCP_JSON_H

#include <stddef.h>

typedef enum mj_type { MJ_NULL, MJ_FALSE, MJ_TRUE, MJ_NUMBER, MJ_STRING, MJ_ARRAY, MJ_OBJECT } mj_type;

typedef struct mj_value mj_value;
typedef struct mj_member {
  const char *key; /* decoded, NUL-terminated; key_len is authoritative */
  size_t key_len;
  mj_value *value;
} mj_member;

struct mj_value {
  mj_type type;
  /* MJ_STRING: the decoded bytes (valid UTF-8, NUL-terminated, may contain
   * NUL; len is authoritative). MJ_NUMBER: the lexeme as written. */
  const char *text;
  size_t len;
  size_t n;           /* MJ_ARRAY: items; MJ_OBJECT: members */
  mj_value **items;   /* MJ_ARRAY */
  mj_member *members; /* MJ_OBJECT, in document order */
};

typedef struct mj_doc mj_doc;

#define MJ_DEFAULT_MAX_DEPTH 64

typedef struct mj_error {
  size_t offset;   /* byte offset of the problem */
  char reason[96]; /* "invalid UTF-8 in a string", "nesting deeper than 64" */
} mj_error;

/* Parses exactly one JSON text (surrounding whitespace allowed). NULL on
 * failure with err filled (reason "out of memory" when that is why). */
mj_doc *mj_parse(const char *text, size_t len, size_t max_depth, mj_error *err);
const mj_value *mj_root(const mj_doc *doc);
void mj_free(mj_doc *doc);

/* The member `key` of an object; NULL when v is not an object or has none. */
const mj_value *mj_get(const mj_value *v, const char *key);
/* 1 when v is a string equal to s (no NUL inside). */
int mj_string_is(const mj_value *v, const char *s);
/* 1 when v is a string holding no NUL (usable as a C string). */
int mj_is_c_string(const mj_value *v);

/* 1 when [s, s+n) is valid UTF-8 by the rules above. */
int mj_utf8_valid(const char *s, size_t n);

/* ---------------------------------------------------------------- writer */
/* Builds one JSON text into a growable buffer with a size limit. Commas and
 * nesting are tracked, so callers only say what comes next. Any failure
 * (out of memory, over the limit, misuse) sticks: mj_w_ok() says whether
 * the text is complete and valid. */
#define MJ_W_MAX_DEPTH 32

typedef struct mj_writer {
  char *buf;
  size_t len, cap, max;
  int failed;
  size_t depth;
  unsigned char need_comma[MJ_W_MAX_DEPTH + 1];
  int after_key;
} mj_writer;

void mj_w_init(mj_writer *w, size_t max_bytes);
void mj_w_free(mj_writer *w);
/* Hands over the NUL-terminated text (caller frees); NULL if it failed. */
char *mj_w_take(mj_writer *w, size_t *len);
int mj_w_ok(const mj_writer *w);

void mj_w_obj(mj_writer *w);
void mj_w_obj_end(mj_writer *w);
void mj_w_arr(mj_writer *w);
void mj_w_arr_end(mj_writer *w);
void mj_w_key(mj_writer *w, const char *key);
void mj_w_str(mj_writer *w, const char *s);
/* Any bytes: invalid UTF-8 becomes U+FFFD, control characters and NUL are
 * escaped, so the output is valid JSON and valid UTF-8 whatever came in. */
void mj_w_strn(mj_writer *w, const char *s, size_t n);
void mj_w_int(mj_writer *w, long long v);
void mj_w_double(mj_writer *w, double v);
void mj_w_bool(mj_writer *w, int v);
void mj_w_null(mj_writer *w);
/* A value that is already JSON text (trusted: our own constants). */
void mj_w_raw(mj_writer *w, const char *json);
/* A parsed value, written back exactly (numbers as their lexeme). */
void mj_w_value(mj_writer *w, const mj_value *v);

#endif
