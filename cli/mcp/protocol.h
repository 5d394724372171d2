/* SPDX-License-Identifier: MIT */
/* One MCP session: the client on stdio, or one Mcp-Session-Id over HTTP.
 * It negotiates the revision, answers initialize, ping and tools/list
 * itself, hands tools/call to the worker and routes
 * notifications/cancelled to it. Every message that is not a well-formed
 * request of a known method gets the JSON-RPC error the specification
 * names; nothing a client sends ends the server. */
#ifndef SBIO_MCP_PROTOCOL_H
#define SBIO_MCP_PROTOCOL_H

#include "jsonrpc.h"
#include "mcp.h"

#include <pthread.h>
#include <stdatomic.h>

struct mcp_session {
  atomic_int refs;
  mcp_server *server;
  pthread_mutex_t lock;
  int initialized;   /* initialize was answered */
  int client_ready;  /* notifications/initialized arrived */
  char version[16];  /* negotiated revision */
  atomic_int closed; /* ended (HTTP DELETE, eviction): its calls are dropped */
};

mcp_session *mcp_session_new(mcp_server *srv);
void mcp_session_ref(mcp_session *s);
void mcp_session_unref(mcp_session *s);
/* Marks the session ended and cancels its tool calls (queued ones are
 * dropped, a running one is cancelled). */
void mcp_session_close(mcp_session *s);
/* The negotiated revision ("" before initialize). */
void mcp_session_version(mcp_session *s, char *out, size_t size);

typedef struct mcp_frame_result {
  size_t answered; /* responses sent through the channel by now */
  size_t deferred; /* requests handed to the worker: answered later */
  int initialized; /* the frame held an initialize that succeeded */
} mcp_frame_result;

/* Handles every message of a parsed frame. Responses go through `ch` (a
 * deferred one later, from the worker, which holds a reference). */
void mcp_session_handle(mcp_session *s, const rpc_frame *frame, mcp_channel *ch, mcp_frame_result *res);

/* 1 when the frame holds an initialize request. */
int mcp_frame_has_initialize(const rpc_frame *frame);

/* Sends {"jsonrpc":"2.0","id":null,"error":...} through ch. */
void mcp_send_error(mcp_channel *ch, const mj_value *id, int code, const char *message);

#endif
