/* SPDX-License-Identifier: MIT */
/* The six tools of the reference design (G-02): run_command, run_python,
 * read_file, write_file, list_files, sandbox_info. Each has an input
 * schema and, from revision 2025-06-18 on, an output schema its
 * structuredContent follows. Every result, error or not, carries the
 * isolation tier: a model that reads one answer sees what it runs on. No
 * tool changes the configuration (backend, floor, timeout, egress). */
#ifndef SBIO_MCP_TOOLS_H
#define SBIO_MCP_TOOLS_H

#include "holder.h"
#include "json.h"

#include <stdatomic.h>

typedef struct mcp_tool mcp_tool;

/* NULL when there is no tool of that name. */
const mcp_tool *mcp_tool_find(const char *name, size_t len);
const char *mcp_tool_name(const mcp_tool *t);
/* 1 when the tool runs a command (and may be cancelled mid-run). */
int mcp_tool_runs_command(const mcp_tool *t);

/* Writes the tools/list result {"tools":[...]} for revision `version`. */
void mcp_tools_list(mj_writer *w, const char *version);

/* What a running tool may use besides the sandbox. */
typedef struct mcp_call {
  mcp_holder *holder;
  const char *version;
  sbio_cancel *cancel;                               /* the call's token */
  void (*progress)(void *user, const char *message); /* NULL when the client asked none */
  void *progress_user;
} mcp_call;

/* Runs the tool and writes its CallToolResult object into w. Arguments
 * are validated here: a bad one is a tool error the model can correct
 * (isError), as the specification recommends. Returns the library code of
 * a failure (SBIO_OK otherwise), so the caller can tell a cancellation. */
sbio_code mcp_tool_run(const mcp_tool *t, const mj_value *args, mcp_call *call, mj_writer *w);

#endif
