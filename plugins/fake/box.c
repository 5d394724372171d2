/* SPDX-License-Identifier: MIT */
#include "box.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void box_free(fake_box *b) {
  sbio__fake_env_free(&b->env);
  sbio__fake_env_free(&b->labels);
  free(b->label_kv);
  for (size_t i = 0; i < b->n_allow; i++) free(b->allow[i]);
  free(b->allow);
  sbio__fake_memfs_free(b->fs);
  pthread_mutex_destroy(&b->mu);
  free(b);
}

static int box_copy_policy(fake_box *b, const sbio_bk_create_req *req) {
  b->egress_allow = req->egress == 1;
  if (!req->allow || req->n_allow == 0) return 0;
  b->allow = calloc(req->n_allow, sizeof *b->allow);
  if (!b->allow) return -1;
  for (size_t i = 0; i < req->n_allow; i++) {
    if (!req->allow[i]) continue;
    b->allow[b->n_allow] = strdup(req->allow[i]);
    if (!b->allow[b->n_allow]) return -1;
    b->n_allow++;
  }
  return 0;
}

static int box_copy_labels(fake_box *b, const sbio_bk_create_req *req) {
  if (sbio__fake_env_set_all(&b->labels, req->labels, req->n_labels) != 0) return -1;
  if (b->labels.n == 0) return 0;
  b->label_kv = calloc(b->labels.n, sizeof *b->label_kv);
  if (!b->label_kv) return -1;
  for (size_t i = 0; i < b->labels.n; i++) b->label_kv[i] = (sbio_bk_kv){b->labels.keys[i], b->labels.vals[i]};
  return 0;
}

fake_box *sbio__fake_box_new(const char *id, const sbio_bk_create_req *req) {
  fake_box *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  if (pthread_mutex_init(&b->mu, NULL) != 0) {
    free(b);
    return NULL;
  }
  atomic_init(&b->refs, 1);
  atomic_init(&b->killed, 0);
  snprintf(b->id, sizeof b->id, "%s", id);
  b->created_at = (int64_t)time(NULL);
  sbio__fake_env_init(&b->env);
  sbio__fake_env_init(&b->labels);
  b->fs = sbio__fake_memfs_new(FAKE_FS_CAPACITY);
  if (!b->fs || sbio__fake_env_set_all(&b->env, req->env, req->n_env) != 0 ||
      sbio__fake_env_set_all(&b->env, req->secrets, req->n_secrets) != 0 || box_copy_labels(b, req) != 0 ||
      box_copy_policy(b, req) != 0) {
    box_free(b);
    return NULL;
  }
  return b;
}

void sbio__fake_box_ref(fake_box *b) {
  atomic_fetch_add(&b->refs, 1);
}

void sbio__fake_box_unref(fake_box *b) {
  if (b && atomic_fetch_sub(&b->refs, 1) == 1) box_free(b);
}

int sbio__fake_box_is_killed(fake_box *b) {
  return atomic_load(&b->killed) != 0;
}

int sbio__fake_box_mark_killed(fake_box *b) {
  return atomic_exchange(&b->killed, 1) != 0;
}
