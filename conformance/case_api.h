/* SPDX-License-Identifier: MIT */
/* What a case body works with: verdicts, sandboxes it does not have to
 * clean up, and execs that cannot hang the kit.
 *
 * Everything a case obtains through these helpers (options, errors,
 * sandboxes, exec results) is released by the runner when the case ends,
 * so a case may simply return after a failure. */
#ifndef SBIO_KIT_CASE_API_H
#define SBIO_KIT_CASE_API_H

#include "kit.h"
#include "registry.h"

#include <sandboxio/sandboxio.h>

#define KIT_MAX_BOXES 16
#define KIT_MAX_ASYNC 8

typedef struct kit_async kit_async;

typedef struct kit_defer {
  void (*fn)(void *);
  void *ptr;
} kit_defer;

struct kit_case {
  kit_ctx *ctx;
  const kit_case_def *def;
  kit_status status;
  char reason[4096];
  pthread_mutex_t lock; /* guards boxes: the runner may kill them from its thread */
  sbio_sandbox *boxes[KIT_MAX_BOXES];
  size_t n_boxes;
  sbio_sandbox *shared; /* --reuse-sandbox: the run's shared sandbox, when this case got it */
  kit_async *asyncs[KIT_MAX_ASYNC];
  size_t n_asyncs;
  kit_defer *defers;
  size_t n_defers, cap_defers;
};

/* ------------------------------------------------------------ verdicts */
/* A failure; several are joined with "; ". */
void kit_fail(kit_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Not applicable, and why. A failure already recorded wins. */
void kit_skip(kit_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A finding that is not a failure (e.g. an unverified tier). */
void kit_warn(kit_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* What a passing case verified, for the report. */
void kit_note(kit_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int kit_failed(const kit_case *c);

/* -------------------------------------------------------------- memory */
void kit_defer_free(kit_case *c, void (*fn)(void *), void *ptr);
sbio_error *kit_err(kit_case *c);
/* "[SBX_E1302] message" in a buffer owned by the case. */
const char *kit_err_text(kit_case *c, sbio_code rc, const sbio_error *err);
/* "SBX_E1302" or "OK" (static strings; "an unknown code" otherwise). */
const char *kit_code(sbio_code rc);
/* printf into a buffer owned by the case. */
char *kit_fmt(kit_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "[echo, a b]" for messages, owned by the case. */
const char *kit_argv_text(kit_case *c, const char *const *argv);
/* C string with control characters escaped, for messages. */
const char *kit_quote(kit_case *c, const char *data, size_t len);

/* ----------------------------------------------------------- sandboxes */
/* Create options carrying this run's label and the ordinary lifetime. */
sbio_create_options *kit_opts(kit_case *c);
sbio_exec_options *kit_xopts(kit_case *c);
/* Creates with the case's URI; the sandbox is tracked (closed at the end).
 * NULL on failure with *rc and err (err may be NULL) filled. */
sbio_sandbox *kit_create(kit_case *c, sbio_create_options *o, sbio_code *rc, sbio_error *err);
/* Same, but a failed create fails the case ("what: create failed: ..."). */
sbio_sandbox *kit_create_ok(kit_case *c, sbio_create_options *o, const char *what);
/* Whether a case may be handed the shared sandbox (--reuse-sandbox) when
 * it asks kit_create_ok for one without options. */
int kit_case_may_share(const kit_case_def *d);
/* Tracks a sandbox obtained otherwise (sbio_sandbox_connect). */
void kit_track(kit_case *c, sbio_sandbox *sb);
/* sbio_sandbox_describe() into a buffer owned by the case. */
const char *kit_describe(kit_case *c, const sbio_sandbox *sb);
/* Closes (kills) a tracked sandbox now; the result of the close. */
sbio_code kit_close(kit_case *c, sbio_sandbox *sb, sbio_error *err);
/* Kills every tracked sandbox (any thread may call it). */
void kit_kill_all(kit_case *c);

/* How many managed sandboxes of this run the backend lists (0 ok, -1 when
 * it cannot say: managed not declared, or the listing failed; `why` then
 * says which). `extra` is one more "k=v" filter or NULL. */
int kit_managed_count(kit_case *c, const char *extra, size_t *count, char *why, size_t why_size);
/* 1 listed, 0 not listed, -1 unknown (why filled). */
int kit_managed_lists(kit_case *c, const char *id, char *why, size_t why_size);

/* ---------------------------------------------------------------- exec */
typedef struct kit_run {
  sbio_code rc;
  sbio_error *err;
  sbio_exec_result *res; /* NULL unless rc is OK or EXEC_TIMEOUT */
  int exit_code;
  const char *out, *errout;
  size_t out_len, err_len;
  double seconds;
  int watchdog; /* it ran past its limit: the kit killed the sandbox */
} kit_run;

/* Runs argv (or a shell script) and waits at most limit_s (0: the ordinary
 * operation limit). Past it the kit kills the sandbox, which must end the
 * exec, and sets watchdog. Never NULL. */
kit_run *kit_exec(kit_case *c, sbio_sandbox *sb, const char *const *argv, const sbio_exec_options *o, double limit_s);
kit_run *kit_shell(kit_case *c, sbio_sandbox *sb, const char *script, const sbio_exec_options *o, double limit_s);
/* The same in two steps, for cases that act while the exec runs. */
kit_async *kit_exec_start(kit_case *c, sbio_sandbox *sb, const char *const *argv, const char *script,
                          const sbio_exec_options *o);
int kit_exec_wait(kit_async *a, double limit_s); /* 1 when it has finished */
kit_run *kit_exec_finish(kit_case *c, kit_async *a);

/* Fails the case unless the run succeeded (rc OK); returns 1 when it did. */
int kit_run_ok(kit_case *c, const kit_run *r, const char *what);
/* Fails unless rc OK, exit 0 and stdout equal to `want`. */
int kit_expect_output(kit_case *c, const kit_run *r, const char *what, const char *want);

#endif
