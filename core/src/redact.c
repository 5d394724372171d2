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
    explicit_bzero(r->secrets[i], strlen(r->secrets[i]));
    free(r->secrets[i]);
  }
  free(r->secrets);
  pthread_mutex_destroy(&r->lock);
}

int sbio__redactor_add(sbio__redactor *r, const char *secret) {
  if (!secret || !secret[0]) return 0;
  int rc = 0;
  pthread_mutex_lock(&r->lock);
  size_t len = strlen(secret), pos = r->n;
  for (size_t i = 0; i < r->n; i++) {
    if (strcmp(r->secrets[i], secret) == 0) goto out;
    if (pos == r->n && strlen(r->secrets[i]) < len) pos = i;
  }
  if (r->n == r->cap) {
    size_t ncap = r->cap ? r->cap * 2 : 8;
    char **p = realloc(r->secrets, ncap * sizeof *p);
    if (!p) {
      rc = -1;
      goto out;
    }
    r->secrets = p;
    r->cap = ncap;
  }
  char *copy = strdup(secret);
  if (!copy) {
    rc = -1;
    goto out;
  }
  memmove(r->secrets + pos + 1, r->secrets + pos, (r->n - pos) * sizeof *r->secrets);
  r->secrets[pos] = copy;
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

char *sbio__redact_with(const char *const *secrets, size_t n, const char *text) {
  if (!text) return NULL;
  size_t cap = strlen(text) + 1, len = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  const char *p = text;
  while (*p) {
    size_t match = 0;
    /* Secrets are ordered longest first: the first hit is the longest. */
    for (size_t i = 0; i < n && !match; i++) {
      size_t slen = strlen(secrets[i]);
      if (slen && strncmp(p, secrets[i], slen) == 0) match = slen;
    }
    const char *piece = match ? SBIO_REDACTED : p;
    size_t plen = match ? strlen(SBIO_REDACTED) : 1;
    if (len + plen + 1 > cap) {
      cap = (len + plen + 1) * 2;
      char *grown = realloc(out, cap);
      if (!grown) {
        free(out);
        return NULL;
      }
      out = grown;
    }
    memcpy(out + len, piece, plen);
    len += plen;
    p += match ? match : 1;
  }
  out[len] = '\0';
  return out;
}

char *sbio__redact(sbio__redactor *r, const char *text) {
  pthread_mutex_lock(&r->lock);
  char *out = sbio__redact_with((const char *const *)r->secrets, r->n, text);
  pthread_mutex_unlock(&r->lock);
  return out;
}
