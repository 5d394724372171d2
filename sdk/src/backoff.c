/* SPDX-License-Identifier: MIT */
/* Jittered exponential backoff. The jitter comes from a per-thread
 * generator (no lock, no shared state), seeded from the clock and the
 * thread, so two processes started together still spread out. */
#include <sandboxio/sdk/retry.h>

#include <stdint.h>
#include <time.h>

static _Thread_local uint64_t jitter_state;

/* xorshift64*: plenty for spreading retries; not for anything secret. */
static uint64_t next_random(void) {
  if (!jitter_state) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    jitter_state = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ (uint64_t)(uintptr_t)&jitter_state;
    jitter_state ^= (uint64_t)time(NULL) << 32;
    if (!jitter_state) jitter_state = 0x9e3779b97f4a7c15u;
  }
  jitter_state ^= jitter_state >> 12;
  jitter_state ^= jitter_state << 25;
  jitter_state ^= jitter_state >> 27;
  return jitter_state * 0x2545f4914f6cdd1du;
}

long sbio_sdk_backoff_ms(long initial_ms, long max_ms, int retry) {
  if (initial_ms <= 0) return 0;
  if (max_ms < initial_ms) max_ms = initial_ms;
  long wait = initial_ms;
  for (int i = 1; i < retry && wait < max_ms; i++) wait = wait > max_ms / 2 ? max_ms : wait * 2;
  if (wait > max_ms) wait = max_ms;
  /* A factor in [0.8, 1.2], in steps of 1/1000. */
  long permille = 800 + (long)(next_random() % 401);
  long spread = (long)((double)wait * (double)permille / 1000.0);
  return spread > max_ms ? max_ms : spread;
}
