/* SPDX-License-Identifier: MIT */
/* Target URIs: "<backend>://[<template>][?timeout=N]" (the reference's DSN
 * grammar). Parsing is strict: a fragment, a repeated or unknown parameter,
 * a malformed timeout or anything that looks like a credential is refused,
 * never ignored. */
#ifndef SBIO_URI_H
#define SBIO_URI_H

#include <sandboxio/sandboxio.h>

typedef struct sbio__uri {
  char backend[32];
  char *template_name; /* NULL when empty */
  int has_timeout;
  double timeout_s;
} sbio__uri;

sbio_code sbio__uri_parse(const char *text, sbio__uri *out, sbio_error *err);
void sbio__uri_free(sbio__uri *u);
/* The environment variable a backend reads its credential from, or NULL. */
const char *sbio__credential_env_var(const char *backend);

#endif
