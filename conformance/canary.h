/* SPDX-License-Identifier: MIT */
/* Planted secrets. A canary's value carries a random token between
 * characters that encoders change ('"', '/', '+'), so a leak is found even
 * when the backend escaped or URL-encoded the value on its way into a
 * message: the library redacts the literal value, not its encodings. */
#ifndef SBIO_KIT_CANARY_H
#define SBIO_KIT_CANARY_H

#include <stddef.h>

#define KIT_SECRET_VAR "SBIO_CONFORMANCE_SECRET"
/* A credential-looking environment variable: the library treats its value
 * as a secret too, without set_secret. */
#define KIT_TOKEN_VAR "SBIO_CONFORMANCE_API_TOKEN"

typedef struct kit_canary {
  char token[49]; /* random hex: what is searched for */
  char value[80]; /* what is planted */
} kit_canary;

void kit_canary_make(kit_canary *k, const char *prefix);
/* Whether text (len bytes) holds the token or the value. */
int kit_canary_in(const kit_canary *k, const char *text, size_t len);

#endif
