/* SPDX-License-Identifier: MIT */
/* Everything the library says during a run: log lines (already redacted by
 * the library), audit events (one JSON line each) and progress steps. The secret, audit and
 * isolation cases search them; nothing is printed unless --verbose. */
#ifndef SBIO_KIT_CAPTURE_H
#define SBIO_KIT_CAPTURE_H

#include <pthread.h>
#include <sandboxio/sandboxio.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kit_capture {
  pthread_mutex_t lock;
  int *log_levels;
  char **logs;
  size_t n_logs, cap_logs;
  char **audit;
  size_t n_audit, cap_audit;
  char **progress; /* each step's text, once per step name change */
  size_t n_progress, cap_progress;
  int verbose; /* echo log lines to stderr */
} kit_capture;

void kit_capture_init(kit_capture *cap, int verbose);
void kit_capture_free(kit_capture *cap);

/* Callbacks for sbio_host_options; `user` is the kit_capture. */
void kit_capture_log(sbio_log_level level, const char *message, void *user);
int kit_capture_audit(const char *json_line, void *user);
void kit_capture_progress(const char *what, int64_t done, int64_t total, void *user);

size_t kit_capture_log_count(kit_capture *cap);
size_t kit_capture_audit_count(kit_capture *cap);
size_t kit_capture_progress_count(kit_capture *cap);
/* Copies (free them) of entry i, or NULL past the end. */
char *kit_capture_log_at(kit_capture *cap, size_t i, int *level);
char *kit_capture_audit_at(kit_capture *cap, size_t i);
char *kit_capture_progress_at(kit_capture *cap, size_t i);

#endif
