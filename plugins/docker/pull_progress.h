/* SPDX-License-Identifier: MIT */
/* A pull's progress, summed over its layers. The engine's pull stream
 * speaks per layer ("Downloading 36 kB of 1 MB" for layer abc); the host's
 * progress service wants one step with done/total bytes. Pure: fed the
 * stream's status lines, it calls `sink` whenever a number changed. */
#ifndef SBIO_DOCKER_PULL_PROGRESS_H
#define SBIO_DOCKER_PULL_PROGRESS_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

/* An image has at most 127 layers; past this the total is unknown. */
#define DK_PULL_MAX_LAYERS 256

typedef struct dk_layer {
  char id[72];
  int64_t done;  /* bytes downloaded, the highest seen (a retry restarts at 0) */
  int64_t total; /* compressed size, -1 until the engine says */
  int counted;   /* 1: it is downloaded (0: already present, nothing to fetch) */
} dk_layer;

typedef void (*dk_progress_sink)(void *user, int64_t done, int64_t total);

typedef struct dk_pull_progress {
  dk_progress_sink sink;
  void *user;
  dk_layer layers[DK_PULL_MAX_LAYERS];
  size_t n_layers;
  int too_many;
  int64_t sent_done, sent_total; /* what the sink last heard */
} dk_pull_progress;

/* Starts the step: the sink hears 0 of unknown (-1). */
void sbio__dk_pull_progress_init(dk_pull_progress *pp, dk_progress_sink sink, void *user);
/* One line of the stream: its status, its id ("" when none) and its
 * progressDetail current/total (NULL when absent). */
void sbio__dk_pull_progress_line(dk_pull_progress *pp, const char *status, const char *id, const cJSON *current,
                                 const cJSON *total);
/* The pull succeeded: the sink hears done == total (0 of 0 when every
 * layer was present). */
void sbio__dk_pull_progress_finish(dk_pull_progress *pp);

#endif
