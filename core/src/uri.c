/* SPDX-License-Identifier: MIT */
#include "uri.h"

#include "error_internal.h"
#include "metadata.h"
#include "redact.h"

#include <math.h>
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

void sbio__uri_free(sbio__uri *u) {
  free(u->template_name);
  u->template_name = NULL;
}

static sbio_code parse_query(const char *query, sbio__uri *out, sbio_error *err) {
  char *copy = strdup(query);
  if (!copy) return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  sbio_code rc = SBIO_OK;
  char *save = NULL;
  for (char *pair = strtok_r(copy, "&", &save); pair; pair = strtok_r(NULL, "&", &save)) {
    char *eq = strchr(pair, '=');
    if (eq) *eq = '\0';
    const char *key = pair, *value = eq ? eq + 1 : "";
    if (sbio__looks_like_credential_key(key)) {
      /* The value is never echoed: it is likely a live credential. */
      const char *var = sbio__credential_env_var(out->backend);
      char hint[256];
      if (var)
        snprintf(hint, sizeof hint, "set the %s environment variable instead; never put credentials in a URI", var);
      else
        snprintf(hint, sizeof hint, "backend %s reads its credential from its environment; never put it in a URI",
                 out->backend);
      rc = sbio__error_set(err, SBIO_E_CONFIG, hint, "the target URI carries a credential-looking parameter \"%s\"",
                           key);
      break;
    }
    if (strcmp(key, "timeout") != 0) {
      rc = sbio__error_set(err, SBIO_E_CONFIG, "the only URI parameter is timeout; use create options for the rest",
                           "unknown URI parameter \"%s\"", key);
      break;
    }
    if (out->has_timeout) {
      rc = sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "URI parameter \"timeout\" is repeated");
      break;
    }
    char *end = NULL;
    double t = strtod(value, &end);
    if (!value[0] || *end != '\0' || !isfinite(t) || t <= 0) {
      rc = sbio__error_set(err, SBIO_E_CONFIG, "timeout is a positive number of seconds, e.g. ?timeout=600",
                           "URI timeout \"%.32s\" is not a positive number of seconds", value);
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
  memset(out, 0, sizeof *out);
  if (!text || !text[0]) return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "empty target URI");
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    if (*p <= 0x20 || *p == 0x7f)
      return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT,
                             "target URI contains whitespace or a control character at offset %zu",
                             (size_t)((const char *)p - text));
  const char *sep = strstr(text, "://");
  if (!sep) return sbio__error_set(err, SBIO_E_CONFIG, GRAMMAR_HINT, "target \"%.64s\" has no \"://\"", text);
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
  if (tlen) {
    out->template_name = strndup(rest, tlen);
    if (!out->template_name) return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  if (q) {
    sbio_code rc = parse_query(q + 1, out, err);
    if (rc != SBIO_OK) {
      sbio__uri_free(out);
      return rc;
    }
  }
  return SBIO_OK;
}
