/* SPDX-License-Identifier: MIT */
/* What `sbio sources check` found, and its two renderings: a table with
 * details for people, one JSON document for programs (docs/cli.md). */
#ifndef SBIO_SOURCES_REPORT_H
#define SBIO_SOURCES_REPORT_H

#include "check.h"

#include <sandboxio/sandboxio.h>
#include <stddef.h>

typedef struct src_backend_report {
  const sbio_backend_info *info;
  int readable;        /* its metadata could be read: its mechanisms were judged */
  src_result *results; /* one per mechanism */
  size_t n_results;
} src_backend_report;

typedef struct src_report {
  src_backend_report *backends;
  size_t n_backends;
  size_t counts[SRC_VERDICT_COUNT];
  size_t unreadable; /* backends whose metadata could not be read */
  int exit_code;
} src_report;

/* Counts the verdicts and decides the exit code: CLI_EXIT_NOT_CONFIRMED
 * when a claim changed, moved, is gone or cannot be checked; else
 * CLI_EXIT_UNAVAILABLE when a page or a backend's metadata could not be
 * read; else 0. */
void src_report_conclude(src_report *r);

/* Print the report on stdout; return an exit code for a failure to do so
 * (out of memory), else 0. */
int src_report_print_text(const src_report *r);
int src_report_print_json(const src_report *r);

#endif
