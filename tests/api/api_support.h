/* SPDX-License-Identifier: MIT */
/* The behaviour tests' fixture, on the shared test-support library
 * (tests/support/sbio_test.h): a scratch directory, a config with an audit
 * file, the fake's call log and the test backends' directory, and a host
 * opened on it with its audit events and log lines captured. */
#ifndef SBIO_API_SUPPORT_H
#define SBIO_API_SUPPORT_H

#include "sbio_test.h"

typedef struct fixture {
  char dir[256];    /* scratch directory, removed at teardown */
  char config[300]; /* dir/config.yaml */
  char audit_path[300];
  char call_log[300]; /* the fake's call log */
  sbio_host *host;
  sbt_lines audit; /* events from the audit callback */
  sbt_lines log;   /* library log lines */
} fixture;

/* Creates the scratch dir, writes a config: an audit file, the fake's
 * call_log, plus `extra_yaml` (top-level keys; fake settings go in
 * `fake_settings_yaml`, indented under backends.fake.settings), opens a
 * host searching the test backends too. */
int fixture_open(fixture *f, const char *extra_yaml, const char *fake_settings_yaml);
void fixture_close(fixture *f);

#endif
