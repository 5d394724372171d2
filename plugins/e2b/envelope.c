/* SPDX-License-Identifier: MIT */
#include "envelope.h"

#include <stdlib.h>
#include <string.h>

void sbio__e2b_env_init(e2b_env_parser *p, size_t max_message) {
  memset(p, 0, sizeof *p);
  p->max_message = max_message ? max_message : E2B_ENV_MAX_MESSAGE;
}

void sbio__e2b_env_free(e2b_env_parser *p) {
  free(p->msg);
  p->msg = NULL;
  p->msg_cap = p->msg_len = 0;
}

static e2b_env_status fail(e2b_env_parser *p, e2b_env_status st) {
  p->failed = st;
  return st;
}

static e2b_env_status deliver(e2b_env_parser *p, e2b_env_fn fn, void *user) {
  unsigned flags = p->head[0];
  p->in_body = 0;
  p->head_len = 0;
  if (flags & E2B_ENV_END_STREAM) p->ended = 1;
  int stop = fn ? fn(user, flags, p->msg ? p->msg : (const unsigned char *)"", p->msg_len) : 0;
  p->msg_len = 0;
  return stop ? fail(p, E2B_ENV_STOPPED) : E2B_ENV_OK;
}

e2b_env_status sbio__e2b_env_feed(e2b_env_parser *p, const void *data, size_t len, e2b_env_fn fn, void *user) {
  if (p->failed) return (e2b_env_status)p->failed;
  const unsigned char *in = data;
  while (len > 0) {
    if (p->ended) return fail(p, E2B_ENV_AFTER_END);
    if (!p->in_body) {
      size_t take = 5 - p->head_len;
      if (take > len) take = len;
      memcpy(p->head + p->head_len, in, take);
      p->head_len += take;
      in += take;
      len -= take;
      if (p->head_len < 5) break;
      unsigned flags = p->head[0];
      if (flags & E2B_ENV_COMPRESSED) return fail(p, E2B_ENV_COMPRESSED_ERR);
      if (flags & ~(unsigned)(E2B_ENV_COMPRESSED | E2B_ENV_END_STREAM)) return fail(p, E2B_ENV_BAD_FLAGS);
      size_t need = ((size_t)p->head[1] << 24) | ((size_t)p->head[2] << 16) | ((size_t)p->head[3] << 8) | p->head[4];
      if (need > p->max_message) return fail(p, E2B_ENV_TOO_BIG);
      p->msg_need = need;
      p->msg_len = 0;
      p->in_body = 1;
      /* +1 keeps room for a NUL the JSON parser may like. */
      if (need + 1 > p->msg_cap) {
        unsigned char *m = realloc(p->msg, need + 1);
        if (!m) return fail(p, E2B_ENV_NO_MEMORY);
        p->msg = m;
        p->msg_cap = need + 1;
      }
    }
    size_t take = p->msg_need - p->msg_len;
    if (take > len) take = len;
    if (take) memcpy(p->msg + p->msg_len, in, take);
    p->msg_len += take;
    in += take;
    len -= take;
    if (p->msg_len == p->msg_need) {
      p->msg[p->msg_len] = '\0';
      e2b_env_status st = deliver(p, fn, user);
      if (st != E2B_ENV_OK) return st;
    }
  }
  return E2B_ENV_OK;
}

int sbio__e2b_env_at_boundary(const e2b_env_parser *p) {
  return !p->in_body && p->head_len == 0;
}

const char *sbio__e2b_env_status_text(e2b_env_status status) {
  switch (status) {
  case E2B_ENV_OK:
    return "ok";
  case E2B_ENV_TOO_BIG:
    return "an envelope announced a message over the size limit";
  case E2B_ENV_COMPRESSED_ERR:
    return "a compressed envelope arrived though no compression was negotiated";
  case E2B_ENV_AFTER_END:
    return "data followed the end-of-stream envelope";
  case E2B_ENV_NO_MEMORY:
    return "e2b: out of memory";
  case E2B_ENV_BAD_FLAGS:
    return "an envelope carried undefined flag bits";
  case E2B_ENV_STOPPED:
    return "stopped";
  }
  return "unknown envelope error";
}

unsigned char *sbio__e2b_env_wrap(const char *msg, size_t len, size_t *out_len) {
  if (len > 0xffffffffu) return NULL;
  unsigned char *out = malloc(len + 5);
  if (!out) return NULL;
  out[0] = 0;
  out[1] = (unsigned char)(len >> 24);
  out[2] = (unsigned char)(len >> 16);
  out[3] = (unsigned char)(len >> 8);
  out[4] = (unsigned char)len;
  memcpy(out + 5, msg, len);
  *out_len = len + 5;
  return out;
}
