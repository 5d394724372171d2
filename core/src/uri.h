/* SPDX-License-Identifier: MIT */
/* Target URIs: "<backend>://[<template>][?timeout=N]" (the reference's DSN
 * grammar). Parsing is strict: a fragment, a repeated or unknown parameter,
 * a malformed timeout or anything that looks like a credential (a
 * credential-looking parameter, userinfo before '@') is refused, never
 * ignored, and a refusal never repeats what may be a secret. */
#ifndef SBIO_URI_H
#define SBIO_URI_H

#include <sandboxio/sandboxio.h>

typedef struct sbio__uri {
  char backend[32];
  char *template_name; /* NULL when empty */
  int has_timeout;
  double timeout_s;
} sbio__uri;

/* Where a refusal's hint finds the variable a backend reads its credential
 * from: `credential_var(user, backend)` (the host's answer from the
 * backend's metadata note), else the first-party map below. */
typedef struct sbio__uri_ctx {
  const char *(*credential_var)(void *user, const char *backend);
  void *user;
} sbio__uri_ctx;

sbio_code sbio__uri_parse(const char *text, sbio__uri *out, sbio_error *err);
/* The same, with the hints' lookup (ctx may be NULL). */
sbio_code sbio__uri_parse_ex(const char *text, sbio__uri *out, const sbio__uri_ctx *ctx, sbio_error *err);
void sbio__uri_free(sbio__uri *u);
/* Whether a template holds userinfo ("user:password@..."): any '@' not
 * followed by a digest ("@sha256:<hex>"). */
int sbio__template_has_userinfo(const char *tmpl);
/* The SBX_E1000 refusal of userinfo found in `where`, naming the variable
 * to use instead; the value is never repeated. */
sbio_code sbio__uri_refuse_userinfo(const char *backend, const sbio__uri_ctx *ctx, const char *where, sbio_error *err);
/* The environment variable a backend reads its credential from, or NULL. */
const char *sbio__credential_env_var(const char *backend);

#endif
