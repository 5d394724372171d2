/* SPDX-License-Identifier: MIT */
/* sbio mcp: a sandbox for an agent over the Model Context Protocol.
 *
 * How the parts fit (one concern per file):
 *   options.c   the command line, validated before anything opens
 *   holder.c    the one sandbox of the process: host, fixed create options,
 *               start-up admission, lazy creation, teardown
 *   json.c      strict JSON reader and UTF-8-safe writer
 *   jsonrpc.c   JSON-RPC 2.0 frames and messages
 *   protocol.c  an MCP session: initialize, ping, tools/list, tools/call,
 *               notifications/cancelled, version negotiation
 *   tools.c     the six tools: schemas, arguments, results with the tier
 *   worker.c    the thread that runs tool calls one at a time, with
 *               cancellation and progress notifications
 *   stdio.c     the stdio transport (newline-delimited JSON)
 *   http.c      the streamable HTTP transport (libmicrohttpd), with
 *   http_guard.c  Host/Origin checks against DNS rebinding, and
 *   sessions.c    Mcp-Session-Id sessions
 *   shutdown.c  signals and the wake-up that ends a transport
 *
 * Threads: the transport reads requests and answers the quick ones itself;
 * tools/call goes to the worker, because one sandbox is used by one thread
 * at a time (sandboxio.h) and a call may run for minutes while ping and
 * notifications/cancelled must still be read. */
#ifndef SBIO_MCP_H
#define SBIO_MCP_H

#include "cli.h"

#include <sandboxio/sandboxio.h>
#include <stdatomic.h>
#include <stddef.h>

/* MCP revisions this server speaks, newest first: the list the official
 * TypeScript SDK (1.32) supports. Structured tool output (outputSchema,
 * structuredContent) exists from 2025-06-18 on. */
#define MCP_LATEST_VERSION "2025-11-25"
extern const char *const mcp_versions[];
extern const size_t mcp_n_versions;
int mcp_version_supported(const char *v);
/* 1 when revision v has structured tool output. */
int mcp_version_structured(const char *v);

/* Captured output per stream of run_command and run_python. */
#define MCP_OUTPUT_CAP ((size_t)64 * 1024)
/* Largest file read_file returns and write_file accepts (decoded). */
#define MCP_FILE_CAP ((size_t)1024 * 1024)
/* Most entries list_files returns. */
#define MCP_LIST_CAP 1000
/* Largest run_python program (it travels as one argv element). */
#define MCP_CODE_CAP ((size_t)100 * 1000)
/* Largest JSON text the server writes (a result with both streams full,
 * base64 file content, escaping). */
#define MCP_MAX_OUTPUT ((size_t)16 * 1024 * 1024)

typedef enum mcp_transport_kind { MCP_TRANSPORT_STDIO, MCP_TRANSPORT_HTTP } mcp_transport_kind;

typedef struct mcp_config {
  const char *backend; /* as given; NULL: the configured default, else fake:// */
  char *uri;           /* normalised (NAME -> NAME://), NULL when not given */
  int require_set;
  sbio_tier require;
  int timeout_set;
  double timeout_s;
  sbio_egress egress;
  mcp_transport_kind transport;
  const char *host;           /* HTTP bind address, default 127.0.0.1 */
  int port;                   /* default 8000; 0 picks a free one */
  const char **allow_origins; /* extra Origin values accepted (exact) */
  size_t n_allow_origins;
} mcp_config;

/* ------------------------------------------------------------ channels */
/* Where the messages for the requests of one frame go: stdout for stdio,
 * the response of one POST for HTTP. Reference-counted: a deferred tool
 * call holds its channel until it has answered. */
typedef struct mcp_channel mcp_channel;
typedef struct mcp_channel_ops {
  /* One complete JSON-RPC message. 0 sent, -1 when the peer is gone. */
  int (*send)(mcp_channel *ch, const char *json, size_t len);
  /* A deferred request of this channel is finished (answered, or dropped
   * after a cancellation): HTTP ends the stream after the last one. */
  void (*request_done)(mcp_channel *ch);
  void (*destroy)(mcp_channel *ch);
} mcp_channel_ops;

struct mcp_channel {
  const mcp_channel_ops *ops;
  atomic_int refs;
};

void mcp_channel_init(mcp_channel *ch, const mcp_channel_ops *ops);
void mcp_channel_ref(mcp_channel *ch);
void mcp_channel_unref(mcp_channel *ch);

typedef struct mcp_server mcp_server;
typedef struct mcp_session mcp_session;
typedef struct mcp_holder mcp_holder;
typedef struct mcp_worker mcp_worker;

/* ------------------------------------------------------------ the server */
struct mcp_server {
  const mcp_config *cfg;
  mcp_holder *holder;
  mcp_worker *worker;
};

int cli_cmd_mcp(cli_globals *g, int argc, char **argv);

#endif
