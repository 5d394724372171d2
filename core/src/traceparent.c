/* SPDX-License-Identifier: MIT */
#include "traceparent.h"

#include <string.h>

#define TRACEPARENT_V00_LEN 55 /* 2 + 1 + 32 + 1 + 16 + 1 + 2 */

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1; /* upper case is invalid in traceparent */
}

/* n bytes from 2n lower-case hex digits; -1 on any other character. */
static int hex_decode(const char *text, unsigned char *out, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int hi = hex_value(text[2 * i]), lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i] = (unsigned char)(hi << 4 | lo);
  }
  return 0;
}

static int all_zero(const unsigned char *bytes, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (bytes[i]) return 0;
  return 1;
}

int sbio__traceparent_parse(const char *text, sbio__trace_context *out, const char **why) {
  const char *dummy;
  if (!why) why = &dummy;
  if (!text) {
    *why = "it is empty";
    return -1;
  }
  while (*text == ' ' || *text == '\t') text++;
  size_t len = strlen(text);
  while (len && (text[len - 1] == ' ' || text[len - 1] == '\t')) len--;
  unsigned char version;
  sbio__trace_context ctx;
  if (len < TRACEPARENT_V00_LEN) {
    *why = "it is shorter than the 55 characters of VV-TRACEID-SPANID-FLAGS";
    return -1;
  }
  if (hex_decode(text, &version, 1) != 0 || version == 0xff) {
    *why = "the version is not two lower-case hex digits other than ff";
    return -1;
  }
  if (version == 0 && len != TRACEPARENT_V00_LEN) {
    *why = "version 00 is exactly 55 characters";
    return -1;
  }
  if (len > TRACEPARENT_V00_LEN && text[TRACEPARENT_V00_LEN] != '-') {
    *why = "the fields after the flags must start with '-'";
    return -1;
  }
  if (text[2] != '-' || text[35] != '-' || text[52] != '-') {
    *why = "the fields are not separated by '-' at the right places";
    return -1;
  }
  if (hex_decode(text + 3, ctx.trace_id, SBIO__TRACE_ID_BYTES) != 0 ||
      hex_decode(text + 36, ctx.span_id, SBIO__SPAN_ID_BYTES) != 0 || hex_decode(text + 53, &ctx.flags, 1) != 0) {
    *why = "the trace id, span id and flags must be lower-case hex digits";
    return -1;
  }
  if (all_zero(ctx.trace_id, sizeof ctx.trace_id)) {
    *why = "the trace id is all zeros";
    return -1;
  }
  if (all_zero(ctx.span_id, sizeof ctx.span_id)) {
    *why = "the parent span id is all zeros";
    return -1;
  }
  *out = ctx;
  return 0;
}

void sbio__hex_encode(const unsigned char *bytes, size_t n, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 0xf];
  }
  out[2 * n] = '\0';
}
