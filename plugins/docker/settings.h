/* SPDX-License-Identifier: MIT */
/* The docker backend's `settings` (a JSON object from the config file).
 * Unknown keys are refused so a typo in a security knob is never ignored. */
#ifndef SBIO_DOCKER_SETTINGS_H
#define SBIO_DOCKER_SETTINGS_H

#include <sandboxio/backend.h>
#include <stdint.h>

typedef enum dk_pull { DK_PULL_MISSING = 0, DK_PULL_ALWAYS, DK_PULL_NEVER } dk_pull;

#define DK_DEFAULT_IMAGE "python:3.12-slim"
#define DK_DEFAULT_CPU 1.0
#define DK_DEFAULT_MEMORY_MB 512
#define DK_DEFAULT_PIDS_LIMIT 512
/* Docker refuses memory caps under 6 MB. */
#define DK_MIN_MEMORY_MB 6
/* Under runsc the pids cgroup counts gVisor's own threads (about 80 when
 * idle, OBSERVED), not the sandbox's processes: below this the sentry cannot
 * start threads and the sandbox dies on the first fork. */
#define DK_RUNSC_MIN_PIDS 256

typedef struct dk_settings {
  char *host;    /* unix:///path, tcp://h:p, or NULL: DOCKER_HOST, then the default socket */
  char *runtime; /* NULL: the engine's default runtime */
  char *image;   /* default image when the URI names no template */
  dk_pull pull;
  double cpu;         /* default CPU cap (cores) */
  int64_t memory_mb;  /* default memory cap; swap is set equal */
  int64_t pids_limit; /* PIDs cap of every container */
} dk_settings;

int sbio__dk_settings_parse(const char *json, dk_settings *out, sbio_bk_error *err);
void sbio__dk_settings_free(dk_settings *s);
const char *sbio__dk_pull_name(dk_pull p);

#endif
