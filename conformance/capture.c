/* SPDX-License-Identifier: MIT */
#include "capture.h"

#include "kit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kit_capture_init(kit_capture *cap, int verbose) {
  memset(cap, 0, sizeof *cap);
  pthread_mutex_init(&cap->lock, NULL);
  cap->verbose = verbose;
}

void kit_capture_free(kit_capture *cap) {
  for (size_t i = 0; i < cap->n_logs; i++) free(cap->logs[i]);
  for (size_t i = 0; i < cap->n_audit; i++) free(cap->audit[i]);
  for (size_t i = 0; i < cap->n_progress; i++) free(cap->progress[i]);
  free(cap->progress);
  free(cap->logs);
  free(cap->log_levels);
  free(cap->audit);
  pthread_mutex_destroy(&cap->lock);
}

/* Grows a (char *) array under the caller's lock. */
static void grow(char ***items, size_t n, size_t *cap, int **levels) {
  if (n < *cap) return;
  size_t ncap = *cap ? *cap * 2 : 64;
  char **p = realloc(*items, ncap * sizeof *p);
  if (!p) kit_oom();
  *items = p;
  if (levels) {
    int *l = realloc(*levels, ncap * sizeof *l);
    if (!l) kit_oom();
    *levels = l;
  }
  *cap = ncap;
}

void kit_capture_log(sbio_log_level level, const char *message, void *user) {
  kit_capture *cap = user;
  char *copy = kit_xstrdup(message ? message : "");
  pthread_mutex_lock(&cap->lock);
  grow(&cap->logs, cap->n_logs, &cap->cap_logs, &cap->log_levels);
  cap->log_levels[cap->n_logs] = (int)level;
  cap->logs[cap->n_logs++] = copy;
  if (cap->verbose) fprintf(stderr, "  library %s: %s\n", level >= SBIO_LOG_WARN ? "warning" : "info", copy);
  pthread_mutex_unlock(&cap->lock);
}

int kit_capture_audit(const char *json_line, void *user) {
  kit_capture *cap = user;
  char *copy = kit_xstrdup(json_line ? json_line : "");
  pthread_mutex_lock(&cap->lock);
  grow(&cap->audit, cap->n_audit, &cap->cap_audit, NULL);
  cap->audit[cap->n_audit++] = copy;
  pthread_mutex_unlock(&cap->lock);
  return 0;
}

/* A step is kept once for each run of reports under the same name, so a
 * long pull does not fill memory with its byte counts. */
void kit_capture_progress(const char *what, int64_t done, int64_t total, void *user) {
  (void)done, (void)total;
  kit_capture *cap = user;
  const char *text = what ? what : "";
  pthread_mutex_lock(&cap->lock);
  if (!cap->n_progress || strcmp(cap->progress[cap->n_progress - 1], text) != 0) {
    grow(&cap->progress, cap->n_progress, &cap->cap_progress, NULL);
    cap->progress[cap->n_progress++] = kit_xstrdup(text);
  }
  pthread_mutex_unlock(&cap->lock);
}

size_t kit_capture_progress_count(kit_capture *cap) {
  pthread_mutex_lock(&cap->lock);
  size_t n = cap->n_progress;
  pthread_mutex_unlock(&cap->lock);
  return n;
}

char *kit_capture_progress_at(kit_capture *cap, size_t i) {
  char *copy = NULL;
  pthread_mutex_lock(&cap->lock);
  if (i < cap->n_progress) copy = kit_xstrdup(cap->progress[i]);
  pthread_mutex_unlock(&cap->lock);
  return copy;
}

size_t kit_capture_log_count(kit_capture *cap) {
  pthread_mutex_lock(&cap->lock);
  size_t n = cap->n_logs;
  pthread_mutex_unlock(&cap->lock);
  return n;
}

size_t kit_capture_audit_count(kit_capture *cap) {
  pthread_mutex_lock(&cap->lock);
  size_t n = cap->n_audit;
  pthread_mutex_unlock(&cap->lock);
  return n;
}

char *kit_capture_log_at(kit_capture *cap, size_t i, int *level) {
  char *copy = NULL;
  pthread_mutex_lock(&cap->lock);
  if (i < cap->n_logs) {
    copy = kit_xstrdup(cap->logs[i]);
    if (level) *level = cap->log_levels[i];
  }
  pthread_mutex_unlock(&cap->lock);
  return copy;
}

char *kit_capture_audit_at(kit_capture *cap, size_t i) {
  char *copy = NULL;
  pthread_mutex_lock(&cap->lock);
  if (i < cap->n_audit) copy = kit_xstrdup(cap->audit[i]);
  pthread_mutex_unlock(&cap->lock);
  return copy;
}
