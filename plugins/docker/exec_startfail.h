/* SPDX-License-Identifier: MIT */
/* A program the runtime could not start (missing, not executable, a
 * missing working directory). Docker's engine does not report that as an
 * error: the exec "ends" with exit code 126, its inspect shows Pid 0 (no
 * process ever ran), and the runtime's text ("OCI runtime exec failed: ...")
 * arrives as the exec's stdout. A shell (and Podman) say it on stderr and
 * exit 127 for a program not found, 126 for one that cannot run. So the
 * exec holds back stdout that can still be the engine's text, and once the
 * exit code is known either passes it on untouched (a process ran) or turns
 * it into that shell convention. */
#ifndef SBIO_DOCKER_EXEC_STARTFAIL_H
#define SBIO_DOCKER_EXEC_STARTFAIL_H

#include "demux.h"

#include <stddef.h>

#define DK_STARTFAIL_HOLD 2048 /* the engine's text is one short line */

typedef struct dk_startfail {
  char held[DK_STARTFAIL_HOLD];
  size_t len;
  int done;          /* no longer holding: everything passes straight through */
  int stream;        /* the stream the text arrives on */
  const char *text;  /* how it begins */
  const char *text2; /* or this (the backstop: docker's init could not run it), or NULL */
  int backstop;      /* the one-shot run's `timeout` said it, not the engine */
} dk_startfail;

/* For an exec: the engine's text on stdout, exit 126, Pid 0. */
void sbio__dk_startfail_init(dk_startfail *h);
/* For the one-shot run (run.c), whose command runs under `timeout`: a
 * program that timeout could not run is its "timeout: ..." line on
 * stderr, naming the program, and exit 127 or 126. The same message and
 * codes come out as for an exec. */
void sbio__dk_startfail_init_backstop(dk_startfail *h);
/* What finish returns for the backstop when the image has no `timeout`:
 * docker's init said "[FATAL tini (N)] exec timeout failed" (exit 127),
 * so the command never ran. Its text is dropped: the error says it. */
#define DK_STARTFAIL_NO_BACKSTOP (-2)
/* Output of the exec, on its way to `out`: stdout that may still be the
 * engine's text is kept; anything else first releases what was kept. */
void sbio__dk_startfail_feed(dk_startfail *h, int stream, const char *data, size_t len, dk_demux_out out, void *user);
/* Releases what was kept, as stdout (the process ran after all). */
void sbio__dk_startfail_flush(dk_startfail *h, dk_demux_out out, void *user);
/* The exec ended with `exit_code`, its inspect saying `pid` (-1 for the
 * backstop, which has none). When nothing ran and the kept text is the
 * engine's (the backstop's), writes a message naming
 * `program` to stderr and returns the shell's code (127 not found, 126
 * cannot run); otherwise releases the kept text and returns exit_code. */
int sbio__dk_startfail_finish(dk_startfail *h, int exit_code, long pid, const char *program, dk_demux_out out,
                              void *user);

#endif
