/* SPDX-License-Identifier: MIT */
/* W3C Trace Context: the `traceparent` a caller hands us so that our spans
 * become children of theirs. */
#ifndef SBIO_TRACEPARENT_H
#define SBIO_TRACEPARENT_H

#include <stddef.h>
#include <stdint.h>

#define SBIO__TRACE_ID_BYTES 16
#define SBIO__SPAN_ID_BYTES 8
#define SBIO__TRACE_FLAG_SAMPLED 0x01

typedef struct sbio__trace_context {
  unsigned char trace_id[SBIO__TRACE_ID_BYTES];
  unsigned char span_id[SBIO__SPAN_ID_BYTES];
  uint8_t flags;
} sbio__trace_context;

/* Parses "VV-TRACEID-SPANID-FLAGS" (lower-case hex; version 00 exactly 55
 * characters; a later version may append "-..." which is ignored; version
 * ff, an all-zero trace id or span id are invalid). Surrounding spaces and
 * tabs are ignored. Returns 0, or -1 with *why saying what was wrong. */
int sbio__traceparent_parse(const char *text, sbio__trace_context *out, const char **why);

/* Lower-case hex of n bytes into out (2n + 1 bytes). */
void sbio__hex_encode(const unsigned char *bytes, size_t n, char *out);

#endif
