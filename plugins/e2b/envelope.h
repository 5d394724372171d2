/* SPDX-License-Identifier: MIT */
/* Incremental parser of Connect streaming envelopes: 1 flag byte, a 4-byte
 * big-endian length, that many message bytes. Bytes arrive as the network
 * hands them over: an envelope may be split anywhere, several may come in
 * one read. Pure (no I/O) and bounded, so any input is safe. */
#ifndef SBIO_E2B_ENVELOPE_H
#define SBIO_E2B_ENVELOPE_H

#include <stddef.h>
#include <stdint.h>

#define E2B_ENV_COMPRESSED 0x01u
#define E2B_ENV_END_STREAM 0x02u
#define E2B_ENV_MAX_MESSAGE ((size_t)16 << 20)

typedef enum e2b_env_status {
  E2B_ENV_OK = 0,
  E2B_ENV_TOO_BIG = -1,        /* a message over the limit */
  E2B_ENV_COMPRESSED_ERR = -2, /* compressed, which was not negotiated */
  E2B_ENV_AFTER_END = -3,      /* bytes after the end-of-stream envelope */
  E2B_ENV_NO_MEMORY = -4,
  E2B_ENV_BAD_FLAGS = -5, /* flag bits the protocol does not define */
  E2B_ENV_STOPPED = -6    /* the callback asked to stop */
} e2b_env_status;

/* One complete message; return non-zero to stop parsing. */
typedef int (*e2b_env_fn)(void *user, unsigned flags, const unsigned char *msg, size_t len);

typedef struct e2b_env_parser {
  unsigned char head[5];
  size_t head_len;
  unsigned char *msg;
  size_t msg_len, msg_need, msg_cap;
  size_t max_message;
  int in_body;
  int ended;  /* the end-of-stream envelope was delivered */
  int failed; /* sticky: a status < 0 was returned */
} e2b_env_parser;

void sbio__e2b_env_init(e2b_env_parser *p, size_t max_message);
void sbio__e2b_env_free(e2b_env_parser *p);
/* Feeds bytes; calls fn for each complete envelope, in order. Once it
 * fails it keeps failing. */
e2b_env_status sbio__e2b_env_feed(e2b_env_parser *p, const void *data, size_t len, e2b_env_fn fn, void *user);
/* 1 when no envelope is half-received (the stream may end here). */
int sbio__e2b_env_at_boundary(const e2b_env_parser *p);
const char *sbio__e2b_env_status_text(e2b_env_status status);

/* A request envelope around msg: malloc'd, *out_len = len + 5. */
unsigned char *sbio__e2b_env_wrap(const char *msg, size_t len, size_t *out_len);

#endif
