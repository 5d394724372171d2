/* SPDX-License-Identifier: MIT */
/* The writer thread between the exec's output callback and fds 1 and 2
 * (see run_writer.h for why). Waiting for the writer is waiting on a
 * condition variable on the monotonic clock, the clock the library's
 * deadlines use: a written chunk wakes the waiter at once. The wait is cut
 * into slices only so that a signal ending the run (which nothing
 * broadcasts here) is seen while a reader holds the writer up. */
#include "run_writer.h"

#include "output.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SIGNAL_SLICE_NS 100000000LL /* at most 100 ms to notice a signal while the writer is held up */

/* A writer left blocked in write() at stop, kept reachable: its thread
 * still uses it until the process exits (and leak checkers see it held). */
static void *abandoned;

typedef struct chunk {
  struct chunk *next;
  int fd;
  size_t len;
  char data[];
} chunk;

struct run_writer {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t ready; /* a chunk was queued, or stop */
  pthread_cond_t wrote; /* a chunk was written (or dropped): room, or drained */
  chunk *head, *tail;   /* under lock */
  size_t queued;        /* bytes in the queue, under lock */
  int busy;             /* the thread is writing a chunk it took, under lock */
  int stop;             /* under lock */
  atomic_int gave_up;   /* the deadline passed with output still queued */
  atomic_int lost[3];   /* [1], [2]: that stream's reader went away */
  atomic_llong deadline_ns;
  cli_interrupt *watcher;
};

int64_t run_writer_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits, with w->lock held, until the writer finishes a chunk, the
 * deadline passes or a signal slice ends, whichever is first. */
static void wait_for_writer(run_writer *w) {
  int64_t now = run_writer_now_ns(), until = atomic_load(&w->deadline_ns);
  if (until - now > SIGNAL_SLICE_NS) until = now + SIGNAL_SLICE_NS;
  struct timespec ts = {(time_t)(until / 1000000000), (long)(until % 1000000000)};
  pthread_cond_timedwait(&w->wrote, &w->lock, &ts);
}

/* Whether waiting must stop: the deadline passed, or a signal (Ctrl-C,
 * or SIGPIPE requested for a lost stdout) is ending the run. */
static int must_stop_waiting(run_writer *w) {
  return run_writer_now_ns() >= atomic_load(&w->deadline_ns) || cli_interrupt_signal(w->watcher) != 0;
}

static void *writer_main(void *arg) {
  run_writer *w = arg;
  pthread_mutex_lock(&w->lock);
  for (;;) {
    while (!w->head && !w->stop) pthread_cond_wait(&w->ready, &w->lock);
    if (!w->head) break; /* stop, and nothing left */
    chunk *c = w->head;
    w->head = c->next;
    if (!w->head) w->tail = NULL;
    w->busy = 1;
    pthread_mutex_unlock(&w->lock);
    /* May block for ever on a reader that stopped reading: nothing else
     * waits on this thread past the deadline. */
    if (!atomic_load(&w->lost[c->fd]) && cli_write_all(c->fd, c->data, c->len) != 0) {
      atomic_store(&w->lost[c->fd], 1);
      /* The reader of stdout went away (`sbio run -- yes | head`): end the
       * command the way a pipeline ends a local one. */
      if (errno == EPIPE && c->fd == STDOUT_FILENO) cli_interrupt_request(w->watcher, SIGPIPE);
    }
    pthread_mutex_lock(&w->lock);
    w->queued -= c->len;
    w->busy = 0;
    free(c);
    pthread_cond_broadcast(&w->wrote);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

run_writer *run_writer_start(cli_interrupt *watcher) {
  run_writer *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->watcher = watcher;
  atomic_store(&w->deadline_ns, INT64_MAX);
  pthread_mutex_init(&w->lock, NULL);
  pthread_cond_init(&w->ready, NULL);
  pthread_condattr_t monotonic;
  pthread_condattr_init(&monotonic);
  pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
  pthread_cond_init(&w->wrote, &monotonic);
  pthread_condattr_destroy(&monotonic);
  int rc = pthread_create(&w->thread, NULL, writer_main, w);
  if (rc != 0) {
    pthread_cond_destroy(&w->wrote);
    pthread_cond_destroy(&w->ready);
    pthread_mutex_destroy(&w->lock);
    free(w);
    errno = rc;
    return NULL;
  }
  return w;
}

void run_writer_set_deadline(run_writer *w, int64_t deadline_ns) {
  atomic_store(&w->deadline_ns, deadline_ns);
}

void run_writer_put(run_writer *w, int fd, const char *data, size_t len) {
  if (len == 0 || (fd != STDOUT_FILENO && fd != STDERR_FILENO)) return;
  if (atomic_load(&w->gave_up) || atomic_load(&w->lost[fd])) return;
  chunk *c = malloc(sizeof *c + len);
  if (!c) {
    /* Out of memory: write it here, as the callback did before. */
    if (cli_write_all(fd, data, len) != 0) atomic_store(&w->lost[fd], 1);
    return;
  }
  c->next = NULL;
  c->fd = fd;
  c->len = len;
  memcpy(c->data, data, len);
  pthread_mutex_lock(&w->lock);
  while (w->queued > 0 && w->queued + len > RUN_WRITER_QUEUE_MAX) {
    if (must_stop_waiting(w)) {
      if (!cli_interrupt_signal(w->watcher)) atomic_store(&w->gave_up, 1);
      pthread_mutex_unlock(&w->lock);
      free(c);
      return;
    }
    wait_for_writer(w);
  }
  if (w->tail)
    w->tail->next = c;
  else
    w->head = c;
  w->tail = c;
  w->queued += len;
  pthread_cond_signal(&w->ready);
  pthread_mutex_unlock(&w->lock);
}

int run_writer_drain(run_writer *w) {
  pthread_mutex_lock(&w->lock);
  while ((w->head || w->busy) && !atomic_load(&w->gave_up)) {
    if (must_stop_waiting(w)) {
      if (!cli_interrupt_signal(w->watcher)) atomic_store(&w->gave_up, 1);
      break;
    }
    wait_for_writer(w);
  }
  int drained = !w->head && !w->busy;
  pthread_mutex_unlock(&w->lock);
  return drained || !atomic_load(&w->gave_up) ? 0 : -1;
}

void run_writer_stop(run_writer *w) {
  if (!w) return;
  pthread_mutex_lock(&w->lock);
  /* Drop what was never written (the writer gave up, or a signal ends
   * the run); a chunk being written stays with the thread. */
  for (chunk *c = w->head, *next; c; c = next) {
    next = c->next;
    w->queued -= c->len;
    free(c);
  }
  w->head = w->tail = NULL;
  w->stop = 1;
  int stuck = w->busy;
  pthread_cond_signal(&w->ready);
  pthread_mutex_unlock(&w->lock);
  if (stuck) {
    /* Blocked in write() on a reader that does not read: it cannot be
     * interrupted, and joining would wait for ever. The process's exit
     * ends it; until then it still uses `w`, which is not freed. */
    abandoned = w;
    pthread_detach(w->thread);
    return;
  }
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wrote);
  pthread_cond_destroy(&w->ready);
  pthread_mutex_destroy(&w->lock);
  free(w);
}
