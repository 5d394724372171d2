/* SPDX-License-Identifier: MIT */
/* sbio's own messages on a stderr nobody reads.
 *
 * stderr is a blocking descriptor, usually shared with other processes
 * (a terminal, a pipe to a log collector), so it cannot be switched to
 * non-blocking. A reader that stops reading (`sbio run ... 2>&1 | less`
 * paused, an MCP client that never drains the server's stderr, a command
 * that filled the pipe with its own stderr) would then hold every message
 * sbio writes, and with it the thread writing it: `sbio run --timeout`
 * hung for ever on its own "deadline passed" line, and the signal watcher
 * on its "interrupted" note. Once cli_stderr_bound() is called, a write to
 * stderr waits for room at most CLI_STDERR_STALL_S in all (the margin a
 * deadline allows past it); after that stderr is stalled and each message
 * is written only as far as it fits at once, the rest dropped. */
#ifndef SBIO_CLI_STDERR_BOUND_H
#define SBIO_CLI_STDERR_BOUND_H

#include <sandboxio/types.h>
#include <stddef.h>

#define CLI_STDERR_STALL_S SBIO_DEADLINE_MARGIN_S

/* Replaces the stdio stream `stderr` (the library's messages use it too)
 * with one whose writes are bounded as above. Idempotent; on failure
 * stderr stays as it was. Call it before any thread that writes to
 * stderr starts. */
void cli_stderr_bound(void);
/* Writes `len` bytes to file descriptor 2 with the same bound, from any
 * thread, without stdio; `may_wait` 0: only what fits at once (a thread
 * that must never wait: the signal watcher). Returns the bytes written. */
size_t cli_stderr_write(const void *data, size_t len, int may_wait);
/* Whether stderr was found stalled (a write gave up waiting). */
int cli_stderr_stalled(void);

#endif
