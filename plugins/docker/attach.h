/* SPDX-License-Identifier: MIT */
/* A process's attached streams over an upgraded connection: an exec's
 * (exec.c) or a one-shot run's container (run.c). Output frames are
 * demultiplexed into the request's output callback as they arrive, through
 * the start-failure filter (exec_startfail.h); stdin is written while output
 * is read (no deadlock on large input), then the write side is half-closed
 * so the process sees EOF. A step keeps the call's deadline and notices its
 * cancellation: it never waits past the deadline, nor longer than the
 * cancel-check slice (one place for the bound the exec's and the run's loops
 * share). The caller's loop keeps its own probes and its own kill flags. */
#ifndef SBIO_DOCKER_ATTACH_H
#define SBIO_DOCKER_ATTACH_H

#include "demux.h"
#include "dk.h"
#include "exec_startfail.h"

#include <sandboxio/sdk/http_stream.h>

typedef struct dk_attach {
  dk_instance *inst;
  const sbio_bk_exec_req *req; /* stdin data and the output callback */
  const sbio_bk_call *call;    /* its deadline bounds every wait; its cancellation ends the steps */
  sbio_sdk_http_conn *conn;
  dk_demux demux;
  dk_startfail startfail;
  size_t stdin_sent;
  int stdin_closed;
  int64_t last_activity; /* host clock: the last bytes that arrived */
  int garbled;           /* DK_GARBLED_*: the stream was not docker's framing */
} dk_attach;

enum {
  DK_GARBLED_NO = 0,
  DK_GARBLED_FRAME = 1, /* a frame header with an unknown stream type */
  DK_GARBLED_CUT = 2    /* the stream ended inside a frame */
};

/* The probes both loops make: after this long without a byte on the stream
 * the process (exec inspect, or the container) is inspected, because a
 * stream can stay open after the process behind it is gone; and the most
 * time one probe's requests may take (never past the call's deadline). */
#define DK_IDLE_PROBE_NS (2LL * 1000000000LL)
#define DK_PROBE_BUDGET_S 2.0

enum {
  DK_ATTACH_MORE = -1,     /* nothing ended; bytes may have moved */
  DK_ATTACH_EOF = 0,       /* the process closed its output */
  DK_ATTACH_LOST = 1,      /* the connection broke, or a frame was malformed */
  DK_ATTACH_IDLE = 2,      /* nothing ended and nothing arrived during the wait */
  DK_ATTACH_CANCELLED = 3, /* the call was cancelled (checked first, nothing read) */
  DK_ATTACH_DEADLINE = 4   /* the call's deadline passed (nothing read) */
};

/* Starts following `conn` (the attach owns it from now on) for `call`.
 * backstop: the one-shot run's start-failure filter, else the exec's.
 * Without stdin the write side is half-closed at once, as the docker CLI
 * does. */
void sbio__dk_attach_begin(dk_attach *a, dk_instance *inst, sbio_sdk_http_conn *conn, const sbio_bk_exec_req *req,
                           const sbio_bk_call *call, int backstop);
/* DK_ATTACH_CANCELLED or DK_ATTACH_DEADLINE when the call says so; else
 * reads what is there, writes stdin, then waits at most until the deadline
 * and at most the cancel-check slice: one of DK_ATTACH_*. */
int sbio__dk_attach_step(dk_attach *a);
/* Closes the connection (NULL is fine; idempotent). */
void sbio__dk_attach_close(dk_attach *a);
/* The process ended with exit_code (pid: its exec inspect, -1 for the
 * backstop): see sbio__dk_startfail_finish. Returns the code to report. */
int sbio__dk_attach_finish(dk_attach *a, int exit_code, long pid, const char *program);
/* Whatever the filter still holds is the process's own output. */
void sbio__dk_attach_flush(dk_attach *a);
/* SBIO_OK, or an SBIO_E_EXEC saying the output delivered is incomplete
 * because the stream was not docker's framing (sandbox: its short id). */
int sbio__dk_attach_check(const dk_attach *a, const char *sandbox, sbio_bk_error *err);

#endif
