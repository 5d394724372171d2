/* SPDX-License-Identifier: MIT */
#include "args.h"

#include "probes.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_BACKEND_PATH = 256,
  OPT_CONFIG,
  OPT_NO_CONFIG,
  OPT_REPORT,
  OPT_ONLY,
  OPT_LIST,
  OPT_EGRESS,
  OPT_CANARY,
  OPT_OFFLINE,
  OPT_SHORT,
  OPT_GRACE,
  OPT_LIFETIME,
  OPT_INHERIT,
  OPT_SETTLE,
  OPT_OP_LIMIT,
  OPT_HARD_LIMIT,
  OPT_REUSE,
  OPT_VERSION,
};

void kit_usage(FILE *out) {
  fputs("usage: sbio-conformance [OPTIONS] URI\n"
        "       sbio-conformance --list\n"
        "\n"
        "Runs the sandboxio conformance kit against the backend of URI (fake://,\n"
        "docker://busybox:1.36, ...): static checks of its plugin file, then every\n"
        "behaviour case its declared capabilities call for. One line per case: PASS,\n"
        "WARN (passed, with a finding), SKIP (not applicable, and why) or FAIL.\n"
        "\n"
        "  --backend-path DIRS      colon-separated directories searched first for sbio-backend-NAME.so\n"
        "  --config FILE            sandboxio configuration to use (backend settings); default: the\n"
        "                           layered defaults, as for sbio\n"
        "  --no-config              read no configuration file at all\n"
        "  --report FILE.json       also write a JSON report (schema: docs/conformance.md)\n"
        "  --only PATTERNS          comma-separated shell patterns of case or group names (exec.*,files)\n"
        "  --list                   list every case and exit\n"
        "  --egress-probe-cmd CMD   shell command that reaches {host} over HTTP; exit 0 = reached\n"
        "                           (default: " KIT_DEFAULT_EGRESS_PROBE ")\n"
        "  --canary-host HOST       host the egress cases try to reach (default: " KIT_DEFAULT_CANARY_HOST ")\n"
        "  --offline                this machine has no internet: skip the checks that need a host reached\n"
        "  --short-timeout S        deadline of the timeout cases (default 0.5)\n"
        "  --grace S                how long past a deadline the kit waits before it intervenes (default 3)\n"
        "  --lifetime S             timeout of ordinary sandboxes (default 120)\n"
        "  --inherit-lifetime S     sandbox timeout in exec.timeout_inherits_sandbox_timeout (default 2)\n"
        "  --settle S               time for a started process to be running (default 0.2)\n"
        "  --op-limit S             longest an ordinary operation may take (default 30)\n"
        "  --hard-limit S           longest a whole case may take (default 120)\n"
        "  --reuse-sandbox          the exec, stream and files cases that need no options of their own share\n"
        "                           one sandbox (for backends whose create is slow; raise --lifetime to cover them)\n"
        "  -v, --verbose            print the library's log lines on stderr\n"
        "  -h, --help               this help\n"
        "      --version            the kit's and the library's versions\n"
        "\n"
        "Exit status: 0 no case failed, 1 a case failed, 64 usage error, 69 the library\n"
        "could not start (configuration), 70 internal error, 74 the report could not be written.\n",
        out);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("sbio-conformance: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\n(sbio-conformance --help for usage)\n", stderr);
  va_end(ap);
  return -1;
}

static int seconds(const char *name, const char *text, double *out) {
  char *end = NULL;
  double v = strtod(text, &end);
  if (!text[0] || *end || !isfinite(v) || v <= 0 || v > 86400)
    return usage_error("%s needs a positive number of seconds (up to 86400), not \"%s\"", name, text);
  *out = v;
  return 0;
}

static void defaults(kit_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->egress_probe = KIT_DEFAULT_EGRESS_PROBE;
  opt->canary_host = KIT_DEFAULT_CANARY_HOST;
  opt->short_timeout = 0.5;
  opt->grace = 3.0;
  opt->lifetime = 120.0;
  opt->inherit_lifetime = 2.0;
  opt->settle = 0.2;
  opt->op_limit = 30.0;
  opt->hard_limit = 120.0;
}

int kit_args_parse(int argc, char **argv, kit_options *opt, int *exit_now) {
  static const struct option longs[] = {
      {"backend-path", required_argument, NULL, OPT_BACKEND_PATH},
      {"config", required_argument, NULL, OPT_CONFIG},
      {"no-config", no_argument, NULL, OPT_NO_CONFIG},
      {"report", required_argument, NULL, OPT_REPORT},
      {"only", required_argument, NULL, OPT_ONLY},
      {"list", no_argument, NULL, OPT_LIST},
      {"egress-probe-cmd", required_argument, NULL, OPT_EGRESS},
      {"canary-host", required_argument, NULL, OPT_CANARY},
      {"offline", no_argument, NULL, OPT_OFFLINE},
      {"short-timeout", required_argument, NULL, OPT_SHORT},
      {"grace", required_argument, NULL, OPT_GRACE},
      {"lifetime", required_argument, NULL, OPT_LIFETIME},
      {"inherit-lifetime", required_argument, NULL, OPT_INHERIT},
      {"settle", required_argument, NULL, OPT_SETTLE},
      {"op-limit", required_argument, NULL, OPT_OP_LIMIT},
      {"hard-limit", required_argument, NULL, OPT_HARD_LIMIT},
      {"reuse-sandbox", no_argument, NULL, OPT_REUSE},
      {"verbose", no_argument, NULL, 'v'},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, OPT_VERSION},
      {NULL, 0, NULL, 0},
  };
  defaults(opt);
  *exit_now = 0;
  opterr = 0;
  optind = 1;
  int ch, rc = 0;
  /* "+": stop at the URI; ":": report a missing value as ':'. */
  while (rc == 0 && (ch = getopt_long(argc, argv, "+:vh", longs, NULL)) != -1) {
    switch (ch) {
    case OPT_BACKEND_PATH:
      opt->backend_path = optarg;
      break;
    case OPT_CONFIG:
      opt->config_file = optarg;
      break;
    case OPT_NO_CONFIG:
      opt->no_config = 1;
      break;
    case OPT_REPORT:
      opt->report_path = optarg;
      break;
    case OPT_ONLY:
      opt->only = optarg;
      break;
    case OPT_LIST:
      opt->list_only = 1;
      break;
    case OPT_EGRESS:
      opt->egress_probe = optarg;
      if (!strstr(optarg, "{host}")) rc = usage_error("--egress-probe-cmd must contain {host}: %s", optarg);
      break;
    case OPT_CANARY:
      opt->canary_host = optarg;
      if (!optarg[0] || strpbrk(optarg, " /\t'\"{}")) rc = usage_error("--canary-host takes a host name: %s", optarg);
      break;
    case OPT_OFFLINE:
      opt->offline = 1;
      break;
    case OPT_REUSE:
      opt->reuse = 1;
      break;
    case OPT_SHORT:
      rc = seconds("--short-timeout", optarg, &opt->short_timeout);
      break;
    case OPT_GRACE:
      rc = seconds("--grace", optarg, &opt->grace);
      break;
    case OPT_LIFETIME:
      rc = seconds("--lifetime", optarg, &opt->lifetime);
      break;
    case OPT_INHERIT:
      rc = seconds("--inherit-lifetime", optarg, &opt->inherit_lifetime);
      break;
    case OPT_SETTLE:
      rc = seconds("--settle", optarg, &opt->settle);
      break;
    case OPT_OP_LIMIT:
      rc = seconds("--op-limit", optarg, &opt->op_limit);
      break;
    case OPT_HARD_LIMIT:
      rc = seconds("--hard-limit", optarg, &opt->hard_limit);
      break;
    case 'v':
      opt->verbose++;
      break;
    case 'h':
      kit_usage(stdout);
      *exit_now = 1;
      return 0;
    case OPT_VERSION:
      printf("sbio-conformance %s (libsandboxio %s)\n", KIT_VERSION, sbio_version());
      *exit_now = 1;
      return 0;
    case ':':
      rc = usage_error("%s needs a value", argv[optind - 1]);
      break;
    default:
      rc = usage_error("unknown option %s", argv[optind - 1]);
      break;
    }
  }
  if (rc != 0) return -1;
  if (opt->list_only) return optind == argc ? 0 : usage_error("--list takes no URI (%s)", argv[optind]);
  if (optind == argc) return usage_error("missing URI (e.g. fake://)");
  if (optind + 1 < argc) return usage_error("one URI only, and options before it; unexpected %s", argv[optind + 1]);
  opt->uri = argv[optind];
  const char *sep = strstr(opt->uri, "://");
  if (!sep || sep == opt->uri || (size_t)(sep - opt->uri) > 31)
    return usage_error("not a target URI (BACKEND://[TEMPLATE][?timeout=N]): %s", opt->uri);
  if (opt->config_file && opt->no_config) return usage_error("--config and --no-config exclude each other");
  if (opt->short_timeout >= opt->op_limit) return usage_error("--short-timeout must be below --op-limit");
  return 0;
}
