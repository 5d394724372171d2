/* SPDX-License-Identifier: MIT */
/* The tool-call worker: one thread that runs tools/call requests one at a
 * time against the process's sandbox (one sandbox is used by one thread at
 * a time), from a bounded queue. It also
 *   - cancels: a queued call is dropped, a running command is killed
 *     through its sbio_cancel token and the sandbox kept; either way no
 *     response is sent, as the specification asks;
 *   - reports progress when the request carried a progressToken: while the
 *     sandbox is created (an image pull) and every second while a command
 *     runs. */
#ifndef SBIO_MCP_WORKER_H
#define SBIO_MCP_WORKER_H

#include "jsonrpc.h"
#include "mcp.h"
#include "tools.h"

/* Calls waiting beyond the running one; more are refused with an error. */
#define MCP_QUEUE_MAX 64

mcp_worker *mcp_worker_start(mcp_server *srv);
/* Queues a tools/call. The worker takes references to the session and the
 * channel. Returns 0, 1 when the queue is full, -1 on out of memory (the
 * caller answers with an error then). */
int mcp_worker_submit(mcp_worker *w, mcp_session *s, mcp_channel *ch, const mj_value *id, const mcp_tool *tool,
                      const mj_value *args, const mj_value *progress_token, const char *version);
/* Queues the destruction of the sandbox, after the calls already queued,
 * if *live_sessions is still 0 when its turn comes (the last HTTP session
 * ended; a client that started since keeps its sandbox). 0, or -1. */
int mcp_worker_submit_reset(mcp_worker *w, atomic_int *live_sessions);
/* notifications/cancelled: the request with this id of this session. */
void mcp_worker_cancel(mcp_worker *w, mcp_session *s, const mj_value *id);
/* Every call of a session (it ended). */
void mcp_worker_cancel_session(mcp_worker *w, mcp_session *s);
/* Drops the queue, cancels the running call and joins the thread. */
void mcp_worker_stop(mcp_worker *w);

#endif
