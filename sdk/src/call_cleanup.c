/* SPDX-License-Identifier: MIT */
/* A call for clean-up work: its own deadline, never cancelled. */
#include "sdk_internal.h"

#include <string.h>

static int not_cancelled(const sbio_bk_call *call) {
  (void)call;
  return 0;
}

void sbio_sdk_call_cleanup(sbio_bk_call *out, const sbio_bk_call *from, double seconds) {
  memset(out, 0, sizeof *out);
  out->size = sizeof *out;
  out->host = from ? from->host : NULL;
  out->host_call_data = from ? from->host_call_data : NULL;
  out->cancelled = not_cancelled;
  int64_t now = sbio__sdk_now_ns(from);
  double span = seconds > 0 ? seconds * 1e9 : 0;
  out->deadline_ns = span >= 9e18 - (double)now ? INT64_MAX : now + (int64_t)span;
}
