/* SPDX-License-Identifier: MIT */
/* Secret redaction. One redactor per host holds every secret value it has
 * seen (sandbox secrets, credential-looking env values); every log line,
 * audit event, description and error passes through it before anyone else
 * sees it. Secrets are kept until the host closes, so a late message about
 * a closed sandbox is still redacted. */
#ifndef SBIO_REDACT_H
#define SBIO_REDACT_H

#include <pthread.h>
#include <stddef.h>

#define SBIO_REDACTED "***"

/* The secrets in the form one pass over a text needs: each length known,
 * and which bytes begin some secret, so most positions cost one table
 * look-up. */
typedef struct sbio__secret_set {
  const char *const *values; /* sorted longest first, so a secret containing another is replaced whole */
  const size_t *lens;
  size_t n;
  const unsigned char *first; /* 256 entries; first[b]: some secret begins with byte b */
} sbio__secret_set;

typedef struct sbio__redactor {
  pthread_mutex_t lock;
  char **secrets; /* sorted longest first */
  size_t *lens;   /* strlen of each, kept alongside */
  size_t n, cap;
  unsigned char first[256];
} sbio__redactor;

void sbio__redactor_init(sbio__redactor *r);
void sbio__redactor_free(sbio__redactor *r);
/* Adds a value (empty values are ignored; duplicates kept once). */
int sbio__redactor_add(sbio__redactor *r, const char *secret);
/* Whether an env key looks like it holds a credential (token, secret,
 * password, passwd, api_key, api-key, apikey, credential, auth). */
int sbio__looks_like_credential_key(const char *key);
/* malloc'd copy of text with every known secret replaced; NULL on OOM. */
char *sbio__redact(sbio__redactor *r, const char *text);
/* Same against an explicit list, sorted longest first (no lock). */
char *sbio__redact_with(const char *const *secrets, size_t n, const char *text);
/* The one-pass replacement itself, against a prepared set. */
char *sbio__redact_set(const sbio__secret_set *set, const char *text);

#endif
