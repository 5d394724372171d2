/* SPDX-License-Identifier: MIT */
#include "uri.h"

#include "error_internal.h"
#include "metadata.h"
#include "redact.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRAMMAR_HINT "targets look like <backend>://[<template>][?timeout=SECONDS], e.g. docker://python:3.12-slim"

const char *sbio__credential_env_var(const char *backend) {
  static const struct {
    const char *backend, *var;
  } vars[] = {{"e2b", "E2B_API_KEY"}, {"daytona", "DAYTONA_API_KEY"}, {"fake", "SBIO_FAKE_TOKEN"}};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (strcmp(vars[i].backend, backend) == 0) return vars[i].var;
  return NULL;
}

/* The hint for a credential found in a target: the variable to use instead
 * (the reference's per-backend map), else where the backend reads it. */
static void credential_hint(const char *backend, const sbio__uri_ctx *ctx, char *hint, size_t size) {
  const char *var = ctx && ctx->credential_var ? ctx->credential_var(ctx->user, backend) : NULL;
  if (!var) var = sbio__credential_env_var(backend);
  if (var)
    snprintf(hint, size, "set the %s environment variable instead; never put credentials in a URI", var);
  else if (strcmp(backend, "docker") == 0)
    snprintf(hint, size,
             "docker targets name an image and take no registry credentials: pull a private image on the "
             "engine's host first (docker login, docker pull); never put credentials in a URI");
  else
    snprintf(hint, size, "backend %s reads its credential from its environment; never put it in a URI", backend);
}

/* A parameter name that is safe to repeat in a message: a short plain
 * identifier given with '='. Anything else (a bare "?e2b_...", a long
 * token-shaped name) may be the credential itself and is never echoed. */
static int echoable_name(const char *key, int has_value) {
  size_t n = strlen(key);
  if (!has_value || n == 0 || n > 24 || !(isalpha((unsigned char)key[0]) || key[0] == '_')) return 0;
  for (size_t i = 0; i < n; i++)
    if (!(isalnum((unsigned char)key[i]) || key[i] == '_' || key[i] == '-' || key[i] == '.')) return 0;
  return 1;
}

/* An OCI digest, "algorithm:hex" (sha256:<64 hex>), which is the one
 * legitimate '@' in a template: docker://python:3.12@sha256:... */
static int is_digest(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || strchr("+._-", s[i]))) i++;
  if (i == 0 || i >= n || s[i] != ':') return 0;
  size_t hex = 0;
  for (i++; i < n; i++, hex++)
    if (!isxdigit((unsigned char)s[i])) return 0;
  return hex >= 32;
}

/* Userinfo ("user:password@") in the template part. A template never
 * holds an '@' except before a digest, so any other '@' is taken for
 * userinfo, even after a '/' (a password may contain one). It is refused,
 * never stored, audited or sent to the provider. */
static int has_userinfo(const char *tmpl, size_t tlen) {
  const char *at = memchr(tmpl, '@', tlen);
  if (!at) return 0;
  const char *after = at + 1;
  return !is_digest(after, tlen - (size_t)(after - tmpl));
}

int sbio__template_has_userinfo(const char *tmpl) {
  return tmpl && has_userinfo(tmpl, strlen(tmpl));
}

sbio_code sbio__uri_refuse_userinfo(const char *backend, const sbio__uri_ctx *ctx, const char *where, sbio_error *err) {
  char hint[320];
  credential_hint(backend, ctx, hint, sizeof hint);
  return sbio__error_set(err, SBIO_E_CONFIG, hint,
                         "%s carries userinfo (a user name or password before '@'), which is refused and not "
                         "repeated here",
                         where);
}

void sbio__uri_free(sbio__uri *u) {
  free(u->template_name);
  u->template_name = NULL;
}

static sbio_code parse_query(const char *query, sbio__uri *out, const sbio__uri_ctx *ctx, sbio_error *err) {
  char *copy = strdup(query);
  if (!copy) return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  sbio_code rc = SBIO_OK;
  char *save = NULL;
  size_t nth = 0;
  for (char *pair = strtok_r(copy, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
    char *eq = strchr(pair, '=');
    if (eq) *eq = '\0';
    const char *key = pair, *value = eq ? eq + 1 : "";
    nth++;
    /* Neither a value nor a name that may be the credential itself is
     * ever echoed: the parameter is named by its position instead. */
    int show = echoable_name(key, eq != NULL);
    if (sbio__looks_like_credential_key(key)) {
      char hint[320];
      credential_hint(out->backend, ctx, hint, sizeof hint);
      if (show)
        rc = sbio__error_set(err, SBIO_E_CONFIG, hint, "the target URI carries a credential-looking parameter \"%s\"",
                             key);
      else
        rc = sbio__error_set(err, SBIO_E_CONFIG, hint,
                             "the target URI carries a credential-looking parameter (parameter %zu of the query, "
                             "not repeated here)",
                             nth);
      break;
    }
    if (strcmp(key, "timeout") != 0) {
      if (show)
        rc = sbio__error_set(err, SBIO_E_CONFIG, "the only URI parameter is timeout; use create options for the rest",
                             "unknown URI parameter \"%s\"", key);
      else
        rc = sbio__error_set(err, SBIO_E_CONFIG,
                             "URI parameters are name=value and the only one is timeout; never put credentials in a "
                             "URI",
                             "unknown URI parameter (parameter %zu of the query, not repeated here: it is not a "
                             "plain name=value)",
                             nth);
      break;
    }
    if (out->has_timeout) {
      rc = sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "URI parameter \"timeout\" is repeated");
      break;
    }
    char *end = NULL;
    double t = strtod(value, &end);
    if (!value[0] || *end != '\0' || !isfinite(t) || t <= 0) {
      /* Query values are never echoed (one may be a misplaced credential). */
      rc = sbio__error_set(err, SBIO_E_CONFIG, "timeout is a positive number of seconds, e.g. ?timeout=600",
                           "the URI timeout is not a positive number of seconds");
      break;
    }
    if (t > SBIO_MAX_TIMEOUT_S) {
      rc = sbio__error_set(err, SBIO_E_CONFIG,
                           "the maximum is 86400 seconds (24 hours): sandboxes are never unbounded, and a longer "
                           "lifetime is refused, not shortened",
                           "URI timeout \"%.32s\" is above the maximum of 86400 seconds", value);
      break;
    }
    out->has_timeout = 1;
    out->timeout_s = t;
  }
  /* strtok_r skips empty pairs ("a&&b", trailing "&"); refuse them too. */
  if (rc == SBIO_OK && (query[0] == '&' || strstr(query, "&&") || (query[0] && query[strlen(query) - 1] == '&')))
    rc = sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "empty parameter in the URI query");
  if (rc == SBIO_OK && !query[0])
    rc = sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "empty query after '?' in the URI");
  free(copy);
  return rc;
}

sbio_code sbio__uri_parse(const char *text, sbio__uri *out, sbio_error *err) {
  return sbio__uri_parse_ex(text, out, NULL, err);
}

sbio_code sbio__uri_parse_ex(const char *text, sbio__uri *out, const sbio__uri_ctx *ctx, sbio_error *err) {
  memset(out, 0, sizeof *out);
  if (!text || !text[0]) return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "empty target URI");
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    if (*p <= 0x20 || *p == 0x7f)
      return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT,
                             "target URI contains whitespace or a control character at offset %zu",
                             (size_t)((const char *)p - text));
  const char *sep = strstr(text, "://");
  if (!sep) {
    /* The target is not echoed: whatever follows the scheme may hold a
     * credential (e2b:/base?api_key=...). A valid backend name before a
     * ':' is safe to name. */
    const char *colon = strchr(text, ':');
    char name[32];
    size_t nlen = colon ? (size_t)(colon - text) : 0;
    if (nlen > 0 && nlen < sizeof name) {
      memcpy(name, text, nlen);
      name[nlen] = '\0';
      if (sbio__backend_name_valid(name))
        return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT,
                               "target URI for backend \"%s\" has no \"://\" after the name (did you mean %s://?)",
                               name, name);
    }
    return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT,
                           "target URI has no \"://\" (it is not repeated here: it may hold a credential)");
  }
  size_t blen = (size_t)(sep - text);
  if (blen == 0 || blen >= sizeof out->backend)
    return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "target URI has an invalid backend name");
  memcpy(out->backend, text, blen);
  out->backend[blen] = '\0';
  if (!sbio__backend_name_valid(out->backend))
    return sbio__error_set(err, SBIO_E_CONFIG, "backend names are lower case: [a-z][a-z0-9_]{0,30}",
                           "target URI has an invalid backend name \"%s\"", out->backend);
  const char *rest = sep + 3;
  if (strchr(rest, '#'))
    return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "target URI has a fragment ('#'), which means nothing");
  const char *q = strchr(rest, '?');
  size_t tlen = q ? (size_t)(q - rest) : strlen(rest);
  if (has_userinfo(rest, tlen)) return sbio__uri_refuse_userinfo(out->backend, ctx, "the target URI", err);
  if (tlen) {
    out->template_name = strndup(rest, tlen);
    if (!out->template_name) return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  if (q) {
    sbio_code rc = parse_query(q + 1, out, ctx, err);
    if (rc != SBIO_OK) {
      sbio__uri_free(out);
      return rc;
    }
  }
  return SBIO_OK;
}
