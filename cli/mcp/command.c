/* SPDX-License-Identifier: MIT */
/* `sbio mcp`: parse, open the host, decide the isolation floor before
 * serving (nothing provisioned), serve one transport, tear down. The exit
 * code is 0 when the client went away, 128+N after signal N, and the usual
 * codes (64, 69, 78, ...) when it could not start. */
#include "exitcode.h"
#include "holder.h"
#include "mcp.h"
#include "options.h"
#include "shutdown.h"
#include "stderr_bound.h"
#include "transport.h"
#include "worker.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int cli_cmd_mcp(cli_globals *g, int argc, char **argv) {
  mcp_config cfg;
  int help_shown = 0;
  int exit_code = mcp_options_parse(&cfg, g, argc, argv, &help_shown);
  if (exit_code || help_shown) {
    mcp_options_free(&cfg);
    return exit_code;
  }
  /* A closed stdout or a dropped HTTP client must be an error we see
   * (EPIPE), never a silent death that leaves the sandbox behind. */
  signal(SIGPIPE, SIG_IGN);
  /* A client that never drains the server's stderr cannot hold a tool
   * call, or the shutdown, on a warning (stderr_bound.h). */
  cli_stderr_bound();
  mcp_shutdown *sd = mcp_shutdown_start();
  if (!sd) {
    fprintf(stderr, "sbio mcp: error: cannot watch for signals: %s\n", strerror(errno));
    mcp_options_free(&cfg);
    return CLI_EXIT_INTERNAL;
  }
  mcp_server srv = {&cfg, NULL, NULL};
  exit_code = mcp_holder_open(g, &cfg, &srv.holder);
  if (!exit_code) exit_code = mcp_holder_admit(srv.holder);
  if (!exit_code) {
    mcp_shutdown_set_holder(sd, srv.holder);
    srv.worker = mcp_worker_start(&srv);
    if (!srv.worker) {
      fputs("sbio mcp: error: cannot start the worker thread\n", stderr);
      exit_code = CLI_EXIT_INTERNAL;
    } else if (cfg.transport == MCP_TRANSPORT_HTTP) {
      exit_code = mcp_http_serve(&srv, sd);
    } else if (mcp_stdio_serve(&srv, sd) != 0) {
      exit_code = CLI_EXIT_INTERNAL;
    }
    /* Teardown: no new sandbox, the current one killed (a running command
     * ends now), the worker stopped, then the sandbox destroyed. */
    mcp_holder_shutdown(srv.holder);
    mcp_worker_stop(srv.worker);
    mcp_shutdown_set_holder(sd, NULL);
  }
  mcp_holder_close(srv.holder);
  int sig = mcp_shutdown_signal(sd);
  mcp_shutdown_stop(sd);
  mcp_options_free(&cfg);
  if (!exit_code && sig) exit_code = CLI_EXIT_SIGNAL_BASE + sig;
  return exit_code;
}
