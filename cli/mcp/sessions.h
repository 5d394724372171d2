/* SPDX-License-Identifier: MIT */
/* The HTTP transport's sessions (Mcp-Session-Id): an id of 32 hex digits
 * from the kernel's random source per successful initialize, looked up on
 * every later request, ended by DELETE. The table is bounded: when full,
 * the least recently used session is ended to make room (a client that
 * went away without DELETE must not fill it for ever). All sessions share
 * the process's one sandbox. */
#ifndef SBIO_MCP_SESSIONS_H
#define SBIO_MCP_SESSIONS_H

#include "protocol.h"

#define MCP_MAX_SESSIONS 32
#define MCP_SESSION_ID_LEN 32

typedef struct mcp_sessions mcp_sessions;

mcp_sessions *mcp_sessions_new(void);
/* Ends every session and frees the table. */
void mcp_sessions_free(mcp_sessions *t);
/* Registers s (taking a reference) under a new id written to id_out
 * (MCP_SESSION_ID_LEN + 1 bytes). 0, or -1 when no id could be made. */
int mcp_sessions_add(mcp_sessions *t, mcp_session *s, char *id_out);
/* The session of that id, with a reference the caller drops; NULL. */
mcp_session *mcp_sessions_get(mcp_sessions *t, const char *id);
/* Ends the session of that id. Returns the sessions left, or -1 when the
 * id is unknown. */
int mcp_sessions_remove(mcp_sessions *t, const char *id);

#endif
