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

void sbio_sdk_call_cleanup_bounded(sbio_bk_call *out, const sbio_bk_call *from, double seconds) {
  sbio_sdk_call_cleanup(out, from, seconds);
  if (!from) return;
  const int64_t margin = (int64_t)(SBIO_SDK_CLEANUP_MARGIN_S * 1e9), floor_ns = 250000000;
  int64_t until = from->deadline_ns > INT64_MAX - margin ? INT64_MAX : from->deadline_ns + margin;
  int64_t now = sbio__sdk_now_ns(from);
  if (until < now + floor_ns) until = now + floor_ns;
  if (until < out->deadline_ns) out->deadline_ns = until;
}
