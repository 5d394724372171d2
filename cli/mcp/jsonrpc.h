/* SPDX-License-Identifier: MIT */
/* JSON-RPC 2.0 as MCP uses it: one frame (a line on stdio, a POST body
 * over HTTP) is one JSON text holding a message or a batch of them. This
 * layer parses a frame with the strict reader (json.h), classifies each
 * message and says precisely what is wrong with an invalid one, so the
 * protocol layer only sees well-formed requests and notifications.
 *
 * MCP narrows JSON-RPC: an id is a string or a number (never null), and
 * params, when present, is an object. */
#ifndef SBIO_MCP_JSONRPC_H
#define SBIO_MCP_JSONRPC_H

#include "json.h"

#include <stddef.h>

/* Error codes of JSON-RPC 2.0 (and the server range MCP uses). */
#define RPC_PARSE_ERROR (-32700)
#define RPC_INVALID_REQUEST (-32600)
#define RPC_METHOD_NOT_FOUND (-32601)
#define RPC_INVALID_PARAMS (-32602)
#define RPC_INTERNAL_ERROR (-32603)
#define RPC_SERVER_ERROR (-32000)

/* Largest frame the server reads: larger ones are refused unread (stdio
 * skips to the next newline, HTTP answers 413). The official SDK's HTTP
 * server uses the same bound. */
#define RPC_MAX_FRAME ((size_t)4 * 1024 * 1024)
/* Most messages in one batch (as the official SDK). */
#define RPC_MAX_BATCH 100
#define RPC_MAX_DEPTH 64

typedef enum rpc_kind {
  RPC_REQUEST,      /* method + id: must be answered */
  RPC_NOTIFICATION, /* method, no id: never answered */
  RPC_RESPONSE,     /* result or error + id: we send no requests, so ignored */
  RPC_INVALID       /* answered with `error` (id when one could be read) */
} rpc_kind;

typedef struct rpc_msg {
  rpc_kind kind;
  const mj_value *id;     /* REQUEST, RESPONSE; INVALID when readable; else NULL */
  const char *method;     /* REQUEST, NOTIFICATION: NUL-free, NUL-terminated */
  const mj_value *params; /* an object, or NULL when absent */
  int error;              /* INVALID: RPC_INVALID_REQUEST or RPC_PARSE_ERROR */
  char why[160];          /* INVALID: what was wrong */
} rpc_msg;

typedef struct rpc_frame {
  mj_doc *doc;
  rpc_msg *msgs; /* n messages; one INVALID with id NULL for a parse error */
  size_t n;
  int batch; /* the frame was an array */
} rpc_frame;

/* Parses and classifies. Returns 0 (the frame is usable, possibly holding
 * only INVALID messages) or -1 on out of memory. */
int rpc_frame_parse(const char *text, size_t len, rpc_frame *out);
void rpc_frame_free(rpc_frame *f);

/* The most bytes a value read from one frame takes when written back: a
 * string's escaping turns a byte into at most six (a DEL is \u007f), so
 * this is 6 * RPC_MAX_FRAME. Writers that copy a client's value (an id, a
 * progress token, the arguments) size themselves by it. */
#define RPC_MAX_ECHO ((size_t)6 * RPC_MAX_FRAME)

/* The bytes `id` takes when written back (at most RPC_MAX_ECHO): a
 * response is sized for its own content plus this, so an id of any length
 * the reader accepted comes back as sent. */
size_t rpc_id_room(const mj_value *id);

/* Writes {"jsonrpc":"2.0","id":ID,"error":{"code":C,"message":M}} (id null
 * when NULL). */
void rpc_write_error(mj_writer *w, const mj_value *id, int code, const char *message);
/* Starts {"jsonrpc":"2.0","id":ID,"result": ; the caller writes the result
 * value, then calls rpc_write_end. */
void rpc_write_result_begin(mj_writer *w, const mj_value *id);
/* Starts {"jsonrpc":"2.0","method":M,"params": for a notification. */
void rpc_write_notification_begin(mj_writer *w, const char *method);
void rpc_write_end(mj_writer *w);

/* An id as a comparison key (["s","abc"] or ["n",12]: NUL-free JSON text,
 * so strcmp works); malloc'd, NULL on out of memory. The same request id
 * always gives the same key, so a cancellation finds its request; a string
 * "1" and a number 1 stay different, as JSON-RPC wants. */
char *rpc_id_key(const mj_value *id);

#endif
