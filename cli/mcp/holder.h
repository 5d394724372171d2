/* SPDX-License-Identifier: MIT */
/* The one sandbox of an `sbio mcp` process (the reference design's G-02):
 * its configuration is fixed at start (backend, isolation floor, timeout,
 * egress, the MCP-owned label), it is created by the first tool call that
 * needs it (listing tools provisions nothing), and destroyed at shutdown.
 * The provider-side lifetime (the create timeout) stays the backstop if
 * this process dies without teardown. */
#ifndef SBIO_MCP_HOLDER_H
#define SBIO_MCP_HOLDER_H

#include "mcp.h"

#include <sandboxio/sandboxio.h>

/* The label every sandbox of sbio mcp carries, as in the reference design
 * (`sbio reap --label sandboxio_mcp=1` finds them). */
#define MCP_LABEL_KEY "sandboxio_mcp"
#define MCP_LABEL_VALUE "1"

/* What every result says about isolation. */
typedef struct mcp_isolation {
  int exists;           /* a sandbox exists (else: what one would be) */
  char backend[64];     /* "docker" */
  char mechanism[64];   /* observed ("runc"); "" before a sandbox exists */
  sbio_tier tier;       /* the sandbox's, else the backend's weakest */
  char sandbox_id[128]; /* "" before a sandbox exists */
} mcp_isolation;

/* Opens the library host (configuration, backends' metadata: no backend
 * code runs) and prepares the create options. Returns 0, or the exit code
 * after reporting why on stderr. */
int mcp_holder_open(const cli_globals *g, const mcp_config *cfg, mcp_holder **out);
/* Start-up admission: the backend exists and may be used, and, when there
 * is a floor (the configuration's require_isolation raised by
 * --require-isolation), that a create would meet it: the library's
 * sbio_sandbox_check, from metadata and the backend's plan, nothing
 * provisioned. Without a floor no backend code runs before a tool call.
 * Returns 0, or the exit code after reporting (78 for an unmet floor). */
int mcp_holder_admit(mcp_holder *h);

/* Where the library's progress (an image pull during the create) goes;
 * set once before serving. */
void mcp_holder_set_progress(mcp_holder *h, sbio_progress_fn fn, void *user);

/* The sandbox, created on first use (*created says so). `needs` is what
 * the asking tool needs of the backend (SBIO_CAP_FILESYSTEM for a file
 * tool): a create is refused by the library's admission gate, before
 * anything is provisioned, when the backend lacks it; an existing sandbox
 * is returned as it is (the operation itself then refuses). Worker thread
 * only. After shutdown began: SBIO_E_GONE. */
sbio_code mcp_holder_sandbox(mcp_holder *h, sbio_caps needs, sbio_sandbox **out, int *created, sbio_error *err);
/* Forgets a sandbox that is gone (SBIO_E_GONE: its lifetime ended), so the
 * next call creates a new one. Worker thread only. */
void mcp_holder_forget(mcp_holder *h, sbio_sandbox *sb);
/* Destroys the sandbox now (the last HTTP session ended: the client went
 * away); the next tool call creates a new one. Worker thread only. */
void mcp_holder_reset(mcp_holder *h);
/* Any thread, any time: no new sandbox from now on, and the current one is
 * killed (a running exec ends at once). */
void mcp_holder_shutdown(mcp_holder *h);
/* 1 once mcp_holder_shutdown ran. */
int mcp_holder_stopping(mcp_holder *h);
/* Destroys the sandbox if one is left (reporting a failed teardown with
 * the sandbox id for `sbio reap`) and closes the host. After the worker
 * has stopped. */
void mcp_holder_close(mcp_holder *h);

void mcp_holder_isolation(mcp_holder *h, mcp_isolation *out);
sbio_host *mcp_holder_host(mcp_holder *h);
const mcp_config *mcp_holder_config(mcp_holder *h);
/* The backend's name (from --backend, the configured default, or "fake"). */
const char *mcp_holder_backend(mcp_holder *h);
/* The floor in force (UNKNOWN: none). */
sbio_tier mcp_holder_floor(mcp_holder *h);
/* The sandbox lifetime in seconds. */
double mcp_holder_timeout(mcp_holder *h);

#endif
