/* SPDX-License-Identifier: MIT */
/* Fuzz target: the JSON-RPC reader of `sbio mcp` (cli/mcp/json.c,
 * jsonrpc.c) on arbitrary bytes: framing (a stdio stream split at
 * newlines, and the whole input as one HTTP body), classification, the
 * writer fed with whatever was parsed, and the Host/Origin guard.
 *
 * Invariants (a violation traps):
 *   - every message is classified, an invalid one with a reason;
 *   - whatever the writer produces from parsed values or raw bytes is valid
 *     UTF-8 and parses back, and a parsed document written out parses to
 *     the same text again (the writer is a fixed point);
 *   - valid UTF-8 written as a string comes back byte for byte;
 *   - base64 round-trips. */
#include "base64.h"
#include "http_guard.h"
#include "json.h"
#include "jsonrpc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_value(const mj_value *v, size_t *len) {
  mj_writer w;
  mj_w_init(&w, 64 * 1024 * 1024);
  mj_w_value(&w, v);
  return mj_w_take(&w, len);
}

static void check_frame(const char *text, size_t len) {
  rpc_frame f;
  if (rpc_frame_parse(text, len, &f) != 0) return; /* out of memory */
  if (f.n == 0) __builtin_trap();
  for (size_t i = 0; i < f.n; i++) {
    const rpc_msg *m = &f.msgs[i];
    if (m->kind == RPC_INVALID && (!m->why[0] || (m->error != RPC_PARSE_ERROR && m->error != RPC_INVALID_REQUEST)))
      __builtin_trap();
    if ((m->kind == RPC_REQUEST || m->kind == RPC_NOTIFICATION) && (!m->method || !m->method[0])) __builtin_trap();
    if (m->kind == RPC_REQUEST) {
      char *key = rpc_id_key(m->id);
      if (!key) __builtin_trap();
      free(key);
    }
    /* The error answer for it is valid JSON. */
    mj_writer w;
    mj_w_init(&w, 1024 * 1024);
    rpc_write_error(&w, m->kind == RPC_RESPONSE ? NULL : m->id, RPC_INVALID_REQUEST, m->why);
    size_t n = 0;
    char *out = mj_w_take(&w, &n);
    if (!out || !mj_utf8_valid(out, n)) __builtin_trap();
    mj_error e;
    mj_doc *back = mj_parse(out, n, 64, &e);
    if (!back) __builtin_trap();
    mj_free(back);
    free(out);
  }
  if (f.doc) {
    size_t n1 = 0, n2 = 0;
    char *once = write_value(mj_root(f.doc), &n1);
    /* A document nested deeper than the writer's own bound is refused by
     * the writer; anything else must come out. */
    if (once) {
      if (!mj_utf8_valid(once, n1)) __builtin_trap();
      mj_error e;
      mj_doc *again = mj_parse(once, n1, 64, &e);
      if (!again) __builtin_trap();
      char *twice = write_value(mj_root(again), &n2);
      if (!twice || n1 != n2 || memcmp(once, twice, n1) != 0) __builtin_trap();
      free(twice);
      mj_free(again);
      free(once);
    }
  }
  rpc_frame_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  /* One HTTP body. */
  check_frame(text, size);
  /* A stdio stream: one frame per line. */
  size_t start = 0;
  for (size_t i = 0; i <= size; i++) {
    if (i == size || text[i] == '\n') {
      if (i > start) check_frame(text + start, i - start);
      start = i + 1;
    }
  }
  /* Raw bytes as a string: valid UTF-8 out, always; the same bytes back
   * when they were valid UTF-8. */
  mj_writer w;
  mj_w_init(&w, 64 * 1024 * 1024);
  mj_w_strn(&w, text, size);
  size_t n = 0;
  char *out = mj_w_take(&w, &n);
  if (!out || !mj_utf8_valid(out, n)) __builtin_trap();
  mj_error e;
  mj_doc *d = mj_parse(out, n, 4, &e);
  if (!d || mj_root(d)->type != MJ_STRING) __builtin_trap();
  if (mj_utf8_valid(text, size) && (mj_root(d)->len != size || memcmp(mj_root(d)->text, text, size) != 0))
    __builtin_trap();
  mj_free(d);
  free(out);
  /* base64 both ways. */
  size_t elen = 0, dlen = 0;
  char *enc = mcp_base64_encode(data, size, &elen);
  unsigned char *dec = NULL;
  if (enc && (mcp_base64_decode(enc, elen, &dec, &dlen) != 0 || dlen != size || (size && memcmp(dec, data, size))))
    __builtin_trap();
  free(enc);
  free(dec);
  if (mcp_base64_decode(text, size, &dec, &dlen) == 0) free(dec);
  /* The guard, with the input split into a Host and an Origin. */
  char *copy = malloc(size + 1);
  if (copy) {
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *nl = strchr(copy, '\n');
    char *origin = NULL;
    if (nl) {
      *nl = '\0';
      origin = nl + 1;
    }
    static const char *const allow[] = {"http://localhost:3000"};
    mcp_http_guard g = {1, 8000, allow, 1};
    char why[256];
    mcp_guard_check(&g, copy, origin, why, sizeof why);
    g.loopback = 0;
    mcp_guard_check(&g, copy, origin, why, sizeof why);
    free(copy);
  }
  return 0;
}
