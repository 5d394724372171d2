/* SPDX-License-Identifier: MIT */
/* The state of one fake sandbox, shared by every handle to it (create's
 * and each connect's) and by the instance's list of live sandboxes, hence
 * reference-counted: the last release frees it, never kill, because an
 * exec may still be running on another thread when the kill lands.
 *
 * Threading: id, created_at, env, labels and the network policy never
 * change after create and are read without a lock; `killed` is atomic; the
 * filesystem is guarded by `mu`; `next` belongs to the instance's mutex. */
#ifndef SBIO_FAKE_BOX_H
#define SBIO_FAKE_BOX_H

#include "fenv.h"
#include "memfs.h"

#include <pthread.h>
#include <sandboxio/backend.h>
#include <stdatomic.h>
#include <stdint.h>

/* Bytes of file data one fake sandbox holds at most. */
#define FAKE_FS_CAPACITY ((size_t)256 * 1024 * 1024)

typedef struct fake_box {
  atomic_int refs;
  atomic_int killed;
  char id[32];
  int64_t created_at; /* unix seconds */
  fake_env env;       /* create env, then secrets (secrets win) */
  fake_env labels;
  sbio_bk_kv *label_kv; /* the labels as the ABI wants them */
  int egress_allow;
  char **allow;
  size_t n_allow;
  pthread_mutex_t mu;
  fake_memfs *fs;
  struct fake_box *next;
} fake_box;

/* A sandbox built from the request, holding one reference. NULL on OOM. */
fake_box *sbio__fake_box_new(const char *id, const sbio_bk_create_req *req);
void sbio__fake_box_ref(fake_box *b);
void sbio__fake_box_unref(fake_box *b);
int sbio__fake_box_is_killed(fake_box *b);
/* Marks it killed; returns 1 if it already was. */
int sbio__fake_box_mark_killed(fake_box *b);

#endif
