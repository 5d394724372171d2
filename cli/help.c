/* SPDX-License-Identifier: MIT */
/* Usage and help texts. The overview carries the exit-code table because
 * scripts are written against it; docs/cli.md has the same table. */
#include "args.h"

#include <string.h>

static const char overview[] =
    "usage: sbio [GLOBAL OPTIONS] COMMAND [ARGS...]\n"
    "\n"
    "Run commands in sandboxes of any provider, with the strength of their\n"
    "isolation (UNKNOWN < CONTAINER < GVISOR < MICROVM) reported and enforced.\n"
    "\n"
    "Commands:\n"
    "  backends [--json] [--load]    list every backend found, with its isolation tier\n"
    "  inspect NAME [--json]         everything known about one backend\n"
    "  run [OPTIONS] -- CMD [ARG...] run a command in a new sandbox, then destroy it\n"
    "  config check [FILE]           validate the configuration\n"
    "  reap [OPTIONS]                list (and with --kill remove) leftover sandboxes\n"
    "  doctor [--json] [--probe]     check the installation: config, backends, credentials\n"
    "  sources check [NAME...]       re-read each tier claim's provider page: is the quote there?\n"
    "  mcp [OPTIONS]                 serve one sandbox to an agent over the Model Context Protocol\n"
    "  version [--json]              versions of sbio and of libsandboxio\n"
    "  help [COMMAND]                this text, or a command's own help\n"
    "\n"
    "Global options (before or after the command):\n"
    "  --config FILE        read exactly this config file (like SBIO_CONFIG=FILE)\n"
    "  --backend-path DIRS  colon-separated directories searched for backends first\n"
    "  -v, --verbose        show the library's info messages (-vv: also debug)\n"
    "  -h, --help           help; `sbio COMMAND --help` for one command\n"
    "  --version            same as `sbio version`\n"
    "\n"
    "Exit codes:\n"
    "  0    success\n"
    "  N    sbio run: the command's own exit status\n"
    "  1    sbio sources check: a tier claim is not confirmed (changed, moved,\n"
    "       gone, or its source cannot be checked)\n"
    "  64   usage error: the command line could not be understood\n"
    "  69   backend unavailable: not found, refused, disabled, or the provider\n"
    "       could not serve (auth, rate limit, create or connect failure)\n"
    "  70   internal error\n"
    "  74   sbio's own output could not be written\n"
    "  78   configuration error, or a requirement (e.g. --require-isolation)\n"
    "       that the backend cannot meet\n"
    "  124  a create or exec deadline passed (--timeout)\n"
    "  130  sbio run interrupted (SIGINT); 143 terminated (SIGTERM); 141 its stdout\n"
    "       was closed (SIGPIPE). In each case the sandbox is destroyed\n"
    "\n"
    "Environment: SBIO_CONFIG, SBIO_BACKEND_PATH, NO_COLOR, TERM, TRACEPARENT and\n"
    "OTEL_* (span export, docs/tracing.md). See docs/cli.md.\n"
    "Examples:\n"
    "  sbio backends\n"
    "  sbio run --backend docker://python:3.12-slim --require-isolation gvisor -- python3 -V\n"
    "  sbio run --shell -- 'echo $HOME; ls'\n"
    "  sbio config check /etc/sandboxio/config.yaml\n";

static const struct {
  const char *command;
  const char *usage;
  const char *details;
} commands[] = {
    {"backends", "usage: sbio backends [--json] [--load]",
     "List every backend found on the search path: name, status, effective and\n"
     "claimed tier, when its provider source was verified, the source, version\n"
     "and file. Refused, disabled and shadowed backends are listed with the reason.\n"
     "Listing runs no backend code.\n"
     "\n"
     "  --json   one JSON document (see docs/cli.md)\n"
     "  --load   load every enabled backend first, to surface load-time refusals\n"},
    {"inspect", "usage: sbio inspect NAME [--json] [--load]",
     "Everything known about one backend: file, sha256, version, status and reason,\n"
     "pins, capabilities and, per mechanism, its claimed and effective tier, the\n"
     "provider source, when it was verified, how old that is, and why a tier was\n"
     "not accepted. An unknown NAME exits 69 and lists the names available.\n"
     "\n"
     "  --json   one JSON document (see docs/cli.md)\n"
     "  --load   load the backend first, to surface load-time refusals\n"},
    {"run", "usage: sbio run [OPTIONS] -- CMD [ARG...]",
     "Create a sandbox, run CMD in it with its output streamed live, destroy the\n"
     "sandbox and exit with CMD's exit status. Without --backend and without\n"
     "default_backend in the config, the fake backend is used (it executes nothing).\n"
     "\n"
     "  -b, --backend URI             target, e.g. docker://python:3.12-slim or fake://\n"
     "                                (a bare NAME means NAME://)\n"
     "  --require-isolation TIER      fail before creating anything unless the sandbox\n"
     "                                is at least TIER: container, gvisor or microvm\n"
     "  -e, --env K=V                 environment variable (repeatable)\n"
     "  --secret K=ENVVAR             secret K, read from this process's ENVVAR; it is\n"
     "                                redacted from every message and event (repeatable)\n"
     "  -l, --label K=V               label for the provider, e.g. tenant_id (repeatable)\n"
     "  -w, --workdir DIR             working directory of CMD inside the sandbox\n"
     "  --timeout S                   seconds for the sandbox's lifetime and for CMD\n"
     "  -i, --stdin                   pass this process's standard input to CMD\n"
     "                                (needs a backend with the stdin capability)\n"
     "  --allow HOST                  let CMD reach HOST (a name or CIDR); all other\n"
     "                                egress stays denied (repeatable; needs the\n"
     "                                network_allowlist capability)\n"
     "  --shell                       CMD is one script string for the sandbox's shell\n"
     "\n"
     "Every capability these options need is checked before anything is created: a\n"
     "backend that lacks one fails with SBX_E1101 (exit 69) and no sandbox exists.\n"},
    {"mcp",
     "usage: sbio mcp [--backend URI] [--require-isolation TIER] [--timeout S] [--egress deny|allow]\n"
     "                [--transport stdio|http] [--host ADDR] [--port N] [--allow-origin ORIGIN]...",
     "Serve one sandbox to an AI agent over the Model Context Protocol (MCP): the tools\n"
     "run_command, run_python, read_file, write_file, list_files and sandbox_info, with the\n"
     "sandbox's isolation tier in every result. The sandbox is created at the first tool\n"
     "call (listing tools provisions nothing) and destroyed when the client goes away or\n"
     "on SIGINT/SIGTERM. Everything below is fixed for the life of the process: no tool\n"
     "changes it. Without --backend and default_backend, the fake backend is used.\n"
     "\n"
     "  -b, --backend URI             target, e.g. docker://python:3.12-slim\n"
     "  --require-isolation TIER      refuse to start (exit 78, nothing created) unless the\n"
     "                                backend can give at least TIER; it raises the\n"
     "                                configuration's require_isolation, never lowers it\n"
     "  --timeout S                   the sandbox's lifetime in seconds (default 300), which\n"
     "                                also bounds each command\n"
     "  --egress deny|allow           the sandbox's network egress (default deny)\n"
     "  --transport stdio|http        stdio (default: newline-delimited JSON-RPC on stdin\n"
     "                                and stdout) or the streamable HTTP transport\n"
     "  --host ADDR                   HTTP: the address to listen on (default 127.0.0.1)\n"
     "  --port N                      HTTP: the port (default 8000; 0 picks a free one)\n"
     "  --allow-origin ORIGIN         HTTP: also accept requests from this browser origin\n"
     "                                (repeatable; others are refused against DNS rebinding)\n"
     "Exits 0 when the client went away, 128+N after signal N, 78 when the isolation\n"
     "floor cannot be met. See docs/mcp.md for client configurations.\n"},
    {"config check", "usage: sbio config check [FILE] [--json]",
     "Validate FILE, or the configuration sbio would read (the layered files, or\n"
     "--config / SBIO_CONFIG). Prints 'FILE: ok' for each file read and exits 0, or\n"
     "prints 'FILE:LINE:COLUMN: message' on stderr and exits 78.\n"},
    {"config", "usage: sbio config check [FILE] [--json]", "Configuration commands: check.\n"},
    {"reap", "usage: sbio reap [--backend NAME]... [--label K=V]... [--kill] [--json]",
     "List the sandboxes sandboxio created that a provider still holds (a crashed\n"
     "process can leave them behind); with --kill, remove them. A dry run by default.\n"
     "Without --backend, every usable backend that can list them is asked.\n"
     "\n"
     "  --backend NAME   ask this backend (repeatable)\n"
     "  --label K=V      only sandboxes with this label (repeatable; all must match)\n"
     "  --kill           remove what was found\n"
     "  --json           one JSON document (see docs/cli.md)\n"
     "Exits 0 when every backend was listed and every kill succeeded, else the exit\n"
     "code of the first failure (usually 69).\n"},
    {"doctor", "usage: sbio doctor [--json] [--probe]",
     "Check that this installation can run sandboxes: versions, the configuration\n"
     "files read (a broken one is reported and the built-in defaults are used for\n"
     "the rest), the backend search path, and per backend its status, tier, the\n"
     "freshness of the source of that tier, its credentials (set or unset, by name;\n"
     "never a value) and whether its provider can be reached. Local backends\n"
     "(docker) are always asked; cloud backends only with --probe. Every problem\n"
     "comes with its fix.\n"
     "\n"
     "  --json    one JSON document (see docs/cli.md)\n"
     "  --probe   also ask cloud backends (a network request to the provider)\n"
     "Exits 0 when every enabled backend is healthy, 78 when the configuration is\n"
     "broken, 69 when a backend has a problem.\n"},
    {"sources check", "usage: sbio sources check [NAME...] [--json] [--timeout S] [--ca-file FILE]",
     "Re-read the provider page behind every tier claim of the named backends (all\n"
     "of them without NAME) and say whether the quoted sentence is still there.\n"
     "Metadata only: no backend code runs. Pages are fetched over https only, with\n"
     "certificates verified, no cookie or credential sent and nothing written; the\n"
     "standard proxy variables (https_proxy, no_proxy) are honoured. At most 5\n"
     "redirects and 4 MiB per page, 30 s per page.\n"
     "\n"
     "Verdicts: confirmed, changed (the closest passage is shown), moved (where to),\n"
     "gone (HTTP 404/410), unreachable (dns, connect, proxy, tls, timeout, http,\n"
     "too_large, redirects), unchecked (the metadata has no checkable source),\n"
     "no_source (the mechanism claims no tier: UNKNOWN).\n"
     "\n"
     "  --json          one JSON document (see docs/cli.md)\n"
     "  --timeout S     seconds for the whole check (default 120)\n"
     "  --ca-file FILE  verify the pages' servers with the CA certificates in FILE\n"
     "                  (PEM), e.g. a TLS-inspecting proxy's, in place of libcurl's\n"
     "                  default bundle (default: CURL_CA_BUNDLE or SSL_CERT_FILE if set)\n"
     "Exits 0 when every claim is confirmed, 1 when one changed, moved, is gone or\n"
     "cannot be checked, 69 when a page or a backend's metadata could not be read\n"
     "(and nothing worse was found).\n"},
    {"sources", "usage: sbio sources check [NAME...] [--json] [--timeout S] [--ca-file FILE]",
     "Provider sources of the tier claims: check.\n"},
    {"version", "usage: sbio version [--json]", "Versions of sbio and of the libsandboxio it runs with.\n"},
    {"help", "usage: sbio help [COMMAND]", "Help for sbio or for one command.\n"},
};

const char *cli_usage_line(const char *command) {
  if (command) {
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
      if (strcmp(commands[i].command, command) == 0) return commands[i].usage;
    }
  }
  return "usage: sbio [GLOBAL OPTIONS] COMMAND [ARGS...]";
}

int cli_help_print(const char *command, FILE *out) {
  if (!command) {
    fputs(overview, out);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(commands[i].command, command) == 0) {
      fprintf(out, "%s\n\n%s", commands[i].usage, commands[i].details);
      return 0;
    }
  }
  return -1;
}
