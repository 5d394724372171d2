/* SPDX-License-Identifier: MIT */
/* The signal watcher of `sbio run`; see interrupt.h for why it exists.
 *
 * Two threads: the watcher only ever waits for signals, and a killer
 * thread, started on the first signal, calls sbio_sandbox_kill(). The
 * split matters when a kill hangs (a provider not answering): the watcher
 * is still there to take the second signal and exit at once.
 *
 * The watcher sleeps in poll() on a signalfd (the signals, blocked in every
 * thread) and an eventfd (a stop, or a kill requested from another
 * thread), with no timeout: it wakes when there is something to do, so
 * neither a run's end nor a requested kill waits for a polling tick. */
#include "interrupt.h"

#include "exitcode.h"
#include "stderr_bound.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

/* The exit codes documented in exitcode.h are 128 + the signal number. */
_Static_assert(CLI_EXIT_SIGNAL_BASE + SIGINT == CLI_EXIT_SIGINT, "SIGINT exit code");
_Static_assert(CLI_EXIT_SIGNAL_BASE + SIGTERM == CLI_EXIT_SIGTERM, "SIGTERM exit code");
_Static_assert(CLI_EXIT_SIGNAL_BASE + SIGPIPE == CLI_EXIT_SIGPIPE, "SIGPIPE exit code");

struct cli_interrupt {
  pthread_t watcher;
  int signal_fd; /* SIGINT and SIGTERM, read by the watcher */
  int wake_fd;   /* eventfd: stop() or request() has something for the watcher */
  pthread_t killer;
  int killer_started;   /* touched by the watcher thread only, then by stop() */
  pthread_mutex_t lock; /* guards sb and killed; held during a kill */
  sbio_sandbox *sb;
  sbio_cancel *cancel;  /* sbio_run's token: requesting it ends the run */
  int killed;           /* the current sandbox was killed */
  atomic_int signo;     /* first signal, 0 if none */
  atomic_int requested; /* cli_interrupt_request() not yet acted on */
  atomic_int stop;
};

static void kill_current(struct cli_interrupt *w) {
  pthread_mutex_lock(&w->lock);
  /* The run's own thread destroys the sandbox once the token is seen. */
  if (w->cancel) sbio_cancel_request(w->cancel);
  if (w->sb && !w->killed) {
    w->killed = 1;
    /* Errors here are the sandbox's teardown story; close() reports them. */
    sbio_sandbox_kill(w->sb, NULL);
  }
  pthread_mutex_unlock(&w->lock);
}

static void *kill_thread(void *arg) {
  kill_current(arg);
  return NULL;
}

static void start_killer(struct cli_interrupt *w) {
  if (w->killer_started) return;
  if (pthread_create(&w->killer, NULL, kill_thread, w) == 0)
    w->killer_started = 1;
  else
    kill_current(w); /* no thread to spare: kill from here */
}

static void say(const char *text, size_t len) {
  /* Best effort, and never a wait: a closed stderr must not change what
   * happens next, nor may a stderr nobody reads keep this thread from the
   * next signal. */
  (void)cli_stderr_write(text, len, 0);
}

/* The next signal taken from the signalfd: its number, 0 if none yet. */
static int take_signal(int fd) {
  struct signalfd_siginfo info;
  ssize_t n = read(fd, &info, sizeof info);
  return n == (ssize_t)sizeof info ? (int)info.ssi_signo : 0;
}

static void drain_wake(int fd) {
  uint64_t count;
  ssize_t ignored = read(fd, &count, sizeof count);
  (void)ignored;
}

static void wake(struct cli_interrupt *w) {
  const uint64_t one = 1;
  /* Cannot fail short of a counter overflow, which a pending wake-up
   * makes harmless anyway. */
  ssize_t ignored = write(w->wake_fd, &one, sizeof one);
  (void)ignored;
}

static void *watch(void *arg) {
  struct cli_interrupt *w = arg;
  int first = 0; /* the first signal taken here */
  while (!atomic_load(&w->stop)) {
    struct pollfd fds[2] = {{.fd = w->signal_fd, .events = POLLIN}, {.fd = w->wake_fd, .events = POLLIN}};
    if (poll(fds, 2, -1) < 0) continue; /* EINTR: nothing is delivered to a blocked set, but be safe */
    if (fds[1].revents & POLLIN) drain_wake(w->wake_fd);
    int sig = (fds[0].revents & POLLIN) ? take_signal(w->signal_fd) : 0;
    if (sig > 0) {
      if (first) {
        /* Second signal: the user wants out now, whatever it costs. */
        static const char msg[] =
            "sbio: second signal; exiting without waiting for teardown (`sbio reap --kill` removes leftovers)\n";
        say(msg, sizeof msg - 1);
        _exit(CLI_EXIT_SIGNAL_BASE + first);
      }
      first = sig;
      int expected = 0; /* a broken stdout may have been first; it keeps its code */
      atomic_compare_exchange_strong(&w->signo, &expected, sig);
      static const char note[] = "sbio: interrupted; destroying the sandbox (signal again to exit at once)\n";
      say(note, sizeof note - 1);
      start_killer(w);
    }
    if (atomic_exchange(&w->requested, 0)) start_killer(w);
  }
  return NULL;
}

static void close_fds(struct cli_interrupt *w) {
  if (w->signal_fd >= 0) close(w->signal_fd);
  if (w->wake_fd >= 0) close(w->wake_fd);
}

cli_interrupt *cli_interrupt_start(void) {
  struct cli_interrupt *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->signal_fd = w->wake_fd = -1;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int rc = pthread_sigmask(SIG_BLOCK, &set, NULL);
  if (rc == 0 && ((w->signal_fd = signalfd(-1, &set, SFD_CLOEXEC)) < 0 || (w->wake_fd = eventfd(0, EFD_CLOEXEC)) < 0))
    rc = errno;
  if (rc == 0) rc = pthread_mutex_init(&w->lock, NULL);
  if (rc != 0) {
    close_fds(w);
    free(w);
    errno = rc;
    return NULL;
  }
  rc = pthread_create(&w->watcher, NULL, watch, w);
  if (rc != 0) {
    pthread_mutex_destroy(&w->lock);
    close_fds(w);
    free(w);
    errno = rc;
    return NULL;
  }
  return w;
}

void cli_interrupt_set_sandbox(cli_interrupt *w, sbio_sandbox *sb) {
  pthread_mutex_lock(&w->lock);
  w->sb = sb;
  w->killed = 0;
  pthread_mutex_unlock(&w->lock);
  /* A signal that arrived before the sandbox existed kills it now. */
  if (sb && atomic_load(&w->signo)) kill_current(w);
}

void cli_interrupt_set_cancel(cli_interrupt *w, sbio_cancel *cancel) {
  pthread_mutex_lock(&w->lock);
  w->cancel = cancel;
  pthread_mutex_unlock(&w->lock);
  if (cancel && atomic_load(&w->signo)) kill_current(w);
}

void cli_interrupt_request(cli_interrupt *w, int signo) {
  int expected = 0;
  atomic_compare_exchange_strong(&w->signo, &expected, signo);
  atomic_store(&w->requested, 1);
  wake(w);
}

int cli_interrupt_signal(cli_interrupt *w) {
  return atomic_load(&w->signo);
}

void cli_interrupt_stop(cli_interrupt *w) {
  if (!w) return;
  atomic_store(&w->stop, 1);
  wake(w);
  pthread_join(w->watcher, NULL);
  /* The killer took the lock for its kill; the caller detached the sandbox
   * (which waits for that lock) before stopping, so this join is short. */
  if (w->killer_started) pthread_join(w->killer, NULL);
  pthread_mutex_destroy(&w->lock);
  close_fds(w);
  free(w);
}
