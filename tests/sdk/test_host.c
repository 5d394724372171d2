/* SPDX-License-Identifier: MIT */
#include "test_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t test_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now(void *data) {
  (void)data;
  return test_now_ns();
}

static void log_line(void *data, int level, const char *message) {
  test_host *h = data;
  size_t used = strlen(h->log);
  snprintf(h->log + used, sizeof h->log - used, "%d:%s\n", level, message);
}

static char *redact(void *data, const char *text) {
  test_host *h = data;
  h->redact_calls++;
  if (h->fail_redact) return NULL;
  char *out = malloc(strlen(text) + 1), *o = out;
  if (!out) return NULL;
  for (const char *p = text; *p;) {
    if (!strncmp(p, "hostsecret", 10)) {
      memcpy(o, "***", 3);
      o += 3;
      p += 10;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

static void free_string(void *data, char *text) {
  (void)data;
  free(text);
}

void test_host_init(test_host *h) {
  memset(h, 0, sizeof *h);
  h->services.size = sizeof h->services;
  h->services.host_data = h;
  h->services.log = log_line;
  h->services.monotonic_ns = now;
  h->services.redact = redact;
  h->services.free_string = free_string;
}

static int not_cancelled(const sbio_bk_call *call) {
  (void)call;
  return 0;
}

void test_call_init(sbio_bk_call *call, test_host *h, double seconds) {
  memset(call, 0, sizeof *call);
  call->size = sizeof *call;
  call->host = &h->services;
  call->cancelled = not_cancelled;
  call->deadline_ns = test_now_ns() + (int64_t)(seconds * 1e9);
}
