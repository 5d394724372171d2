/* SPDX-License-Identifier: MIT */
/* Test support for the E2B backend: a private emulator per test program
 * (tests/e2b/emulator), its admin endpoints, and a host whose
 * configuration points the e2b backend at it. */
#ifndef SBIO_E2B_SUPPORT_H
#define SBIO_E2B_SUPPORT_H

#include <sandboxio/sandboxio.h>
#include <stddef.h>
#include <sys/types.h>

#include "sbio_test.h" /* lines, files and hosts: tests/support */

typedef struct emu {
  pid_t pid;
  char dir[256];
  char api_url[64];
  char sandbox_url[64];
} emu;

typedef struct fx {
  emu emu;
  char config[300];
  char audit_path[300];
  sbio_host *host;
  sbt_lines audit;
  sbt_lines log;
} fx;

/* The key the tests plant in E2B_API_KEY (and the emulator accepts). */
extern const char *const E2B_TEST_KEY;

/* Starts an emulator (envd_version NULL: its default) and waits for its
 * ports. 0 ok. */
int emu_start(emu *e, const char *envd_version);
void emu_stop(emu *e);
/* An admin request; returns the malloc'd answer body (NULL on failure). */
char *emu_admin(const emu *e, const char *method, const char *path, const char *body);
/* Adds a fault rule (JSON object). */
void emu_fault(const emu *e, const char *rule_json);
void emu_config(const emu *e, const char *config_json);
/* Live sandboxes in the emulator; -1 when it cannot be asked. */
int emu_live(const emu *e);
/* Requests the emulator saw whose method matches and whose path contains
 * path_part. */
int emu_count(const emu *e, const char *method, const char *path_part);
/* Requests the emulator judged against the spec (answered 4xx as E2B
 * would for a malformed request). */
int emu_violations(const emu *e);
void emu_clear_log(const emu *e);

/* Starts an emulator, writes a config pointing e2b at it (settings_extra
 * is YAML indented 6 spaces under backends.e2b.settings; top_extra goes
 * at the top level), plants the key, opens a host. 0 ok. */
int fx_open(fx *f, const char *envd_version, const char *settings_extra, const char *top_extra);
/* Closes the host, checks nothing leaked in the emulator, stops it. */
void fx_close(fx *f);
/* Opens another host on an explicit config text (the emulator of f). */
sbio_host *fx_host(fx *f, const char *name, const char *config_text, sbt_lines *log);

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

#endif
