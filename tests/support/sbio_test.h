/* SPDX-License-Identifier: MIT */
/* The fixtures every test area needs, once: captured log lines and audit
 * events, scratch directories, config files, and a host opened on a config
 * with both captured. Linked as the static library sbio_test_support
 * (tests/support/CMakeLists.txt); the service start/stop scripts are
 * service.sh next to it.
 *
 * Failures that leave a test nothing to test (out of memory, no temporary
 * directory) abort; everything else returns a status the test asserts. */
#ifndef SBIO_TEST_SUPPORT_H
#define SBIO_TEST_SUPPORT_H

#include <sandboxio/sandboxio.h>
#include <stddef.h>

/* ---------------------------------------------------------------- lines */
/* Lines collected from callbacks, which may run on any thread: adding and
 * counting take one lock shared by every sbt_lines. */
typedef struct sbt_lines {
  char **items;
  size_t n;
} sbt_lines;

void sbt_lines_add(sbt_lines *l, const char *text);
void sbt_lines_free(sbt_lines *l);
/* How many lines contain `needle`. */
size_t sbt_lines_count(const sbt_lines *l, const char *needle);
int sbt_lines_contain(const sbt_lines *l, const char *needle);

/* Wires the host's log callback into `log` ("LEVEL message" per line, the
 * level as its number) and an audit callback into `audit` (one JSON event
 * per line). Either may be NULL. */
void sbt_capture(sbio_host_options *o, sbt_lines *log, sbt_lines *audit);
/* Only warnings and errors, as their bare message, and never the warning
 * that a provider source is due for re-verification (freshness.h: it
 * depends on the day the suite runs): for tests that check what else was
 * said, or that nothing was. */
void sbt_capture_warnings(sbio_host_options *o, sbt_lines *log);
/* Every line, each followed by '\n' ("" for none); the caller frees it.
 * For failure messages: assert_string_equal(all, "") shows what was said. */
char *sbt_lines_join(const sbt_lines *l);

/* ---------------------------------------------------------------- files */
/* Lines of the file at `path` containing `needle` (0 when it is absent). */
size_t sbt_file_count(const char *path, const char *needle);
/* A fresh directory /tmp/sbio-TAG-XXXXXX into dir. */
void sbt_tempdir(char *dir, size_t size, const char *tag);
/* Removes a directory and everything below it (links are not followed). */
void sbt_rmtree(const char *dir);
/* Writes `text` to dir/name, the path into path (when not NULL). 0 or -1. */
int sbt_write_file(const char *dir, const char *name, const char *text, char *path, size_t path_size);

/* ----------------------------------------------------------------- host */
/* Opens a host on the config file `config` (the build's backends are found
 * as an application finds them), capturing into log and audit (either may
 * be NULL). Returns the status; err gets the error when not NULL, and a
 * failure is also printed on stderr, so a test's log shows why. */
sbio_code sbt_host_open(const char *config, sbt_lines *log, sbt_lines *audit, sbio_host **host, sbio_error *err);

/* Seconds on the monotonic clock. */
double sbt_now(void);

#endif
