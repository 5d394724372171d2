/* SPDX-License-Identifier: MIT */
/* sbio-conformance: the shared state of one run of the kit.
 *
 * The kit drives a backend through the public API only (libsandboxio.so),
 * so it works against an installed library and any backend, first or third
 * party. One kit_ctx lives for the whole run; one kit_case per case. */
#ifndef SBIO_KIT_H
#define SBIO_KIT_H

#include "capture.h"
#include "elf_reader.h"

#include <pthread.h>
#include <sandboxio/sandboxio.h>
#include <stddef.h>

#define KIT_VERSION "0.1.0"
#define KIT_REPORT_SCHEMA "sandboxio-conformance/1"

/* Exit statuses, <sysexits.h> style like the sbio command. */
#define KIT_EXIT_OK 0           /* no case failed */
#define KIT_EXIT_FAILED 1       /* at least one case failed (or could not run) */
#define KIT_EXIT_USAGE 64       /* the command line could not be understood */
#define KIT_EXIT_UNAVAILABLE 69 /* the library host could not be opened (configuration, ...) */
#define KIT_EXIT_INTERNAL 70    /* out of memory, a thread could not start, ... */
#define KIT_EXIT_IOERR 74       /* the report could not be written */

typedef enum kit_status { KIT_PASS = 0, KIT_WARN, KIT_SKIP, KIT_FAIL, KIT_NOT_RUN } kit_status;

/* What the command line asked for. */
typedef struct kit_options {
  const char *uri;
  const char *backend_path;
  const char *config_file;
  int no_config;
  const char *report_path;
  const char *only; /* comma-separated patterns, NULL: every case */
  int list_only;
  int verbose;
  const char *egress_probe; /* shell command; "{host}" is replaced by the host */
  const char *canary_host;
  int offline;             /* the test machine has no internet: skip "reachable" checks */
  double short_timeout;    /* exec deadline of the timeout cases */
  double grace;            /* how long past a deadline the kit waits before it intervenes */
  double lifetime;         /* timeout of ordinary sandboxes */
  double inherit_lifetime; /* lifetime of the sandbox in exec.timeout_inherits_sandbox_timeout */
  double settle;           /* how long "a process is running now" takes after exec starts */
  double op_limit;         /* longest an ordinary operation may take */
  double hard_limit;       /* longest a whole case may take */
  int reuse;               /* --reuse-sandbox: the exec, stream and files cases share one sandbox */
} kit_options;

typedef struct kit_result {
  const struct kit_case_def *def;
  kit_status status;
  char *reason;
  double seconds;
} kit_result;

typedef struct kit_ctx {
  kit_options opt;
  sbio_host *host;
  char backend[64];              /* the URI's scheme */
  int uri_has_query;             /* "?timeout=N" fixes every sandbox's lifetime */
  const sbio_backend_info *info; /* NULL when no such backend */
  int usable;                    /* found, enabled, not refused, and it loaded */
  char unusable[1024];           /* why not */
  sbio_caps caps;
  sbio_tier tier;      /* the backend's (weakest effective) tier */
  sbio_tier strongest; /* strongest effective tier among its mechanisms */
  kit_elf elf;         /* facts from the plugin file */
  int elf_ok;
  char elf_error[512];
  char run_id[17];     /* random hex; every sandbox of this run is labelled with it */
  char run_label[64];  /* "sbio_conformance_run=<run_id>" */
  kit_capture capture; /* every log line and audit event of the run */
  kit_result *results;
  size_t n_results;
  int reaped; /* sandboxes of this run the final safety net removed */
  /* --reuse-sandbox: the sandbox the shareable cases get from
   * kit_create_ok(c, NULL, ...), created on first use, closed before the
   * first case that may not share it, after a case that failed with it,
   * and at the end of the run. */
  struct sbio_sandbox *shared;
  size_t shared_uses;
  double started;
} kit_ctx;

/* Seconds on the monotonic clock. */
double kit_now(void);
void kit_sleep(double seconds);
/* Prints "sbio-conformance: out of memory" and exits KIT_EXIT_INTERNAL. */
void kit_oom(void) __attribute__((noreturn));
/* Prints "sbio-conformance: <what>" and exits KIT_EXIT_INTERNAL. */
void kit_die(const char *what) __attribute__((noreturn));
void *kit_xmalloc(size_t size);
char *kit_xstrdup(const char *s);
/* Fills `out` with 2*bytes random hex characters (and a NUL). */
void kit_random_hex(char *out, size_t bytes);

#endif
