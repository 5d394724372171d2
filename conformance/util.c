/* SPDX-License-Identifier: MIT */
/* Small helpers every part of the kit uses: clock, memory, randomness. */
#include "kit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double kit_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void kit_sleep(double seconds) {
  if (seconds <= 0) return;
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

void kit_die(const char *what) {
  fflush(stdout);
  fprintf(stderr, "sbio-conformance: %s\n", what);
  _exit(KIT_EXIT_INTERNAL);
}

void kit_oom(void) {
  kit_die("out of memory");
}

void *kit_xmalloc(size_t size) {
  void *p = calloc(1, size ? size : 1);
  if (!p) kit_oom();
  return p;
}

char *kit_xstrdup(const char *s) {
  char *p = strdup(s ? s : "");
  if (!p) kit_oom();
  return p;
}

void kit_random_hex(char *out, size_t bytes) {
  unsigned char raw[64];
  if (bytes > sizeof raw) bytes = sizeof raw;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  ssize_t got = fd >= 0 ? read(fd, raw, bytes) : -1;
  if (fd >= 0) close(fd);
  if (got != (ssize_t)bytes) {
    /* Uniqueness, not secrecy, is what matters here (run labels). */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long seed =
        (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20) ^ ((unsigned long long)getpid() << 40);
    for (size_t i = 0; i < bytes; i++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      raw[i] = (unsigned char)(seed >> 56);
    }
  }
  for (size_t i = 0; i < bytes; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
  out[2 * bytes] = '\0';
}
