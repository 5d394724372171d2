/* SPDX-License-Identifier: MIT */
/* The backend's own secrets: a set of values, kept longest first so that a
 * secret containing another is replaced whole. */
#include "sdk_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct sbio_sdk_secrets {
  pthread_mutex_t lock;
  char **values;
  size_t n, cap;
};

sbio_sdk_secrets *sbio_sdk_secrets_new(void) {
  sbio_sdk_secrets *s = calloc(1, sizeof *s);
  if (s) pthread_mutex_init(&s->lock, NULL);
  return s;
}

void sbio_sdk_secrets_free(sbio_sdk_secrets *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) {
    /* Do not leave credentials lying around in freed memory. */
    sbio__sdk_wipe(s->values[i], strlen(s->values[i]));
    free(s->values[i]);
  }
  free(s->values);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

static int insert_locked(sbio_sdk_secrets *s, const char *value) {
  for (size_t i = 0; i < s->n; i++)
    if (!strcmp(s->values[i], value)) return 0;
  size_t len = strlen(value), at = 0;
  while (at < s->n && strlen(s->values[at]) >= len) at++;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 4;
    char **grown = realloc(s->values, cap * sizeof *grown);
    if (!grown) return -1;
    s->values = grown;
    s->cap = cap;
  }
  char *copy = strdup(value);
  if (!copy) return -1;
  memmove(s->values + at + 1, s->values + at, (s->n - at) * sizeof *s->values);
  s->values[at] = copy;
  s->n++;
  return 0;
}

int sbio_sdk_secrets_add(sbio_sdk_secrets *s, const char *value) {
  if (!s || !value || !value[0]) return 0;
  pthread_mutex_lock(&s->lock);
  int rc = insert_locked(s, value);
  pthread_mutex_unlock(&s->lock);
  return rc;
}

/* A copy of text with each secret met on the way replaced, scanning left
 * to right and trying the longest secrets first. */
char *sbio__sdk_secrets_apply(const sbio_sdk_secrets *cs, const char *text) {
  sbio_sdk_secrets *s = (sbio_sdk_secrets *)cs; /* the lock is the only mutable part */
  if (!s) return strdup(text);
  pthread_mutex_lock(&s->lock);
  sbio__sdk_buf out = {0};
  const char *p = text;
  while (*p && out.ok >= 0) {
    size_t hit = 0;
    for (size_t i = 0; i < s->n && !hit; i++) {
      size_t len = strlen(s->values[i]);
      if (!strncmp(p, s->values[i], len)) hit = len;
    }
    if (hit) {
      sbio__sdk_buf_add(&out, SBIO_SDK_REDACTED, strlen(SBIO_SDK_REDACTED));
      p += hit;
    } else {
      sbio__sdk_buf_add(&out, p, 1);
      p++;
    }
  }
  pthread_mutex_unlock(&s->lock);
  return sbio__sdk_buf_take(&out);
}
