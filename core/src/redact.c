/* SPDX-License-Identifier: MIT */
#include "redact.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sbio__redactor_init(sbio__redactor *r) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->lock, NULL);
}

void sbio__redactor_free(sbio__redactor *r) {
  for (size_t i = 0; i < r->n; i++) {
    explicit_bzero(r->secrets[i], r->lens[i]);
    free(r->secrets[i]);
  }
  free(r->secrets);
  free(r->lens);
  pthread_mutex_destroy(&r->lock);
}

static int grow(sbio__redactor *r) {
  size_t ncap = r->cap ? r->cap * 2 : 8;
  char **s = realloc(r->secrets, ncap * sizeof *s);
  if (!s) return -1;
  r->secrets = s;
  size_t *l = realloc(r->lens, ncap * sizeof *l);
  if (!l) return -1;
  r->lens = l;
  r->cap = ncap;
  return 0;
}

int sbio__redactor_add(sbio__redactor *r, const char *secret) {
  if (!secret || !secret[0]) return 0;
  int rc = 0;
  pthread_mutex_lock(&r->lock);
  size_t len = strlen(secret), pos = r->n;
  for (size_t i = 0; i < r->n; i++) {
    if (r->lens[i] == len && memcmp(r->secrets[i], secret, len) == 0) goto out;
    if (pos == r->n && r->lens[i] < len) pos = i;
  }
  char *copy = NULL;
  if ((r->n == r->cap && grow(r) != 0) || !(copy = strdup(secret))) {
    rc = -1;
    goto out;
  }
  memmove(r->secrets + pos + 1, r->secrets + pos, (r->n - pos) * sizeof *r->secrets);
  memmove(r->lens + pos + 1, r->lens + pos, (r->n - pos) * sizeof *r->lens);
  r->secrets[pos] = copy;
  r->lens[pos] = len;
  r->first[(unsigned char)secret[0]] = 1;
  r->n++;
out:
  pthread_mutex_unlock(&r->lock);
  return rc;
}

int sbio__looks_like_credential_key(const char *key) {
  static const char *const needles[] = {"token",   "secret", "password",   "passwd", "api_key",
                                        "api-key", "apikey", "credential", "auth"};
  if (!key) return 0;
  size_t klen = strlen(key);
  for (size_t i = 0; i < sizeof needles / sizeof needles[0]; i++) {
    size_t nlen = strlen(needles[i]);
    for (size_t off = 0; off + nlen <= klen; off++)
      if (strncasecmp(key + off, needles[i], nlen) == 0) return 1;
  }
  return 0;
}

typedef struct outbuf {
  char *p;
  size_t len, cap;
} outbuf;

static int put(outbuf *o, const char *piece, size_t n) {
  if (o->len + n + 1 > o->cap) {
    size_t cap = (o->len + n + 1) * 2;
    char *grown = realloc(o->p, cap);
    if (!grown) return -1;
    o->p = grown;
    o->cap = cap;
  }
  memcpy(o->p + o->len, piece, n);
  o->len += n;
  return 0;
}

/* One pass: a position whose byte begins no secret is skipped with one
 * table look-up; the text between matches is copied in one piece. At each
 * position the longest matching secret wins (the set is longest first),
 * and the scan resumes after it, as a left-to-right replacement does. */
char *sbio__redact_set(const sbio__secret_set *set, const char *text) {
  if (!text) return NULL;
  size_t tlen = strlen(text);
  outbuf o = {malloc(tlen + 1), 0, tlen + 1};
  if (!o.p) return NULL;
  const char *p = text, *run = text, *end = text + tlen;
  while (p < end) {
    if (!set->first[(unsigned char)*p]) {
      p++;
      continue;
    }
    size_t match = 0, left = (size_t)(end - p);
    for (size_t i = 0; i < set->n && !match; i++)
      if (set->lens[i] <= left && set->values[i][0] == *p && memcmp(p, set->values[i], set->lens[i]) == 0)
        match = set->lens[i];
    if (!match) {
      p++;
      continue;
    }
    if (put(&o, run, (size_t)(p - run)) != 0 || put(&o, SBIO_REDACTED, sizeof SBIO_REDACTED - 1) != 0) goto oom;
    p += match;
    run = p;
  }
  if (put(&o, run, (size_t)(end - run)) != 0) goto oom;
  o.p[o.len] = '\0';
  return o.p;
oom:
  explicit_bzero(o.p, o.len);
  free(o.p);
  return NULL;
}

char *sbio__redact_with(const char *const *secrets, size_t n, const char *text) {
  unsigned char first[256] = {0};
  sbio__secret_set set = {secrets, NULL, 0, first};
  size_t *lens = n ? malloc(n * sizeof *lens) : NULL;
  if (n && !lens) return NULL;
  /* Empty entries are dropped: they would match everywhere. */
  const char **kept = n ? malloc(n * sizeof *kept) : NULL;
  if (n && !kept) {
    free(lens);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(secrets[i]);
    if (!len) continue;
    kept[set.n] = secrets[i];
    lens[set.n++] = len;
    first[(unsigned char)secrets[i][0]] = 1;
  }
  set.values = kept;
  set.lens = lens;
  char *out = sbio__redact_set(&set, text);
  free(kept);
  free(lens);
  return out;
}

char *sbio__redact(sbio__redactor *r, const char *text) {
  pthread_mutex_lock(&r->lock);
  sbio__secret_set set = {(const char *const *)r->secrets, r->lens, r->n, r->first};
  char *out = sbio__redact_set(&set, text);
  pthread_mutex_unlock(&r->lock);
  return out;
}
