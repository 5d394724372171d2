/* SPDX-License-Identifier: MIT */
/* cbk sandboxes: the provider-side state shared by every handle to it, and
 * the listing list_managed shows. */
#include "cbk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cbk_kv_get(const cbk_kv *kv, const char *key) {
  for (size_t i = kv->n; i-- > 0;)
    if (strcmp(kv->keys[i], key) == 0) return kv->values[i];
  return NULL;
}

int cbk_kv_set(cbk_kv *kv, const char *key, const char *value) {
  char **k = realloc(kv->keys, (kv->n + 1) * sizeof *k);
  if (!k) return -1;
  kv->keys = k;
  char **v = realloc(kv->values, (kv->n + 1) * sizeof *v);
  if (!v) return -1;
  kv->values = v;
  k[kv->n] = strdup(key);
  v[kv->n] = strdup(value ? value : "");
  if (!k[kv->n] || !v[kv->n]) {
    free(k[kv->n]);
    free(v[kv->n]);
    return -1;
  }
  kv->n++;
  return 0;
}

void cbk_kv_free(cbk_kv *kv) {
  for (size_t i = 0; i < kv->n; i++) {
    free(kv->keys[i]);
    free(kv->values[i]);
  }
  free(kv->keys);
  free(kv->values);
  memset(kv, 0, sizeof *kv);
}

static void box_free(cbk_box *box) {
  cbk_kv_free(&box->env);
  cbk_kv_free(&box->secrets);
  cbk_kv_free(&box->labels);
  for (size_t i = 0; i < box->n_allow; i++) free(box->allow[i]);
  free(box->allow);
  cbk_fs_free(&box->fs);
  pthread_mutex_destroy(&box->lock);
  free(box);
}

static int copy_kvs(cbk_kv *to, const sbio_bk_kv *from, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (from[i].key && cbk_kv_set(to, from[i].key, from[i].value) != 0) return -1;
  return 0;
}

cbk_box *cbk_box_new(cbk_instance *inst, const sbio_bk_create_req *req) {
  cbk_box *box = calloc(1, sizeof *box);
  if (!box) return NULL;
  pthread_mutex_init(&box->lock, NULL);
  atomic_init(&box->killed, 0);
  int bad = cbk_fs_init(&box->fs) || copy_kvs(&box->env, req->env, req->n_env) ||
            copy_kvs(&box->env, req->secrets, req->n_secrets) ||
            copy_kvs(&box->secrets, req->secrets, req->n_secrets) || copy_kvs(&box->labels, req->labels, req->n_labels);
  box->egress_allow = req->egress == 1;
  if (!bad && req->n_allow) {
    box->allow = calloc(req->n_allow, sizeof *box->allow);
    bad = !box->allow;
    for (size_t i = 0; !bad && i < req->n_allow; i++) bad = !(box->allow[box->n_allow++] = strdup(req->allow[i]));
  }
  if (bad) {
    box_free(box);
    return NULL;
  }
  pthread_mutex_lock(&inst->lock);
  if (inst->n == inst->cap) {
    size_t ncap = inst->cap ? inst->cap * 2 : 16;
    cbk_box **p = realloc(inst->boxes, ncap * sizeof *p);
    if (!p) {
      pthread_mutex_unlock(&inst->lock);
      box_free(box);
      return NULL;
    }
    inst->boxes = p;
    inst->cap = ncap;
  }
  snprintf(box->id, sizeof box->id, "cbk-%04u", ++inst->next_id);
  box->refs = 2; /* the listing's and the caller's */
  inst->boxes[inst->n++] = box;
  pthread_mutex_unlock(&inst->lock);
  return box;
}

void cbk_box_unref(cbk_instance *inst, cbk_box *box) {
  pthread_mutex_lock(&inst->lock);
  int last = --box->refs == 0;
  pthread_mutex_unlock(&inst->lock);
  if (last) box_free(box);
}

cbk_box *cbk_box_find(cbk_instance *inst, const char *id) {
  cbk_box *found = NULL;
  pthread_mutex_lock(&inst->lock);
  for (size_t i = 0; i < inst->n && !found; i++)
    if (strcmp(inst->boxes[i]->id, id) == 0 && !atomic_load(&inst->boxes[i]->killed)) found = inst->boxes[i];
  if (found) found->refs++;
  pthread_mutex_unlock(&inst->lock);
  return found;
}

void cbk_box_unlist(cbk_instance *inst, cbk_box *box) {
  int listed = 0;
  pthread_mutex_lock(&inst->lock);
  for (size_t i = 0; i < inst->n; i++)
    if (inst->boxes[i] == box) {
      inst->boxes[i] = inst->boxes[--inst->n];
      listed = 1;
      break;
    }
  pthread_mutex_unlock(&inst->lock);
  if (listed) cbk_box_unref(inst, box);
}

/* Appends text to buf (bounded), escaping '"' and '\\' when `escape`. */
static void append(char *buf, size_t size, size_t *o, const char *text, int escape) {
  for (const char *p = text; *p; p++) {
    int esc = escape && (*p == '"' || *p == '\\');
    if (*o + (size_t)esc + 1 >= size) break;
    if (esc) buf[(*o)++] = '\\';
    buf[(*o)++] = *p;
  }
  buf[*o] = '\0';
}

void cbk_leak(const cbk_box *box, char *buf, size_t size) {
  size_t o = 0;
  if (!size) return;
  buf[0] = '\0';
  append(buf, size, &o, "{\"env\":{", 0);
  for (size_t i = 0; i < box->secrets.n; i++) {
    append(buf, size, &o, i ? ",\"" : "\"", 0);
    append(buf, size, &o, box->secrets.keys[i], 1);
    append(buf, size, &o, "\":\"", 0);
    append(buf, size, &o, box->secrets.values[i], 1);
    append(buf, size, &o, "\"", 0);
  }
  append(buf, size, &o, "}}", 0);
}
