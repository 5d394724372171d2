/* SPDX-License-Identifier: MIT */
/* The command's output on its way to sbio's own stdout and stderr, written
 * by a thread of its own. The library calls the output callback on the
 * exec's thread, and that thread also enforces the exec's deadline: if the
 * callback wrote to a stdout nobody reads, it would block in write() and
 * the deadline would never be enforced. Here the callback only queues the
 * bytes (in order, both streams in one queue so their interleaving stays
 * the command's); when the queue is full it waits, but never past the
 * deadline: then the writer gives up, the rest of the output is dropped,
 * and the exec ends at its deadline as it should. */
#ifndef SBIO_CLI_RUN_WRITER_H
#define SBIO_CLI_RUN_WRITER_H

#include "interrupt.h"

#include <stddef.h>
#include <stdint.h>

/* Output queued but not yet written, at most (one larger chunk is taken
 * when the queue is empty). */
#define RUN_WRITER_QUEUE_MAX ((size_t)1 << 20)

typedef struct run_writer run_writer;

/* Starts the writer thread; `watcher` is told (SIGPIPE) when stdout's
 * reader goes away. NULL on failure (errno set). */
run_writer *run_writer_start(cli_interrupt *watcher);
/* The deadline (CLOCK_MONOTONIC, ns) past which no wait for the output
 * happens. */
void run_writer_set_deadline(run_writer *w, int64_t deadline_ns);
/* Queues `len` bytes for fd 1 (stdout) or 2 (stderr). Waits while the
 * queue is full, until the deadline or a signal; returns at once after
 * the writer gave up or the stream's reader went away. */
void run_writer_put(run_writer *w, int fd, const char *data, size_t len);
/* Waits until everything queued is written, or until the deadline.
 * Returns 0 when all of it was written (or its reader went away), -1 when
 * the writer gave up (the output did not drain before the deadline). */
int run_writer_drain(run_writer *w);
/* Ends the writer. A writer still blocked in write() (a reader that never
 * reads) is left to the process's exit, with its queue: it cannot be
 * interrupted, and what it holds may not be freed under it. */
void run_writer_stop(run_writer *w);

/* The monotonic clock, in ns. */
int64_t run_writer_now_ns(void);

#endif
