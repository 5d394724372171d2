/* SPDX-License-Identifier: MIT */
/* Helpers for the behaviour tests: a scratch directory, a config file, a
 * host opened on it, and captured audit events and log lines. */
#ifndef SBIO_API_SUPPORT_H
#define SBIO_API_SUPPORT_H

#include <sandboxio/sandboxio.h>
#include <stddef.h>

typedef struct lines {
  char **items;
  size_t n;
} lines;

typedef struct fixture {
  char dir[256];    /* scratch directory, removed at teardown */
  char config[300]; /* dir/config.yaml */
  char audit_path[300];
  char call_log[300]; /* the fake's call log */
  sbio_host *host;
  lines audit; /* events from the audit callback */
  lines log;   /* library log lines */
} fixture;

/* Creates the scratch dir, writes a config: an audit file, the fake's
 * call_log, plus `extra_yaml` (top-level keys; fake settings go in
 * `fake_settings_yaml`, indented under backends.fake.settings), opens a
 * host searching the test backends too. */
int fixture_open(fixture *f, const char *extra_yaml, const char *fake_settings_yaml);
void fixture_close(fixture *f);
/* Number of lines of a file containing `needle` (0 if the file is absent). */
size_t file_count(const char *path, const char *needle);
size_t lines_count(const lines *l, const char *needle);
/* 1 when needle occurs anywhere in the collected lines. */
int lines_contain(const lines *l, const char *needle);
void lines_free(lines *l);

#endif
