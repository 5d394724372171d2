/* SPDX-License-Identifier: MIT */
/* The signal watcher of `sbio run`; see interrupt.h for why it exists.
 *
 * Two threads: the watcher only ever waits for signals, and a killer
 * thread, started on the first signal, calls sbio_sandbox_kill(). The
 * split matters when a kill hangs (a provider not answering): the watcher
 * is still there to take the second signal and exit at once. */
#include "interrupt.h"

#include "exitcode.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* The exit codes documented in exitcode.h are 128 + the signal number. */
_Static_assert(CLI_EXIT_SIGNAL_BASE + SIGINT == CLI_EXIT_SIGINT, "SIGINT exit code");
_Static_assert(CLI_EXIT_SIGNAL_BASE + SIGTERM == CLI_EXIT_SIGTERM, "SIGTERM exit code");
_Static_assert(CLI_EXIT_SIGNAL_BASE + SIGPIPE == CLI_EXIT_SIGPIPE, "SIGPIPE exit code");

struct cli_interrupt {
  pthread_t watcher;
  pthread_t killer;
  int killer_started;   /* touched by the watcher thread only, then by stop() */
  pthread_mutex_t lock; /* guards sb and killed; held during a kill */
  sbio_sandbox *sb;
  int killed;           /* the current sandbox was killed */
  atomic_int signo;     /* first signal, 0 if none */
  atomic_int requested; /* cli_interrupt_request() not yet acted on */
  atomic_int stop;
};

static void kill_current(struct cli_interrupt *w) {
  pthread_mutex_lock(&w->lock);
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
  /* Best effort: a closed stderr must not change what happens next. */
  ssize_t ignored = write(STDERR_FILENO, text, len);
  (void)ignored;
}

static void *watch(void *arg) {
  struct cli_interrupt *w = arg;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  /* Polling at 50 ms bounds both how late a stop is noticed and how late a
   * requested kill starts; neither needs to be faster. */
  const struct timespec tick = {0, 50 * 1000 * 1000};
  int first = 0; /* the first signal taken here */
  while (!atomic_load(&w->stop)) {
    int sig = sigtimedwait(&set, NULL, &tick);
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
    } else if (atomic_exchange(&w->requested, 0)) {
      start_killer(w);
    }
  }
  return NULL;
}

cli_interrupt *cli_interrupt_start(void) {
  struct cli_interrupt *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int rc = pthread_sigmask(SIG_BLOCK, &set, NULL);
  if (rc == 0) rc = pthread_mutex_init(&w->lock, NULL);
  if (rc != 0) {
    free(w);
    errno = rc;
    return NULL;
  }
  rc = pthread_create(&w->watcher, NULL, watch, w);
  if (rc != 0) {
    pthread_mutex_destroy(&w->lock);
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

void cli_interrupt_request(cli_interrupt *w, int signo) {
  int expected = 0;
  atomic_compare_exchange_strong(&w->signo, &expected, signo);
  atomic_store(&w->requested, 1);
}

int cli_interrupt_signal(cli_interrupt *w) {
  return atomic_load(&w->signo);
}

void cli_interrupt_stop(cli_interrupt *w) {
  if (!w) return;
  atomic_store(&w->stop, 1);
  pthread_join(w->watcher, NULL);
  /* The killer took the lock for its kill; the caller detached the sandbox
   * (which waits for that lock) before stopping, so this join is short. */
  if (w->killer_started) pthread_join(w->killer, NULL);
  pthread_mutex_destroy(&w->lock);
  free(w);
}
