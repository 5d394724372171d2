/* SPDX-License-Identifier: MIT */
#include "api_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fixture_open(fixture *f, const char *extra_yaml, const char *fake_settings_yaml) {
  memset(f, 0, sizeof *f);
  sbt_tempdir(f->dir, sizeof f->dir, "api");
  snprintf(f->audit_path, sizeof f->audit_path, "%s/audit.jsonl", f->dir);
  snprintf(f->call_log, sizeof f->call_log, "%s/calls.log", f->dir);
  size_t size = 4096 + (extra_yaml ? strlen(extra_yaml) : 0) + (fake_settings_yaml ? strlen(fake_settings_yaml) : 0);
  char *yaml = malloc(size);
  if (!yaml) return -1;
  snprintf(yaml, size,
           "audit:\n  path: %s\n"
           "backend_path: [%s]\n"
           "%s"
           "backends:\n  fake:\n    settings:\n      time_scale: 0.001\n      call_log: %s\n"
           "%s",
           f->audit_path, SBIO_TEST_EXTRA_BACKENDS, extra_yaml ? extra_yaml : "", f->call_log,
           fake_settings_yaml ? fake_settings_yaml : "");
  int rc = sbt_write_file(f->dir, "config.yaml", yaml, f->config, sizeof f->config);
  free(yaml);
  if (rc != 0) return -1;
  setenv("TESTBK_DIR", f->dir, 1);
  return sbt_host_open(f->config, &f->log, &f->audit, &f->host, NULL) == SBIO_OK ? 0 : -1;
}

void fixture_close(fixture *f) {
  sbio_host_close(f->host);
  f->host = NULL;
  sbt_lines_free(&f->audit);
  sbt_lines_free(&f->log);
  sbt_rmtree(f->dir);
}
