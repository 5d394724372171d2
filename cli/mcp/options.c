/* SPDX-License-Identifier: MIT */
/* Parsing `sbio mcp`; see options.h. Everything a client could otherwise
 * change is fixed here, for the life of the process. */
#include "options.h"

#include "args.h"
#include "exitcode.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_BACKEND = 1,
  OPT_REQUIRE,
  OPT_TIMEOUT,
  OPT_EGRESS,
  OPT_TRANSPORT,
  OPT_HOST,
  OPT_PORT,
  OPT_ALLOW_ORIGIN,
};

static const cli_opt mcp_opts[] = {
    {"backend", 'b', 1, OPT_BACKEND}, {"require-isolation", 0, 1, OPT_REQUIRE}, {"timeout", 0, 1, OPT_TIMEOUT},
    {"egress", 0, 1, OPT_EGRESS},     {"transport", 0, 1, OPT_TRANSPORT},       {"host", 0, 1, OPT_HOST},
    {"port", 0, 1, OPT_PORT},         {"allow-origin", 0, 1, OPT_ALLOW_ORIGIN}, {NULL, 0, 0, 0},
};

static int parse_tier(mcp_config *c, const char *text) {
  if (sbio_tier_parse(text, &c->require) != 0)
    return cli_usage_error("mcp", "unknown isolation tier '%s' (valid: container, gvisor, microvm)", text);
  if (c->require == SBIO_TIER_UNKNOWN)
    return cli_usage_error("mcp",
                           "requiring tier '%s' is meaningless: UNKNOWN satisfies no requirement (valid: container, "
                           "gvisor, microvm)",
                           text);
  c->require_set = 1;
  return 0;
}

static int parse_timeout(mcp_config *c, const char *text) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno || !isfinite(v) || v <= 0)
    return cli_usage_error("mcp", "--timeout needs a number of seconds > 0 (got '%s')", text);
  c->timeout_s = v;
  c->timeout_set = 1;
  return 0;
}

static int parse_port(mcp_config *c, const char *text) {
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno || v < 0 || v > 65535)
    return cli_usage_error("mcp", "--port needs a TCP port number 0..65535 (0: any free one; got '%s')", text);
  c->port = (int)v;
  return 0;
}

/* An Origin is "scheme://host[:port]": nothing else may be allowed, so a
 * typo cannot silently allow nothing (or everything). */
static int parse_origin(mcp_config *c, const char *text) {
  const char *sep = strstr(text, "://");
  int ok = sep && sep > text && sep[3] != '\0' && !strchr(sep + 3, '/') && !strchr(text, '*');
  for (const char *p = text; ok && *p; p++)
    if (isspace((unsigned char)*p) || !isprint((unsigned char)*p)) ok = 0;
  if (!ok)
    return cli_usage_error("mcp", "--allow-origin needs an origin such as http://localhost:3000 (got '%s')", text);
  const char **grown = realloc(c->allow_origins, (c->n_allow_origins + 1) * sizeof *grown);
  if (!grown) {
    fputs("sbio: error: out of memory\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  c->allow_origins = grown;
  c->allow_origins[c->n_allow_origins++] = text;
  return 0;
}

/* A bare NAME means NAME://, as for `sbio run`. */
static int normalise_backend(mcp_config *c) {
  const char *b = c->backend;
  int bare = islower((unsigned char)b[0]) && strspn(b, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(b);
  size_t len = strlen(b) + 4;
  c->uri = malloc(len);
  if (!c->uri) {
    fputs("sbio: error: out of memory\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  snprintf(c->uri, len, "%s%s", b, bare ? "://" : "");
  return 0;
}

int mcp_options_parse(mcp_config *c, cli_globals *g, int argc, char **argv, int *help_shown) {
  cli_args a;
  const char *value;
  int rc = 0, http_only = 0;
  memset(c, 0, sizeof *c);
  c->egress = SBIO_EGRESS_DENY;
  c->transport = MCP_TRANSPORT_STDIO;
  c->host = "127.0.0.1";
  c->port = 8000;
  *help_shown = 0;
  cli_args_init(&a, g, "mcp", argc, argv);
  for (;;) {
    int r = cli_args_next(&a, mcp_opts, &value);
    switch (r) {
    case CLI_ARG_END:
      goto done;
    case CLI_ARG_HELP:
      cli_help_print("mcp", stdout);
      *help_shown = 1;
      return 0;
    case CLI_ARG_ERROR:
      return CLI_EXIT_USAGE;
    case CLI_ARG_DASHDASH:
      return cli_usage_error("mcp", "unexpected '--': sbio mcp takes no command");
    case CLI_ARG_POSITIONAL:
      return cli_usage_error("mcp", "unexpected argument '%s'", value);
    case OPT_BACKEND:
      if (!value[0]) return cli_usage_error("mcp", "--backend needs a URI, e.g. docker://python:3.12-slim");
      c->backend = value;
      break;
    case OPT_REQUIRE:
      rc = parse_tier(c, value);
      break;
    case OPT_TIMEOUT:
      rc = parse_timeout(c, value);
      break;
    case OPT_EGRESS:
      if (strcmp(value, "deny") == 0)
        c->egress = SBIO_EGRESS_DENY;
      else if (strcmp(value, "allow") == 0)
        c->egress = SBIO_EGRESS_ALLOW;
      else
        return cli_usage_error("mcp", "--egress must be deny or allow (got '%s')", value);
      break;
    case OPT_TRANSPORT:
      /* streamable-http is the reference design's spelling. */
      if (strcmp(value, "stdio") == 0)
        c->transport = MCP_TRANSPORT_STDIO;
      else if (strcmp(value, "http") == 0 || strcmp(value, "streamable-http") == 0)
        c->transport = MCP_TRANSPORT_HTTP;
      else
        return cli_usage_error("mcp", "--transport must be stdio or http (got '%s')", value);
      break;
    case OPT_HOST:
      if (!value[0]) return cli_usage_error("mcp", "--host needs an address, e.g. 127.0.0.1");
      c->host = value;
      http_only = OPT_HOST;
      break;
    case OPT_PORT:
      rc = parse_port(c, value);
      http_only = OPT_PORT;
      break;
    case OPT_ALLOW_ORIGIN:
      rc = parse_origin(c, value);
      http_only = OPT_ALLOW_ORIGIN;
      break;
    default:
      return CLI_EXIT_USAGE;
    }
    if (rc) return rc;
  }
done:
  /* An HTTP option with stdio is a mistake to point out, not to ignore. */
  if (http_only && c->transport != MCP_TRANSPORT_HTTP)
    return cli_usage_error("mcp", "--%s applies to --transport http only",
                           http_only == OPT_HOST   ? "host"
                           : http_only == OPT_PORT ? "port"
                                                   : "allow-origin");
  if (c->backend) return normalise_backend(c);
  return 0;
}

void mcp_options_free(mcp_config *c) {
  free(c->uri);
  free(c->allow_origins);
  c->uri = NULL;
  c->allow_origins = NULL;
}
