/* SPDX-License-Identifier: MIT */
/* A host services table for SDK tests: the real monotonic clock, a log
 * that keeps every line, and a redactor that knows one secret,
 * "hostsecret". */
#ifndef SBIO_TEST_SDK_HOST_H
#define SBIO_TEST_SDK_HOST_H

#include <sandboxio/backend.h>

typedef struct test_host {
  sbio_host_services services;
  char log[8192]; /* "LEVEL:line\n"... */
  int redact_calls;
  int fail_redact; /* redact returns NULL (out-of-memory) */
} test_host;

void test_host_init(test_host *h);
/* A call whose deadline is `seconds` from now. */
void test_call_init(sbio_bk_call *call, test_host *h, double seconds);
int64_t test_now_ns(void);

#endif
