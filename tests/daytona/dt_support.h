/* SPDX-License-Identifier: MIT */
/* Helpers for the Daytona backend tests: the emulator the ctest fixture
 * started (its URL is in $SBIO_DT_EMU_DIR/url), a host whose config points
 * the daytona backend at it, an API key of the test's own (the emulator
 * keeps one organisation per key, so tests running in parallel never see
 * each other), and the emulator's record of every request it received.
 * Lines, scratch directories and the host come from tests/support. */
#ifndef SBIO_DT_SUPPORT_H
#define SBIO_DT_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <sandboxio/sandboxio.h>

#include "sbio_test.h"

typedef struct dtf {
  char key[96];  /* this test's Daytona API key */
  char url[256]; /* emulator base URL, no trailing '/' */
  char dir[256]; /* scratch directory */
  char config[320];
  sbio_host *host;
  sbt_lines log;   /* library log lines "LEVEL message" */
  sbt_lines audit; /* audit events, one JSON line each */
} dtf;

/* The emulator's URL; fails the test when the fixture is not running. */
const char *dt_emulator_url(void);

/* Prepares `f` for test `name`: a fresh key (exported as DAYTONA_API_KEY),
 * a config whose daytona entry has `backend_yaml` (keys such as
 * expect_tier, indented by 4 spaces, or NULL) and settings that are the
 * fast test defaults plus `settings_yaml` (indented by 6, or NULL), plus
 * `top_yaml` (top-level keys, or NULL), and a host opened on it. */
void dtf_open(dtf *f, const char *name, const char *backend_yaml, const char *settings_yaml, const char *top_yaml);
/* Writes the config only (no host), for tests that open hosts themselves. */
void dtf_prepare(dtf *f, const char *name, const char *backend_yaml, const char *settings_yaml, const char *top_yaml);
/* Opens the host on the prepared config; returns its status (err filled). */
sbio_code dtf_host(dtf *f, sbio_error *err);
/* Closes the host and asserts the emulator holds no live sandbox of this
 * key: every test leaves nothing behind. */
void dtf_close(dtf *f);

/* POST /_emulator/org for this key; `json` holds "settings" and/or
 * "faults" members, e.g. "{\"settings\":{\"startDelay\":0.1}}". */
void dtf_org(dtf *f, const char *json);
/* Every request the emulator recorded for this key (caller frees). */
cJSON *dtf_requests(dtf *f);
/* Requests the emulator refused before any organisation saw them (a bad
 * key) whose Authorization header holds this test's key, even spoilt. */
size_t dtf_rejected(dtf *f);
/* How many recorded requests match METHOD and a path prefix
 * (surface "api" or "toolbox"). */
size_t dtf_count(cJSON *reqs, const char *surface, const char *method, const char *path_prefix);
/* The n-th (0-based) recorded request matching, or NULL. */
const cJSON *dtf_find(cJSON *reqs, const char *surface, const char *method, const char *path_prefix, size_t n);
/* Live sandboxes of this key in the emulator. */
size_t dtf_alive(dtf *f);

/* A raw call to the emulator's API with this key (path relative to /api);
 * returns the HTTP status, *body the answer (malloc'd) when body != NULL. */
long dtf_api(dtf *f, const char *method, const char *path, const char *json, char **body);
/* Creates a sandbox directly through the emulator's API (not through
 * sandboxio) with this labels JSON object; returns its id (malloc'd). */
char *dtf_raw_sandbox(dtf *f, const char *labels_json);

/* Creates a sandbox through the public API (asserting success). */
sbio_sandbox *dtf_create(dtf *f, const char *uri, sbio_create_options *opts);
/* Runs a shell script and returns the result (asserting no error). */
sbio_exec_result *dtf_sh(sbio_sandbox *sb, const char *script);

#endif
