/* SPDX-License-Identifier: MIT */
/* Harness for the sbio CLI tests: runs the real `sbio` binary with a
 * controlled environment (no /etc, no $HOME config, no SBIO_* from the
 * caller), captures stdout, stderr and the exit status exactly, and
 * offers a scratch directory for config, call-log and audit files. */
#ifndef SBIO_CLI_TEST_HARNESS_H
#define SBIO_CLI_TEST_HARNESS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sys/types.h>

typedef struct h_result {
  int status; /* exit code, or 128+N when killed by signal N */
  char *out;  /* NUL-terminated; may contain NULs before */
  size_t out_len;
  char *err; /* without the lines h_finish sets aside (see stale_lines) */
  size_t err_len;
  /* Warnings that a provider source is past its re-verification window,
   * removed from err: whether they appear depends on the day the suite
   * runs (tests/support/freshness.h), so no assertion on err sees them. */
  size_t stale_lines;
  /* With h_opts.stderr_packets: how many of sbio's writes to stderr were
   * not exactly one whole line (a line in pieces, or several at once). */
  size_t err_writes_not_one_line;
} h_result;

typedef struct h_opts {
  const char *const *env; /* extra "K=V" entries, NULL-terminated, or NULL */
  int pty_stdout;         /* stdout is a pseudo-terminal */
  const char *stdin_file; /* stdin is this file; NULL: /dev/null */
  int stderr_packets;     /* stderr is a SOCK_SEQPACKET socket: each write() arrives as one packet */
} h_opts;

/* A fresh scratch directory (HOME and XDG_CONFIG_HOME live inside it). */
const char *h_scratch(void);
/* scratch/name, malloc'd. */
char *h_path(const char *name);
/* Writes text to scratch/name and returns the path (malloc'd). */
char *h_write(const char *name, const char *text);
/* The whole file, malloc'd and NUL-terminated; "" when it does not exist. */
char *h_read(const char *path);

/* Runs sbio with argv (NULL-terminated, without the program name). */
void h_run(h_result *r, const h_opts *opts, const char *const *argv);
#define H_RUN(r, opts, ...) h_run((r), (opts), (const char *const[]){__VA_ARGS__, NULL})

/* Same with stderr on a pseudo-terminal (what a person at a terminal
 * sees: progress bars, for instance). */
void h_run_pty_stderr(h_result *r, const h_opts *opts, const char *const *argv);
#define H_RUN_PTY_STDERR(r, opts, ...) h_run_pty_stderr((r), (opts), (const char *const[]){__VA_ARGS__, NULL})

/* Starts sbio without waiting; h_finish collects it. */
typedef struct h_proc {
  pid_t pid;
  int out_fd, err_fd;
} h_proc;
void h_start(h_proc *p, const h_opts *opts, const char *const *argv);
void h_finish(h_proc *p, h_result *r);
#define H_START(p, opts, ...) h_start((p), (opts), (const char *const[]){__VA_ARGS__, NULL})

void h_result_free(h_result *r);

/* Whether `hay` contains `needle` (byte-wise, over len bytes). */
int h_contains(const char *hay, size_t len, const char *needle);
/* Parses exactly one JSON document followed by one newline; fails the
 * test otherwise. */
cJSON *h_json(const h_result *r);
/* Asserts the status and prints both streams when it differs. */
#define H_ASSERT_STATUS(r, expected) h_assert_status((r), (expected), __FILE__, __LINE__)
void h_assert_status(const h_result *r, int expected, const char *file, int line);
/* Waits up to `seconds` for `path` to contain `needle`; returns 1 if it did. */
int h_wait_for(const char *path, const char *needle, double seconds);

#endif
