/* SPDX-License-Identifier: MIT */
/* Virtual time. The fake's sleeps, script delays, hangs and simulated slow
 * creates are measured in virtual seconds; each costs `time_scale` real
 * seconds, so a test can exercise a 300 s timeout in 3 s. The wait itself
 * is real and interruptible: it runs in slices of at most 10 ms and between
 * slices checks, in this order, the sandbox's killed flag, the end of the
 * sleep, the call's deadline (the host's monotonic clock) and the caller's
 * cancellation. */
#ifndef SBIO_FAKE_VCLOCK_H
#define SBIO_FAKE_VCLOCK_H

#include <sandboxio/backend.h>
#include <stdatomic.h>

typedef enum fake_wake {
  FAKE_WAKE_DONE = 0,  /* slept the full time */
  FAKE_WAKE_DEADLINE,  /* the call's deadline passed first */
  FAKE_WAKE_CANCELLED, /* call->cancelled said stop */
  FAKE_WAKE_KILLED     /* the sandbox was killed */
} fake_wake;

/* Sleeps `virtual_s` virtual seconds (INFINITY, or anything beyond what the
 * clock can represent, waits for the deadline). `killed` may be NULL. */
fake_wake sbio__fake_vsleep(const sbio_bk_call *call, double time_scale, double virtual_s, atomic_int *killed);
/* The same checks without sleeping: DONE means "carry on". */
fake_wake sbio__fake_vpoll(const sbio_bk_call *call, atomic_int *killed);
/* Seconds from `start_ns` to the call's deadline, for messages. */
double sbio__fake_deadline_span_s(const sbio_bk_call *call, int64_t start_ns);
/* Fills err for an exec its caller cancelled (the process is gone, the
 * sandbox lives on) and returns SBIO_E_CANCELLED. */
int sbio__fake_cancelled_error(sbio_bk_error *err);

#endif
