/* SPDX-License-Identifier: MIT */
/* Fuzz target: a target URI -> sbio__uri_parse.
 *
 * The input (cut at its first NUL) is parsed; what is accepted must be
 * well-formed (a valid backend name, a template without userinfo or
 * control characters, a timeout within the core's maximum) and must parse
 * again, to the same fields, from its canonical spelling. A refusal is
 * SBX_E1000 with a message. Leaks and out-of-bounds reads are findings
 * under the sanitizers. */
#include "metadata.h"
#include "uri.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_accepted(const sbio__uri *u) {
  if (!sbio__backend_name_valid(u->backend)) __builtin_trap();
  if (u->template_name) {
    if (!u->template_name[0] || sbio__template_has_userinfo(u->template_name)) __builtin_trap();
    for (const unsigned char *p = (const unsigned char *)u->template_name; *p; p++)
      if (*p <= 0x20 || *p == 0x7f || *p == '?' || *p == '#') __builtin_trap();
  }
  if (u->has_timeout && !(isfinite(u->timeout_s) && u->timeout_s > 0 && u->timeout_s <= SBIO_MAX_TIMEOUT_S))
    __builtin_trap();
}

/* backend://template?timeout=T parses back to the same fields. */
static void check_round_trip(const sbio__uri *u, sbio_error *err) {
  const char *tmpl = u->template_name ? u->template_name : "";
  size_t size = strlen(u->backend) + strlen(tmpl) + 64;
  char *text = malloc(size);
  if (!text) return;
  int n = snprintf(text, size, "%s://%s", u->backend, tmpl);
  if (u->has_timeout) snprintf(text + n, size - (size_t)n, "?timeout=%.17g", u->timeout_s);
  sbio__uri again;
  if (sbio__uri_parse(text, &again, err) != SBIO_OK) __builtin_trap();
  if (strcmp(again.backend, u->backend) != 0 || (!again.template_name) != (!u->template_name) ||
      (u->template_name && strcmp(again.template_name, u->template_name) != 0) || again.has_timeout != u->has_timeout ||
      (u->has_timeout && again.timeout_s != u->timeout_s))
    __builtin_trap();
  sbio__uri_free(&again);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A copy of exactly the input's bytes: a read past the URI's end is an
   * out-of-bounds read, not a look at the fuzzer's buffer. */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  sbio_error *err = sbio_error_new();
  sbio__uri u;
  sbio_code rc = sbio__uri_parse(text, &u, err);
  if (rc == SBIO_OK) {
    check_accepted(&u);
    check_round_trip(&u, err);
  } else {
    if (rc != SBIO_E_CONFIG && rc != SBIO_E_INTERNAL) __builtin_trap();
    if (sbio_error_code(err) != rc || !sbio_error_message(err)[0]) __builtin_trap();
    if (u.template_name) __builtin_trap(); /* nothing kept from a refused URI */
  }
  sbio__uri_free(&u);
  sbio__uri_free(&u); /* a second free is harmless */
  sbio_error_free(err);
  free(text);
  return 0;
}
