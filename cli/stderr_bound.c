/* SPDX-License-Identifier: MIT */
/* Bounded writes to stderr; see stderr_bound.h.
 *
 * A pipe or FIFO (the usual stderr of a program run by another) is opened
 * again through /proc/self/fd/2: a new open file description of the same
 * pipe, non-blocking without touching the flags of the one the other
 * processes share, so a write takes what fits and never waits inside the
 * kernel. Anything else (a terminal, a socket, a file) is written in
 * pieces of at most PIPE_BUF bytes once poll() says there is room, which
 * does not block unless another writer fills that room in between. */
#include "stderr_bound.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STALL_NS ((int64_t)(CLI_STDERR_STALL_S * 1e9))

static atomic_int nonblocking_fd = -1; /* the FIFO opened again, or -1 */
static atomic_int stalled;
static atomic_llong waited_ns; /* time spent waiting for room, all writers */
static atomic_int installed;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for room on `fd` within what is left of the budget (no wait at
 * all once stalled, or when `may_wait` is 0). 1: there is room; 0: give up
 * (none now, or the reader is gone). */
static int wait_for_room(int fd, int may_wait) {
  for (;;) {
    int64_t left = STALL_NS - atomic_load(&waited_ns);
    if (left <= 0) atomic_store(&stalled, 1);
    int wait = may_wait && !atomic_load(&stalled);
    struct pollfd p = {fd, POLLOUT, 0};
    int64_t t0 = now_ns();
    int r = poll(&p, 1, wait ? (int)(left / 1000000) + 1 : 0);
    if (wait) atomic_fetch_add(&waited_ns, now_ns() - t0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || (p.revents & (POLLERR | POLLHUP | POLLNVAL))) return 0;
    if (r > 0) return 1;
    if (!wait) return 0;
  }
}

size_t cli_stderr_write(const void *data, size_t len, int may_wait) {
  const char *p = data;
  size_t done = 0;
  int nb = atomic_load(&nonblocking_fd);
  int fd = nb >= 0 ? nb : STDERR_FILENO;
  if (nb < 0 && !wait_for_room(fd, may_wait)) return 0;
  while (done < len) {
    size_t want = len - done;
    if (nb < 0 && want > PIPE_BUF) want = PIPE_BUF; /* what a pipe with room takes without blocking */
    ssize_t n = write(fd, p + done, want);
    if (n > 0) {
      done += (size_t)n;
      if (nb < 0 && done < len && !wait_for_room(fd, may_wait)) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && wait_for_room(fd, may_wait)) continue;
    break; /* stalled, or stderr is closed or broken: the rest is dropped */
  }
  return done;
}

int cli_stderr_stalled(void) {
  return atomic_load(&stalled);
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t size) {
  (void)cookie;
  (void)cli_stderr_write(buf, size, 1);
  /* All of it, as far as stdio is concerned: a dropped message is not an
   * error of the stream, and later ones must still be tried. */
  return (ssize_t)size;
}

void cli_stderr_bound(void) {
  if (atomic_exchange(&installed, 1)) return;
  struct stat st;
  if (fstat(STDERR_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) {
    /* ENXIO when nobody holds the read end: then writes fail anyway. */
    int fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat again;
    if (fd >= 0 && (fstat(fd, &again) != 0 || again.st_ino != st.st_ino || again.st_dev != st.st_dev)) {
      close(fd);
      fd = -1;
    }
    if (fd >= 0) atomic_store(&nonblocking_fd, fd);
  }
  cookie_io_functions_t io = {.read = NULL, .write = cookie_write, .seek = NULL, .close = NULL};
  FILE *f = fopencookie(NULL, "w", io);
  if (!f) return;
  setvbuf(f, NULL, _IONBF, 0); /* one write per message, as stderr has */
  fflush(stderr);
  /* glibc's stderr is a variable programs may set (the manual's "Standard
   * Streams"); the library's own messages read it at each call. */
  stderr = f;
}
