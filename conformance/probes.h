/* SPDX-License-Identifier: MIT */
/* The commands the kit runs inside sandboxes. All are POSIX utilities
 * (echo, sh -c, seq, sleep, cat, exit) so the same probes work on
 * the fake's virtual shell, a busybox image, and cloud sandboxes alike.
 * Only the egress probe can be replaced (--egress-probe-cmd), because
 * images differ in which HTTP client they carry. */
#ifndef SBIO_KIT_PROBES_H
#define SBIO_KIT_PROBES_H

#include "case_api.h"

#define KIT_PROBE_ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

#define PROBE_ECHO(text) KIT_PROBE_ARGV("echo", text)
#define PROBE_SH(script) KIT_PROBE_ARGV("sh", "-c", script)
/* The whole environment, one NAME=VALUE per line: `env` is POSIX and in
 * every busybox, where printenv may be missing, and it needs no shell. */
#define PROBE_ENV KIT_PROBE_ARGV("env")
#define PROBE_SEQ(last) KIT_PROBE_ARGV("seq", "1", last)
#define PROBE_CAT(path) KIT_PROBE_ARGV("cat", path)
#define PROBE_CAT_STDIN KIT_PROBE_ARGV("cat")
/* Runs far longer than any deadline the kit sets. */
#define PROBE_HANG KIT_PROBE_ARGV("sleep", "3600")
/* Prints a line, then runs far longer than any deadline. */
#define PROBE_OUTPUT_THEN_HANG PROBE_SH("echo started; sleep 3600")
#define PROBE_BOTH PROBE_SH("echo out; echo err >&2")
#define PROBE_STDERR PROBE_SH("echo err >&2")

/* The variable the env and argv probes use. */
#define PROBE_VAR "SBIO_CONFORMANCE_VAR"

#define KIT_DEFAULT_EGRESS_PROBE "curl -sS --max-time 5 http://{host}/"
#define KIT_DEFAULT_CANARY_HOST "example.com"

/* The egress probe for `host`: the configured command with every "{host}"
 * replaced. Owned by the case. */
const char *kit_probe_egress(kit_case *c, const char *host);

/* The value of `var` in the output of PROBE_ENV, owned by the case; NULL
 * when the variable is not there. */
const char *kit_env_value(kit_case *c, const char *out, size_t len, const char *var);

/* A name unique to this run, for files and hosts: "sbio-conformance-<run>-<what>". */
const char *kit_probe_name(kit_case *c, const char *what);

#endif
