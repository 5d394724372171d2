/* SPDX-License-Identifier: MIT */
/* The clock deadlines are measured on. */
#include "sdk_internal.h"

#include <time.h>

int64_t sbio__sdk_now_ns(const sbio_bk_call *call) {
  if (call && call->host && call->host->monotonic_ns) return call->host->monotonic_ns(call->host->host_data);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
