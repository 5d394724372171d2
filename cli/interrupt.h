/* SPDX-License-Identifier: MIT */
/* Ctrl-C and SIGTERM during `sbio run`: the sandbox is destroyed, not
 * leaked. A signal handler may not call into the library, so the signals
 * are blocked in every thread and one watcher thread takes them with
 * a signalfd and calls sbio_sandbox_kill(), which the API allows from
 * any thread while an exec is in flight, or requests the cancellation
 * token of the sbio_run in progress. A second signal gives up at once
 * (the provider-side timeout and `sbio reap` remain the backstop). */
#ifndef SBIO_CLI_INTERRUPT_H
#define SBIO_CLI_INTERRUPT_H

#include <sandboxio/sandboxio.h>

typedef struct cli_interrupt cli_interrupt;

/* Blocks SIGINT and SIGTERM in the calling thread (threads it creates
 * later, including the library's, inherit that) and starts the watcher.
 * Call it before opening the host. NULL on failure (errno set). */
cli_interrupt *cli_interrupt_start(void);
/* The sandbox to kill on a signal; NULL detaches it. Detaching waits for a
 * kill in progress, so the caller may then close the sandbox safely. */
void cli_interrupt_set_sandbox(cli_interrupt *w, sbio_sandbox *sb);
/* The cancellation token of an sbio_run in progress (NULL detaches it):
 * a signal requests it, which ends the run and destroys its sandbox. A
 * signal that came before it was attached requests it at once. Detach it
 * before freeing it. */
void cli_interrupt_set_cancel(cli_interrupt *w, sbio_cancel *cancel);
/* Asks the watcher to kill the sandbox as if `signo` had arrived (used
 * when stdout's reader went away: SIGPIPE). Safe from any thread. */
void cli_interrupt_request(cli_interrupt *w, int signo);
/* The first signal received (or requested), 0 if none. */
int cli_interrupt_signal(cli_interrupt *w);
/* Stops and joins the watcher and frees it. Signals stay blocked: the
 * process is about to exit with a code that already reflects them. */
void cli_interrupt_stop(cli_interrupt *w);

#endif
