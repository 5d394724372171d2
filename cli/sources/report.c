/* SPDX-License-Identifier: MIT */
/* Counting verdicts and the exit code; see report.h. */
#include "report.h"

#include "exitcode.h"

void src_report_conclude(src_report *r) {
  int drifted = 0, unread = 0;
  for (int v = 0; v < SRC_VERDICT_COUNT; v++) r->counts[v] = 0;
  r->unreadable = 0;
  for (size_t i = 0; i < r->n_backends; i++) {
    const src_backend_report *br = &r->backends[i];
    if (!br->readable) {
      r->unreadable++;
      unread = 1;
      continue;
    }
    if (br->n_results == 0) r->counts[SRC_NO_SOURCE]++; /* no mechanism at all: a claim of nothing */
    for (size_t m = 0; m < br->n_results; m++) {
      src_verdict v = br->results[m].verdict;
      r->counts[v]++;
      if (v == SRC_CHANGED || v == SRC_MOVED || v == SRC_GONE || v == SRC_UNCHECKED) drifted = 1;
      if (v == SRC_UNREACHABLE) unread = 1;
    }
  }
  r->exit_code = drifted ? CLI_EXIT_NOT_CONFIRMED : unread ? CLI_EXIT_UNAVAILABLE : CLI_EXIT_OK;
}
