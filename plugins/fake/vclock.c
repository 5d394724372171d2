/* SPDX-License-Identifier: MIT */
#include "vclock.h"

#include <math.h>
#include <time.h>

#define SLICE_NS 10000000LL /* 10 ms: bounds how late a kill or deadline is noticed */

static int call_cancelled(const sbio_bk_call *call) {
  return call->cancelled && call->cancelled(call);
}

fake_wake sbio__fake_vpoll(const sbio_bk_call *call, atomic_int *killed) {
  if (killed && atomic_load(killed)) return FAKE_WAKE_KILLED;
  if (sbio_bk_now_ns(call) >= call->deadline_ns) return FAKE_WAKE_DEADLINE;
  if (call_cancelled(call)) return FAKE_WAKE_CANCELLED;
  return FAKE_WAKE_DONE;
}

fake_wake sbio__fake_vsleep(const sbio_bk_call *call, double time_scale, double virtual_s, atomic_int *killed) {
  int64_t start = sbio_bk_now_ns(call);
  double real_ns = virtual_s * time_scale * 1e9;
  /* A NaN or negative duration is a zero sleep; anything beyond ~30 years
   * is "forever", i.e. until the deadline. */
  int forever = !(real_ns < 1e18);
  int64_t end = forever ? INT64_MAX : start + (real_ns > 0 ? (int64_t)real_ns : 0);
  for (;;) {
    if (killed && atomic_load(killed)) return FAKE_WAKE_KILLED;
    int64_t now = sbio_bk_now_ns(call);
    if (now >= end && end <= call->deadline_ns) return FAKE_WAKE_DONE;
    if (now >= call->deadline_ns) return FAKE_WAKE_DEADLINE;
    if (call_cancelled(call)) return FAKE_WAKE_CANCELLED;
    int64_t wake = end < call->deadline_ns ? end : call->deadline_ns;
    int64_t slice = wake - now;
    if (slice > SLICE_NS) slice = SLICE_NS;
    if (slice < 1) slice = 1;
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)slice};
    nanosleep(&ts, NULL);
  }
}

double sbio__fake_deadline_span_s(const sbio_bk_call *call, int64_t start_ns) {
  double s = (double)(call->deadline_ns - start_ns) / 1e9;
  /* Round to 10 ms so "0.5 s" does not print as "0.499998 s". */
  return s > 0 ? round(s * 100.0) / 100.0 : 0.0;
}

int sbio__fake_cancelled_error(sbio_bk_error *err) {
  return sbio_bk_error_set(err, SBIO_E_CANCELLED, NULL,
                           "command was cancelled by its caller and killed; the sandbox is still usable");
}
