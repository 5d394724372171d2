/* SPDX-License-Identifier: MIT */
/* The two transports. Each serves until its client goes away or a stop is
 * requested (mcp_shutdown_fd becomes readable), then returns; the caller
 * tears down. */
#ifndef SBIO_MCP_TRANSPORT_H
#define SBIO_MCP_TRANSPORT_H

#include "mcp.h"
#include "shutdown.h"

/* stdio: returns 0 when stdin ended or a stop was requested, -1 if it could
 * not start. */
int mcp_stdio_serve(mcp_server *srv, mcp_shutdown *sd);
/* Streamable HTTP on cfg->host:cfg->port. Returns 0 after a stop, or the
 * exit code after reporting why it could not start (e.g. the port is
 * taken). */
int mcp_http_serve(mcp_server *srv, mcp_shutdown *sd);

#endif
