/* SPDX-License-Identifier: MIT */
/* A step of an operation with less time than the operation: the parent's
 * cancellation, an earlier deadline. The host's cancelled() may depend on
 * the identity of the call it made (the core's does), so the sub-call asks
 * the parent itself rather than copying its function and data. */
#include "sdk_internal.h"

#include <string.h>

static int parent_cancelled(const sbio_bk_call *call) {
  const sbio_sdk_subcall *sub = (const sbio_sdk_subcall *)call;
  const sbio_bk_call *parent = sub->parent;
  return parent && parent->cancelled && parent->cancelled(parent);
}

/* "This exec was cancelled" (ABI 1.3) passes through as well. */
static int parent_exec_cancelled(const sbio_bk_call *call) {
  const sbio_sdk_subcall *sub = (const sbio_sdk_subcall *)call;
  return sub->parent && sbio_bk_exec_cancelled(sub->parent);
}

void sbio_sdk_call_narrow(sbio_sdk_subcall *sub, const sbio_bk_call *parent, double seconds) {
  memset(sub, 0, sizeof *sub);
  sub->parent = parent;
  sub->call.size = sizeof sub->call;
  sub->call.host = parent ? parent->host : NULL;
  sub->call.host_call_data = parent ? parent->host_call_data : NULL;
  sub->call.cancelled = parent_cancelled;
  sub->call.exec_cancelled = parent_exec_cancelled;
  int64_t now = sbio__sdk_now_ns(parent);
  double span = seconds > 0 ? seconds * 1e9 : 0;
  int64_t until = span >= 9e18 - (double)now ? INT64_MAX : now + (int64_t)span;
  sub->call.deadline_ns = parent && parent->deadline_ns < until ? parent->deadline_ns : until;
}
