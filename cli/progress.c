/* SPDX-License-Identifier: MIT */
/* The progress bar. It lives on one line of stderr: each redraw returns to
 * the line's start, writes the bar and erases what is left of the old one;
 * clearing erases the line, so the next output starts on a clean line and
 * no trace of the bar stays in the scrollback. */
#include "progress.h"

#include "output.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define REDRAW_NS (100 * 1000 * 1000LL) /* at most ten redraws a second */
#define BAR_CELLS 24
#define LINE_MAX_BYTES 512
#define ERASE_LINE "\r\033[K"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int drawn;            /* a bar is on the screen (guarded by lock) */
static int64_t last_draw_ns; /* guarded by lock */

int cli_progress_enabled(void) {
  static int decided = -1;
  if (decided < 0) {
    const char *no_color = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    decided = isatty(STDERR_FILENO) && (no_color == NULL || no_color[0] == '\0') &&
              (term == NULL || strcmp(term, "dumb") != 0);
  }
  return decided;
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The terminal's width; 80 when it does not say. */
static int columns(void) {
  struct winsize ws;
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20) return ws.ws_col;
  return 80;
}

/* "12.3 MB" (decimal units, as registries and docker report sizes). */
static void human_bytes(int64_t n, char *out, size_t size) {
  static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
  double v = (double)n;
  size_t u = 0;
  while (v >= 1000.0 && u + 1 < sizeof units / sizeof *units) {
    v /= 1000.0;
    u++;
  }
  if (u == 0)
    snprintf(out, size, "%lld B", (long long)n);
  else
    snprintf(out, size, "%.1f %s", v, units[u]);
}

/* Builds the line: "pull img:tag [#######.........]  45%  1.2 MB/2.6 MB",
 * or without bar and percentage while the total is unknown. The name is
 * shortened so the line never wraps (a wrapped line cannot be erased). */
static size_t format_line(char *line, size_t size, const char *what, int64_t done, int64_t total, int width) {
  char d[32], t[32], tail[128];
  human_bytes(done, d, sizeof d);
  if (total > 0) {
    int pct = (int)(done * 100 / total);
    int fill = (int)(done * BAR_CELLS / total);
    char bar[BAR_CELLS + 1];
    for (int i = 0; i < BAR_CELLS; i++) bar[i] = i < fill ? '#' : '.';
    bar[BAR_CELLS] = '\0';
    human_bytes(total, t, sizeof t);
    snprintf(tail, sizeof tail, " [%s] %3d%%  %s/%s", bar, pct, d, t);
  } else {
    snprintf(tail, sizeof tail, "  %s", d);
  }
  int room = width - 1 - (int)strlen(tail); /* the last column stays free: no auto-wrap */
  if (room < 8) room = 8;
  int n = (int)strlen(what) <= room ? snprintf(line, size, "%s%s", what, tail)
                                    : snprintf(line, size, "%.*s...%s", room - 3, what, tail);
  return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* Keeps only printable ASCII of a name that came from a backend: a control
 * character would move the cursor. */
static void printable(const char *in, char *out, size_t size) {
  size_t o = 0;
  for (; *in && o + 1 < size; in++) out[o++] = (*in >= 0x20 && *in < 0x7f) ? *in : '?';
  out[o] = '\0';
}

static void erase_locked(void) {
  if (!drawn) return;
  (void)cli_write_all(STDERR_FILENO, ERASE_LINE, sizeof ERASE_LINE - 1);
  drawn = 0;
}

void cli_progress_update(const char *what, int64_t done, int64_t total, void *user) {
  (void)user;
  if (!cli_progress_enabled() || !what) return;
  pthread_mutex_lock(&lock);
  if (total >= 0 && done >= total) {
    erase_locked(); /* the step is over: leave no trace */
  } else {
    int64_t now = now_ns();
    if (!drawn || now - last_draw_ns >= REDRAW_NS) {
      char name[256], line[LINE_MAX_BYTES + 8];
      printable(what, name, sizeof name);
      line[0] = '\r';
      size_t n = 1 + format_line(line + 1, LINE_MAX_BYTES, name, done, total, columns());
      memcpy(line + n, "\033[K", 3);
      if (cli_write_all(STDERR_FILENO, line, n + 3) == 0) drawn = 1;
      last_draw_ns = now;
    }
  }
  pthread_mutex_unlock(&lock);
}

void cli_progress_clear(void) {
  if (!cli_progress_enabled()) return;
  pthread_mutex_lock(&lock);
  erase_locked();
  pthread_mutex_unlock(&lock);
}
