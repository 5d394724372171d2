/* SPDX-License-Identifier: MIT */
/* When `sbio mcp` stops: SIGINT, SIGTERM or SIGHUP, or the transport
 * saying its client went away (stdin at EOF, stdout closed). Signals are
 * blocked in every thread and taken by one watcher thread, which kills the
 * sandbox at once (a running command ends) and wakes the transport through
 * a pipe it polls. Later signals are ignored: teardown is already under
 * way and bounded by the library's teardown grace (an MCP client sends
 * SIGTERM two seconds after closing stdin as a matter of course). */
#ifndef SBIO_MCP_SHUTDOWN_H
#define SBIO_MCP_SHUTDOWN_H

#include "holder.h"

typedef struct mcp_shutdown mcp_shutdown;

/* Blocks the signals in the calling thread (threads created later inherit
 * that) and starts the watcher. Call it before anything starts threads.
 * NULL on failure (errno set). */
mcp_shutdown *mcp_shutdown_start(void);
/* The holder whose sandbox a signal kills (set once it exists). */
void mcp_shutdown_set_holder(mcp_shutdown *s, mcp_holder *h);
/* Readable once a stop was requested: transports poll it. */
int mcp_shutdown_fd(const mcp_shutdown *s);
/* A stop for another reason than a signal (the client went away). */
void mcp_shutdown_request(mcp_shutdown *s);
int mcp_shutdown_requested(const mcp_shutdown *s);
/* The signal that stopped the server, 0 if none. */
int mcp_shutdown_signal(const mcp_shutdown *s);
/* Stops and joins the watcher; signals stay blocked. */
void mcp_shutdown_stop(mcp_shutdown *s);

#endif
