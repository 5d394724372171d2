/* SPDX-License-Identifier: MIT */
#include "sbio_test.h"

#include "freshness.h"

#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lines_lock = PTHREAD_MUTEX_INITIALIZER;

static void *must(void *p) {
  if (!p) {
    fprintf(stderr, "test support: out of memory\n");
    abort();
  }
  return p;
}

void sbt_lines_add(sbt_lines *l, const char *text) {
  char *copy = must(strdup(text));
  pthread_mutex_lock(&lines_lock);
  char **p = must(realloc(l->items, (l->n + 1) * sizeof *p));
  l->items = p;
  l->items[l->n++] = copy;
  pthread_mutex_unlock(&lines_lock);
}

void sbt_lines_free(sbt_lines *l) {
  pthread_mutex_lock(&lines_lock);
  for (size_t i = 0; i < l->n; i++) free(l->items[i]);
  free(l->items);
  l->items = NULL;
  l->n = 0;
  pthread_mutex_unlock(&lines_lock);
}

size_t sbt_lines_count(const sbt_lines *l, const char *needle) {
  size_t n = 0;
  pthread_mutex_lock(&lines_lock);
  for (size_t i = 0; i < l->n; i++) n += strstr(l->items[i], needle) != NULL;
  pthread_mutex_unlock(&lines_lock);
  return n;
}

int sbt_lines_contain(const sbt_lines *l, const char *needle) {
  return sbt_lines_count(l, needle) > 0;
}

static void on_log(sbio_log_level level, const char *message, void *user) {
  char line[4200];
  snprintf(line, sizeof line, "%d %s", (int)level, message);
  sbt_lines_add(user, line);
}

static int on_audit(const char *json, void *user) {
  sbt_lines_add(user, json);
  return 0;
}

static void on_warning(sbio_log_level level, const char *message, void *user) {
  if (level < SBIO_LOG_WARN || sbio_test_is_freshness_warning(message)) return;
  sbt_lines_add(user, message);
}

void sbt_capture_warnings(sbio_host_options *o, sbt_lines *log) {
  sbio_host_options_set_log_callback(o, on_warning, log);
}

char *sbt_lines_join(const sbt_lines *l) {
  pthread_mutex_lock(&lines_lock);
  size_t size = 1;
  for (size_t i = 0; i < l->n; i++) size += strlen(l->items[i]) + 1;
  char *all = malloc(size), *at = all;
  if (all) {
    for (size_t i = 0; i < l->n; i++) at += sprintf(at, "%s\n", l->items[i]);
    *at = '\0';
  }
  pthread_mutex_unlock(&lines_lock);
  return must(all);
}

void sbt_capture(sbio_host_options *o, sbt_lines *log, sbt_lines *audit) {
  if (log) sbio_host_options_set_log_callback(o, on_log, log);
  if (audit) sbio_host_options_add_audit_callback(o, on_audit, audit);
}

size_t sbt_file_count(const char *path, const char *needle) {
  FILE *fp = fopen(path, "r");
  if (!fp) return 0;
  char line[16384];
  size_t n = 0;
  while (fgets(line, sizeof line, fp))
    if (strstr(line, needle)) n++;
  fclose(fp);
  return n;
}

void sbt_tempdir(char *dir, size_t size, const char *tag) {
  int len = snprintf(dir, size, "/tmp/sbio-%s-XXXXXX", tag);
  if (len < 0 || (size_t)len >= size || !mkdtemp(dir)) {
    fprintf(stderr, "test support: cannot make a temporary directory for %s\n", tag);
    abort();
  }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

void sbt_rmtree(const char *dir) {
  if (dir && dir[0]) nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int sbt_write_file(const char *dir, const char *name, const char *text, char *path, size_t path_size) {
  char buf[4096];
  if (!path) path = buf, path_size = sizeof buf;
  int len = snprintf(path, path_size, "%s/%s", dir, name);
  if (len < 0 || (size_t)len >= path_size) return -1;
  FILE *fp = fopen(path, "w");
  if (!fp) return -1;
  size_t n = strlen(text);
  int ok = fwrite(text, 1, n, fp) == n;
  return (fclose(fp) == 0 && ok) ? 0 : -1;
}

sbio_code sbt_host_open(const char *config, sbt_lines *log, sbt_lines *audit, sbio_host **host, sbio_error *err) {
  sbio_host_options *o = must(sbio_host_options_new());
  if (config) sbio_host_options_set_config_file(o, config);
  sbt_capture(o, log, audit);
  sbio_error *own = err ? NULL : must(sbio_error_new());
  sbio_code rc = sbio_host_open(o, host, err ? err : own);
  if (rc != SBIO_OK)
    fprintf(stderr, "host open on %s failed: %s\n", config ? config : "(no config)",
            sbio_error_message(err ? err : own));
  sbio_error_free(own);
  sbio_host_options_free(o);
  return rc;
}

double sbt_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
