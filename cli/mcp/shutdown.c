/* SPDX-License-Identifier: MIT */
/* Signals and the stop request of `sbio mcp`; see shutdown.h. */
#include "shutdown.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct mcp_shutdown {
  pthread_t watcher;
  int pipe_fd[2];
  atomic_int signo;
  atomic_int requested;
  atomic_int stop;
  pthread_mutex_t lock; /* guards holder */
  mcp_holder *holder;
};

static void signal_set(sigset_t *set) {
  sigemptyset(set);
  sigaddset(set, SIGINT);
  sigaddset(set, SIGTERM);
  sigaddset(set, SIGHUP);
}

static void wake(mcp_shutdown *s) {
  char c = 1;
  /* The pipe is non-blocking and one byte suffices: a full pipe already
   * says "stop". */
  ssize_t ignored = write(s->pipe_fd[1], &c, 1);
  (void)ignored;
}

static void *watch(void *arg) {
  mcp_shutdown *s = arg;
  sigset_t set;
  signal_set(&set);
  /* 100 ms bounds how late a stop of the watcher itself is noticed. */
  const struct timespec tick = {0, 100 * 1000 * 1000};
  while (!atomic_load(&s->stop)) {
    int sig = sigtimedwait(&set, NULL, &tick);
    if (sig <= 0) continue;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&s->signo, &expected, sig)) continue; /* not the first */
    atomic_store(&s->requested, 1);
    wake(s);
    pthread_mutex_lock(&s->lock);
    if (s->holder) mcp_holder_shutdown(s->holder);
    pthread_mutex_unlock(&s->lock);
  }
  return NULL;
}

mcp_shutdown *mcp_shutdown_start(void) {
  mcp_shutdown *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  if (pipe(s->pipe_fd) != 0) {
    free(s);
    return NULL;
  }
  for (int i = 0; i < 2; i++) {
    fcntl(s->pipe_fd[i], F_SETFL, fcntl(s->pipe_fd[i], F_GETFL) | O_NONBLOCK);
    fcntl(s->pipe_fd[i], F_SETFD, FD_CLOEXEC);
  }
  atomic_init(&s->signo, 0);
  atomic_init(&s->requested, 0);
  atomic_init(&s->stop, 0);
  pthread_mutex_init(&s->lock, NULL);
  sigset_t set;
  signal_set(&set);
  int rc = pthread_sigmask(SIG_BLOCK, &set, NULL);
  if (rc == 0) rc = pthread_create(&s->watcher, NULL, watch, s);
  if (rc != 0) {
    close(s->pipe_fd[0]);
    close(s->pipe_fd[1]);
    pthread_mutex_destroy(&s->lock);
    free(s);
    errno = rc;
    return NULL;
  }
  return s;
}

void mcp_shutdown_set_holder(mcp_shutdown *s, mcp_holder *h) {
  pthread_mutex_lock(&s->lock);
  s->holder = h;
  pthread_mutex_unlock(&s->lock);
  /* A signal before the holder existed: it must still stop everything. */
  if (h && atomic_load(&s->signo)) mcp_holder_shutdown(h);
}

int mcp_shutdown_fd(const mcp_shutdown *s) {
  return s->pipe_fd[0];
}

void mcp_shutdown_request(mcp_shutdown *s) {
  atomic_store(&s->requested, 1);
  wake(s);
}

int mcp_shutdown_requested(const mcp_shutdown *s) {
  return atomic_load(&((mcp_shutdown *)s)->requested);
}

int mcp_shutdown_signal(const mcp_shutdown *s) {
  return atomic_load(&((mcp_shutdown *)s)->signo);
}

void mcp_shutdown_stop(mcp_shutdown *s) {
  if (!s) return;
  atomic_store(&s->stop, 1);
  pthread_join(s->watcher, NULL);
  close(s->pipe_fd[0]);
  close(s->pipe_fd[1]);
  pthread_mutex_destroy(&s->lock);
  free(s);
}
