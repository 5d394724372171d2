/* SPDX-License-Identifier: MIT */
/* Summing a pull's layers; see pull_progress.h. What the sink hears:
 *   done   the bytes downloaded over all layers: per layer the highest
 *          count seen, so a retried download never makes it go back;
 *          extraction re-reads the same bytes and is not counted again;
 *   total  the sum of the layers' compressed sizes, or -1 while a layer
 *          that still has to be downloaded has not said its size (the
 *          engine fetches three at a time: a partial sum would make a
 *          progress bar jump back). Layers already present count nothing.
 * Only changes are passed on, done never goes down and never passes a
 * known total. */
#include "pull_progress.h"

#include <stdio.h>
#include <string.h>

/* A byte count from the stream, or -1 when it is not a plausible one (a
 * double beyond int64_t would be undefined to convert). */
static int64_t bytes_of(const cJSON *n) {
  if (!cJSON_IsNumber(n) || !(n->valuedouble >= 0) || n->valuedouble > 1e15) return -1;
  return (int64_t)n->valuedouble;
}

static void send(dk_pull_progress *pp, int64_t done, int64_t total) {
  if (done < pp->sent_done) done = pp->sent_done;
  if (total >= 0 && done > total) done = total;
  if (done == pp->sent_done && total == pp->sent_total) return;
  pp->sent_done = done;
  pp->sent_total = total;
  if (pp->sink) pp->sink(pp->user, done, total);
}

static void aggregate(dk_pull_progress *pp) {
  int64_t done = 0, total = 0;
  int known = !pp->too_many;
  for (size_t i = 0; i < pp->n_layers; i++) {
    const dk_layer *l = &pp->layers[i];
    if (!l->counted) continue;
    done += l->done;
    if (l->total < 0)
      known = 0;
    else
      total += l->total;
  }
  send(pp, done, known ? total : -1);
}

static dk_layer *find_layer(dk_pull_progress *pp, const char *id) {
  for (size_t i = 0; i < pp->n_layers; i++)
    if (!strcmp(pp->layers[i].id, id)) return &pp->layers[i];
  if (pp->n_layers == DK_PULL_MAX_LAYERS || strlen(id) >= sizeof pp->layers[0].id) {
    pp->too_many = 1;
    return NULL;
  }
  dk_layer *l = &pp->layers[pp->n_layers++];
  snprintf(l->id, sizeof l->id, "%s", id);
  l->total = -1;
  l->counted = 1;
  return l;
}

/* Lines about the image as a whole ("Pulling from x", "Digest: ...",
 * "Status: ...") carry the tag or nothing as id; these are about a layer. */
static int is_layer_status(const char *status) {
  static const char *const layer_statuses[] = {"Pulling fs layer",   "Waiting",           "Downloading",
                                               "Verifying Checksum", "Download complete", "Already exists",
                                               "Extracting",         "Pull complete",     NULL};
  for (size_t i = 0; layer_statuses[i]; i++)
    if (!strcmp(status, layer_statuses[i])) return 1;
  return !strncmp(status, "Retrying", 8);
}

void sbio__dk_pull_progress_init(dk_pull_progress *pp, dk_progress_sink sink, void *user) {
  memset(pp, 0, sizeof *pp);
  pp->sink = sink;
  pp->user = user;
  send(pp, 0, -1);
}

void sbio__dk_pull_progress_line(dk_pull_progress *pp, const char *status, const char *id, const cJSON *current,
                                 const cJSON *total) {
  if (!status || !id || !id[0] || !is_layer_status(status)) return;
  dk_layer *l = find_layer(pp, id);
  if (!l) {
    aggregate(pp); /* the total just became unknown */
    return;
  }
  if (!strcmp(status, "Already exists")) {
    l->counted = 0;
  } else if (!strcmp(status, "Downloading")) {
    int64_t cur = bytes_of(current), tot = bytes_of(total);
    if (tot > 0) l->total = tot;
    if (cur > l->done) l->done = cur;
    if (l->total >= 0 && l->done > l->total) l->done = l->total;
  } else if (!strcmp(status, "Download complete") || !strcmp(status, "Extracting") ||
             !strcmp(status, "Pull complete")) {
    /* Downloaded whole. A layer too small for a "Downloading" line never
     * said its size: it counts as what was seen of it (often 0 of 0). */
    if (l->total < 0) l->total = l->done;
    l->done = l->total;
  }
  aggregate(pp);
}

void sbio__dk_pull_progress_finish(dk_pull_progress *pp) {
  for (size_t i = 0; i < pp->n_layers; i++) {
    if (pp->layers[i].total < 0) pp->layers[i].total = pp->layers[i].done;
    pp->layers[i].done = pp->layers[i].total;
  }
  pp->too_many = 0; /* what could not be tracked is done too: end on what was */
  aggregate(pp);
  if (pp->sent_total != pp->sent_done) send(pp, pp->sent_done, pp->sent_done);
}
