/* SPDX-License-Identifier: MIT */
/* The strict JSON reader and the UTF-8-safe writer; see json.h. The reader
 * is recursive descent with an explicit depth bound, over a byte range it
 * never reads past. */
#include "json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- arena */
typedef struct chunk {
  struct chunk *next;
  size_t used, size;
  max_align_t data[];
} chunk;

struct mj_doc {
  chunk *chunks;
  mj_value *root;
};

static void *arena_alloc(mj_doc *d, size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  if (!n) n = sizeof(max_align_t);
  chunk *c = d->chunks;
  if (!c || c->size - c->used < n) {
    size_t size = n > 16384 ? n : 16384;
    c = malloc(sizeof *c + size);
    if (!c) return NULL;
    c->next = d->chunks;
    c->used = 0;
    c->size = size;
    d->chunks = c;
  }
  void *p = (char *)c->data + c->used;
  c->used += n;
  return p;
}

void mj_free(mj_doc *doc) {
  if (!doc) return;
  chunk *c = doc->chunks;
  while (c) {
    chunk *next = c->next;
    free(c);
    c = next;
  }
  free(doc);
}

const mj_value *mj_root(const mj_doc *doc) {
  return doc ? doc->root : NULL;
}

/* ------------------------------------------------------------- UTF-8 */
/* Length of the valid UTF-8 sequence at s (1..4), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    cp = c & 0x1f;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    cp = c & 0x0f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

int mj_utf8_valid(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    size_t k = utf8_seq(p + i, n - i);
    if (!k) return 0;
    i += k;
  }
  return 1;
}

static size_t utf8_put(char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* ------------------------------------------------------------ reader */
typedef struct reader {
  const unsigned char *s;
  size_t len, pos, max_depth;
  mj_doc *doc;
  mj_error *err;
  int failed;
} reader;

static int fail(reader *r, size_t at, const char *why) {
  if (!r->failed) {
    r->failed = 1;
    if (r->err) {
      r->err->offset = at;
      snprintf(r->err->reason, sizeof r->err->reason, "%s", why);
    }
  }
  return -1;
}

static void skip_ws(reader *r) {
  while (r->pos < r->len) {
    unsigned char c = r->s[r->pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    r->pos++;
  }
}

static mj_value *new_value(reader *r, mj_type t) {
  mj_value *v = arena_alloc(r->doc, sizeof *v);
  if (!v) {
    fail(r, r->pos, "out of memory");
    return NULL;
  }
  memset(v, 0, sizeof *v);
  v->type = t;
  return v;
}

static int hex4(reader *r, size_t at, uint32_t *out) {
  if (r->len - at < 4) return fail(r, at, "truncated \\u escape");
  uint32_t v = 0;
  for (size_t i = 0; i < 4; i++) {
    unsigned char c = r->s[at + i];
    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (uint32_t)(c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (uint32_t)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (uint32_t)(c - 'A' + 10);
    else
      return fail(r, at + i, "invalid hex digit in a \\u escape");
  }
  *out = v;
  return 0;
}

/* Reads a string starting at the opening quote; decoded into the arena. */
static int read_string(reader *r, const char **out, size_t *out_len) {
  size_t start = ++r->pos; /* past the quote */
  /* First pass: find the end and validate, so the decoded size is known
   * (it is never larger than the raw bytes). */
  size_t i = start;
  for (;;) {
    if (i >= r->len) return fail(r, start - 1, "unterminated string");
    unsigned char c = r->s[i];
    if (c == '"') break;
    if (c < 0x20) return fail(r, i, "control character in a string (must be escaped)");
    if (c == '\\') {
      if (i + 1 >= r->len) return fail(r, i, "unterminated string");
      i += 2;
      continue;
    }
    size_t k = utf8_seq(r->s + i, r->len - i);
    if (!k) return fail(r, i, "invalid UTF-8 in a string");
    i += k;
  }
  size_t end = i;
  char *buf = arena_alloc(r->doc, end - start + 1);
  if (!buf) return fail(r, start, "out of memory");
  size_t n = 0;
  for (i = start; i < end;) {
    unsigned char c = r->s[i];
    if (c != '\\') {
      buf[n++] = (char)c;
      i++;
      continue;
    }
    unsigned char e = r->s[i + 1];
    i += 2;
    switch (e) {
    case '"':
      buf[n++] = '"';
      break;
    case '\\':
      buf[n++] = '\\';
      break;
    case '/':
      buf[n++] = '/';
      break;
    case 'b':
      buf[n++] = '\b';
      break;
    case 'f':
      buf[n++] = '\f';
      break;
    case 'n':
      buf[n++] = '\n';
      break;
    case 'r':
      buf[n++] = '\r';
      break;
    case 't':
      buf[n++] = '\t';
      break;
    case 'u': {
      uint32_t cp;
      if (hex4(r, i, &cp) != 0) return -1;
      i += 4;
      if (cp >= 0xdc00 && cp <= 0xdfff) return fail(r, i - 6, "unpaired low surrogate in a \\u escape");
      if (cp >= 0xd800 && cp <= 0xdbff) {
        uint32_t lo;
        if (i + 6 > end || r->s[i] != '\\' || r->s[i + 1] != 'u')
          return fail(r, i - 6, "unpaired high surrogate in a \\u escape");
        if (hex4(r, i + 2, &lo) != 0) return -1;
        if (lo < 0xdc00 || lo > 0xdfff) return fail(r, i, "unpaired high surrogate in a \\u escape");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i += 6;
      }
      /* \uXXXX is 6 bytes, its UTF-8 at most 3 (a pair: 12 bytes, 4). */
      n += utf8_put(buf + n, cp);
      break;
    }
    default:
      return fail(r, i - 2, "invalid escape in a string");
    }
  }
  buf[n] = '\0';
  r->pos = end + 1;
  *out = buf;
  *out_len = n;
  return 0;
}

static int read_number(reader *r, mj_value *v) {
  size_t start = r->pos, i = r->pos;
  if (i < r->len && r->s[i] == '-') i++;
  if (i >= r->len) return fail(r, start, "invalid number");
  if (r->s[i] == '0') {
    i++;
  } else if (r->s[i] >= '1' && r->s[i] <= '9') {
    while (i < r->len && r->s[i] >= '0' && r->s[i] <= '9') i++;
  } else {
    return fail(r, start, "invalid number");
  }
  if (i < r->len && r->s[i] == '.') {
    i++;
    if (i >= r->len || r->s[i] < '0' || r->s[i] > '9') return fail(r, i, "invalid number: digits must follow '.'");
    while (i < r->len && r->s[i] >= '0' && r->s[i] <= '9') i++;
  }
  if (i < r->len && (r->s[i] == 'e' || r->s[i] == 'E')) {
    i++;
    if (i < r->len && (r->s[i] == '+' || r->s[i] == '-')) i++;
    if (i >= r->len || r->s[i] < '0' || r->s[i] > '9') return fail(r, i, "invalid number: digits must follow 'e'");
    while (i < r->len && r->s[i] >= '0' && r->s[i] <= '9') i++;
  }
  char *lexeme = arena_alloc(r->doc, i - start + 1);
  if (!lexeme) return fail(r, start, "out of memory");
  memcpy(lexeme, r->s + start, i - start);
  lexeme[i - start] = '\0';
  v->text = lexeme;
  v->len = i - start;
  r->pos = i;
  return 0;
}

static int literal(reader *r, const char *word) {
  size_t n = strlen(word);
  if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0) return fail(r, r->pos, "invalid literal");
  r->pos += n;
  return 0;
}

/* Growable temporary list (heap), copied into the arena when complete. */
typedef struct tmp_list {
  void *items;
  size_t n, cap, elem;
} tmp_list;

static int tmp_push(reader *r, tmp_list *l, const void *item) {
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 8;
    void *p = realloc(l->items, ncap * l->elem);
    if (!p) return fail(r, r->pos, "out of memory");
    l->items = p;
    l->cap = ncap;
  }
  memcpy((char *)l->items + l->n * l->elem, item, l->elem);
  l->n++;
  return 0;
}

static void *tmp_to_arena(reader *r, tmp_list *l) {
  if (!l->n) return NULL;
  void *p = arena_alloc(r->doc, l->n * l->elem);
  if (!p) {
    fail(r, r->pos, "out of memory");
    return NULL;
  }
  memcpy(p, l->items, l->n * l->elem);
  return p;
}

static mj_value *read_value(reader *r, size_t depth);

static mj_value *read_array(reader *r, size_t depth) {
  mj_value *v = new_value(r, MJ_ARRAY);
  if (!v) return NULL;
  r->pos++; /* '[' */
  tmp_list l = {NULL, 0, 0, sizeof(mj_value *)};
  skip_ws(r);
  if (r->pos < r->len && r->s[r->pos] == ']') {
    r->pos++;
    return v;
  }
  for (;;) {
    mj_value *item = read_value(r, depth + 1);
    if (!item || tmp_push(r, &l, &item) != 0) break;
    skip_ws(r);
    if (r->pos >= r->len) {
      fail(r, r->pos, "unterminated array");
      break;
    }
    if (r->s[r->pos] == ',') {
      r->pos++;
      continue;
    }
    if (r->s[r->pos] == ']') {
      r->pos++;
      v->n = l.n;
      v->items = tmp_to_arena(r, &l);
      free(l.items);
      return r->failed ? NULL : v;
    }
    fail(r, r->pos, "expected ',' or ']' in an array");
    break;
  }
  free(l.items);
  return NULL;
}

/* Objects up to this many members are checked for a duplicate key as each
 * key is read (against the earlier ones: cheap while small); larger ones
 * once, when they close, by sorting, so that a message of 4 MiB of
 * distinct keys costs n log n comparisons rather than n squared (minutes
 * of a stalled reader). */
#define KEY_SCAN_MAX 16

static int key_seen(const tmp_list *l, const char *key, size_t len) {
  const mj_member *m = l->items;
  for (size_t i = 0; i < l->n; i++)
    if (m[i].key_len == len && memcmp(m[i].key, key, len) == 0) return 1;
  return 0;
}

typedef struct key_ref {
  const char *key;
  size_t len, at; /* at: the key's byte offset, to report a duplicate */
} key_ref;

static int key_ref_cmp(const void *a, const void *b) {
  const key_ref *x = a, *y = b;
  if (x->len != y->len) return x->len < y->len ? -1 : 1;
  int c = memcmp(x->key, y->key, x->len);
  if (c) return c;
  return x->at < y->at ? -1 : x->at > y->at;
}

/* The offset of the first key (in document order) that repeats an earlier
 * one, or SIZE_MAX; -1 with the failure set on out of memory. */
static int first_duplicate(reader *r, const tmp_list *l, const size_t *offsets, size_t *dup_at) {
  *dup_at = SIZE_MAX;
  key_ref *refs = malloc(l->n * sizeof *refs);
  if (!refs) return fail(r, r->pos, "out of memory");
  const mj_member *m = l->items;
  for (size_t i = 0; i < l->n; i++) refs[i] = (key_ref){m[i].key, m[i].key_len, offsets[i]};
  qsort(refs, l->n, sizeof *refs, key_ref_cmp);
  /* Equal keys are adjacent, in document order: each later one is a
   * duplicate, and the earliest of those is what the reader reports. */
  for (size_t i = 1; i < l->n; i++)
    if (refs[i].len == refs[i - 1].len && memcmp(refs[i].key, refs[i - 1].key, refs[i].len) == 0 &&
        refs[i].at < *dup_at)
      *dup_at = refs[i].at;
  free(refs);
  return 0;
}

static mj_value *read_object(reader *r, size_t depth) {
  mj_value *v = new_value(r, MJ_OBJECT);
  if (!v) return NULL;
  r->pos++; /* '{' */
  tmp_list l = {NULL, 0, 0, sizeof(mj_member)};
  tmp_list offsets = {NULL, 0, 0, sizeof(size_t)};
  skip_ws(r);
  if (r->pos < r->len && r->s[r->pos] == '}') {
    r->pos++;
    return v;
  }
  for (;;) {
    skip_ws(r);
    if (r->pos >= r->len || r->s[r->pos] != '"') {
      fail(r, r->pos, "expected a string key in an object");
      break;
    }
    size_t key_at = r->pos;
    mj_member m = {0};
    if (read_string(r, &m.key, &m.key_len) != 0) break;
    if (l.n < KEY_SCAN_MAX && key_seen(&l, m.key, m.key_len)) {
      fail(r, key_at, "duplicate key in an object");
      break;
    }
    if (tmp_push(r, &offsets, &key_at) != 0) break;
    skip_ws(r);
    if (r->pos >= r->len || r->s[r->pos] != ':') {
      fail(r, r->pos, "expected ':' after an object key");
      break;
    }
    r->pos++;
    m.value = read_value(r, depth + 1);
    if (!m.value || tmp_push(r, &l, &m) != 0) break;
    skip_ws(r);
    if (r->pos >= r->len) {
      fail(r, r->pos, "unterminated object");
      break;
    }
    if (r->s[r->pos] == ',') {
      r->pos++;
      continue;
    }
    if (r->s[r->pos] == '}') {
      size_t dup_at = SIZE_MAX;
      if (l.n > KEY_SCAN_MAX && first_duplicate(r, &l, offsets.items, &dup_at) != 0) break;
      if (dup_at != SIZE_MAX) {
        fail(r, dup_at, "duplicate key in an object");
        break;
      }
      r->pos++;
      v->n = l.n;
      v->members = tmp_to_arena(r, &l);
      free(l.items);
      free(offsets.items);
      return r->failed ? NULL : v;
    }
    fail(r, r->pos, "expected ',' or '}' in an object");
    break;
  }
  free(l.items);
  free(offsets.items);
  return NULL;
}

static mj_value *read_value(reader *r, size_t depth) {
  if (depth > r->max_depth) {
    char why[64];
    snprintf(why, sizeof why, "nesting deeper than %zu levels", r->max_depth);
    fail(r, r->pos, why);
    return NULL;
  }
  skip_ws(r);
  if (r->pos >= r->len) {
    fail(r, r->pos, "unexpected end of input");
    return NULL;
  }
  unsigned char c = r->s[r->pos];
  mj_value *v;
  switch (c) {
  case '{':
    return read_object(r, depth);
  case '[':
    return read_array(r, depth);
  case '"':
    if (!(v = new_value(r, MJ_STRING))) return NULL;
    return read_string(r, &v->text, &v->len) == 0 ? v : NULL;
  case 't':
    if (!(v = new_value(r, MJ_TRUE))) return NULL;
    return literal(r, "true") == 0 ? v : NULL;
  case 'f':
    if (!(v = new_value(r, MJ_FALSE))) return NULL;
    return literal(r, "false") == 0 ? v : NULL;
  case 'n':
    if (!(v = new_value(r, MJ_NULL))) return NULL;
    return literal(r, "null") == 0 ? v : NULL;
  default:
    if (c == '-' || (c >= '0' && c <= '9')) {
      if (!(v = new_value(r, MJ_NUMBER))) return NULL;
      return read_number(r, v) == 0 ? v : NULL;
    }
    fail(r, r->pos, c >= 0x20 && c < 0x7f ? "unexpected character" : "unexpected byte");
    return NULL;
  }
}

mj_doc *mj_parse(const char *text, size_t len, size_t max_depth, mj_error *err) {
  if (err) {
    err->offset = 0;
    err->reason[0] = '\0';
  }
  mj_doc *d = calloc(1, sizeof *d);
  if (!d) {
    if (err) snprintf(err->reason, sizeof err->reason, "out of memory");
    return NULL;
  }
  reader r = {(const unsigned char *)(text ? text : ""), text ? len : 0, 0, max_depth ? max_depth : 1, d, err, 0};
  d->root = read_value(&r, 1);
  if (d->root) {
    skip_ws(&r);
    if (r.pos != r.len) fail(&r, r.pos, "unexpected data after the JSON value");
  }
  if (r.failed || !d->root) {
    mj_free(d);
    return NULL;
  }
  return d;
}

const mj_value *mj_get(const mj_value *v, const char *key) {
  if (!v || v->type != MJ_OBJECT) return NULL;
  size_t n = strlen(key);
  for (size_t i = 0; i < v->n; i++)
    if (v->members[i].key_len == n && memcmp(v->members[i].key, key, n) == 0) return v->members[i].value;
  return NULL;
}

int mj_is_c_string(const mj_value *v) {
  return v && v->type == MJ_STRING && strlen(v->text) == v->len;
}

int mj_string_is(const mj_value *v, const char *s) {
  return mj_is_c_string(v) && strcmp(v->text, s) == 0;
}

/* ------------------------------------------------------------ writer */
void mj_w_init(mj_writer *w, size_t max_bytes) {
  memset(w, 0, sizeof *w);
  w->max = max_bytes;
}

void mj_w_free(mj_writer *w) {
  free(w->buf);
  w->buf = NULL;
  w->len = w->cap = 0;
}

int mj_w_ok(const mj_writer *w) {
  return !w->failed && w->depth == 0 && !w->after_key && w->buf;
}

char *mj_w_take(mj_writer *w, size_t *len) {
  if (!mj_w_ok(w)) {
    mj_w_free(w);
    return NULL;
  }
  char *out = w->buf;
  if (len) *len = w->len;
  w->buf = NULL;
  w->len = w->cap = 0;
  return out;
}

static void put(mj_writer *w, const char *s, size_t n) {
  if (w->failed) return;
  if (w->len + n + 1 > w->max) {
    w->failed = 1;
    return;
  }
  if (w->len + n + 1 > w->cap) {
    size_t ncap = w->cap ? w->cap : 256;
    while (ncap < w->len + n + 1) ncap *= 2;
    if (ncap > w->max) ncap = w->max;
    char *p = realloc(w->buf, ncap);
    if (!p) {
      w->failed = 1;
      return;
    }
    w->buf = p;
    w->cap = ncap;
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
  w->buf[w->len] = '\0';
}

/* Called before every value: the comma, or nothing after a key. */
static void before_value(mj_writer *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->depth > 0) {
    if (w->need_comma[w->depth]) put(w, ",", 1);
    w->need_comma[w->depth] = 1;
  } else if (w->len > 0) {
    w->failed = 1; /* a second top-level value */
  }
}

static void open_(mj_writer *w, char c) {
  before_value(w);
  if (w->depth >= MJ_W_MAX_DEPTH) {
    w->failed = 1;
    return;
  }
  put(w, &c, 1);
  w->need_comma[++w->depth] = 0;
}

static void close_(mj_writer *w, char c) {
  if (w->depth == 0 || w->after_key) {
    w->failed = 1;
    return;
  }
  w->depth--;
  put(w, &c, 1);
}

void mj_w_obj(mj_writer *w) {
  open_(w, '{');
}
void mj_w_obj_end(mj_writer *w) {
  close_(w, '}');
}
void mj_w_arr(mj_writer *w) {
  open_(w, '[');
}
void mj_w_arr_end(mj_writer *w) {
  close_(w, ']');
}

static void put_string(mj_writer *w, const char *s, size_t n) {
  static const char hexd[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  put(w, "\"", 1);
  size_t run = 0; /* bytes copied as they are, flushed in one go */
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    const char *esc = NULL;
    char ubuf[7];
    size_t k = 1;
    if (c == '"')
      esc = "\\\"";
    else if (c == '\\')
      esc = "\\\\";
    else if (c == '\n')
      esc = "\\n";
    else if (c == '\r')
      esc = "\\r";
    else if (c == '\t')
      esc = "\\t";
    else if (c < 0x20 || c == 0x7f) {
      ubuf[0] = '\\', ubuf[1] = 'u', ubuf[2] = '0', ubuf[3] = '0';
      ubuf[4] = hexd[c >> 4], ubuf[5] = hexd[c & 15], ubuf[6] = '\0';
      esc = ubuf;
    } else if (c >= 0x80) {
      k = utf8_seq(p + i, n - i);
      if (!k) {
        esc = "\xef\xbf\xbd"; /* U+FFFD for a byte that is not UTF-8 */
        k = 1;
      }
    }
    if (esc) {
      put(w, s + i - run, run);
      run = 0;
      put(w, esc, strlen(esc));
    } else {
      run += k;
    }
    i += k;
  }
  put(w, s + n - run, run);
  put(w, "\"", 1);
}

void mj_w_key(mj_writer *w, const char *key) {
  if (w->depth == 0 || w->after_key) {
    w->failed = 1;
    return;
  }
  if (w->need_comma[w->depth]) put(w, ",", 1);
  w->need_comma[w->depth] = 1;
  put_string(w, key, strlen(key));
  put(w, ":", 1);
  w->after_key = 1;
}

void mj_w_str(mj_writer *w, const char *s) {
  mj_w_strn(w, s ? s : "", s ? strlen(s) : 0);
}

void mj_w_strn(mj_writer *w, const char *s, size_t n) {
  before_value(w);
  put_string(w, s ? s : "", s ? n : 0);
}

void mj_w_int(mj_writer *w, long long v) {
  char b[32];
  int n = snprintf(b, sizeof b, "%lld", v);
  before_value(w);
  put(w, b, (size_t)n);
}

void mj_w_double(mj_writer *w, double v) {
  char b[40];
  if (!isfinite(v)) v = 0; /* JSON has no NaN or infinity */
  if (v == (double)(long long)v && v > -1e15 && v < 1e15) {
    mj_w_int(w, (long long)v); /* 300, not 3e+02 */
    return;
  }
  int n = snprintf(b, sizeof b, "%.17g", v);
  /* Shortest form that round-trips well enough for seconds and ratios. */
  for (int prec = 1; prec < 17; prec++) {
    char t[40];
    int m = snprintf(t, sizeof t, "%.*g", prec, v);
    if (strtod(t, NULL) == v) {
      memcpy(b, t, (size_t)m + 1);
      n = m;
      break;
    }
  }
  before_value(w);
  put(w, b, (size_t)n);
}

void mj_w_bool(mj_writer *w, int v) {
  before_value(w);
  put(w, v ? "true" : "false", v ? 4 : 5);
}

void mj_w_null(mj_writer *w) {
  before_value(w);
  put(w, "null", 4);
}

void mj_w_raw(mj_writer *w, const char *json) {
  before_value(w);
  put(w, json, strlen(json));
}

void mj_w_value(mj_writer *w, const mj_value *v) {
  if (!v) {
    mj_w_null(w);
    return;
  }
  switch (v->type) {
  case MJ_NULL:
    mj_w_null(w);
    break;
  case MJ_TRUE:
  case MJ_FALSE:
    mj_w_bool(w, v->type == MJ_TRUE);
    break;
  case MJ_NUMBER:
    before_value(w);
    put(w, v->text, v->len);
    break;
  case MJ_STRING:
    mj_w_strn(w, v->text, v->len);
    break;
  case MJ_ARRAY:
    mj_w_arr(w);
    for (size_t i = 0; i < v->n; i++) mj_w_value(w, v->items[i]);
    mj_w_arr_end(w);
    break;
  case MJ_OBJECT:
    mj_w_obj(w);
    for (size_t i = 0; i < v->n; i++) {
      /* Keys may hold NUL: write them like strings, then the value. */
      if (w->need_comma[w->depth]) put(w, ",", 1);
      w->need_comma[w->depth] = 1;
      put_string(w, v->members[i].key, v->members[i].key_len);
      put(w, ":", 1);
      w->after_key = 1;
      mj_w_value(w, v->members[i].value);
    }
    mj_w_obj_end(w);
    break;
  }
}
