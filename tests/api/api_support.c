/* SPDX-License-Identifier: MIT */
#include "api_support.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void lines_add(lines *l, const char *text) {
  char **p = realloc(l->items, (l->n + 1) * sizeof *p);
  if (!p) abort();
  l->items = p;
  l->items[l->n++] = strdup(text);
}

void lines_free(lines *l) {
  for (size_t i = 0; i < l->n; i++) free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->n = 0;
}

size_t lines_count(const lines *l, const char *needle) {
  size_t n = 0;
  for (size_t i = 0; i < l->n; i++)
    if (strstr(l->items[i], needle)) n++;
  return n;
}

int lines_contain(const lines *l, const char *needle) {
  return lines_count(l, needle) > 0;
}

static int on_audit(const char *json, void *user) {
  lines_add(user, json);
  return 0;
}

static void on_log(sbio_log_level level, const char *message, void *user) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%d %s", (int)level, message);
  lines_add(user, buf);
}

size_t file_count(const char *path, const char *needle) {
  FILE *fp = fopen(path, "r");
  if (!fp) return 0;
  char line[8192];
  size_t n = 0;
  while (fgets(line, sizeof line, fp))
    if (strstr(line, needle)) n++;
  fclose(fp);
  return n;
}

int fixture_open(fixture *f, const char *extra_yaml, const char *fake_settings_yaml) {
  memset(f, 0, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "/tmp/sbio-api-XXXXXX");
  if (!mkdtemp(f->dir)) return -1;
  snprintf(f->config, sizeof f->config, "%s/config.yaml", f->dir);
  snprintf(f->audit_path, sizeof f->audit_path, "%s/audit.jsonl", f->dir);
  snprintf(f->call_log, sizeof f->call_log, "%s/calls.log", f->dir);
  FILE *fp = fopen(f->config, "w");
  if (!fp) return -1;
  fprintf(fp, "audit:\n  path: %s\n", f->audit_path);
  fprintf(fp, "backend_path: [%s]\n", SBIO_TEST_EXTRA_BACKENDS);
  if (extra_yaml) fputs(extra_yaml, fp);
  fprintf(fp, "backends:\n  fake:\n    settings:\n      time_scale: 0.001\n      call_log: %s\n", f->call_log);
  if (fake_settings_yaml) fputs(fake_settings_yaml, fp);
  fclose(fp);
  setenv("TESTBK_DIR", f->dir, 1);
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_config_file(o, f->config);
  sbio_host_options_add_audit_callback(o, on_audit, &f->audit);
  sbio_host_options_set_log_callback(o, on_log, &f->log);
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_host_open(o, &f->host, err);
  if (rc != SBIO_OK) fprintf(stderr, "host open failed: %s\n", sbio_error_message(err));
  sbio_error_free(err);
  sbio_host_options_free(o);
  return rc == SBIO_OK ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void fixture_close(fixture *f) {
  sbio_host_close(f->host);
  f->host = NULL;
  lines_free(&f->audit);
  lines_free(&f->log);
  nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
