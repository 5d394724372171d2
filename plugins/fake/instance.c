/* SPDX-License-Identifier: MIT */
#include "instance.h"

#include "calllog.h"

#include <stdlib.h>
#include <string.h>

int sbio__fake_instance_open(const sbio_host_services *host, const char *settings_json, fake_instance **out,
                             sbio_bk_error *err) {
  *out = NULL;
  fake_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory opening the fake backend");
  int rc = sbio__fake_settings_parse(settings_json, &inst->settings, err);
  if (rc != SBIO_OK) {
    free(inst);
    return rc;
  }
  if (pthread_mutex_init(&inst->mu, NULL) != 0) {
    sbio__fake_settings_free(&inst->settings);
    free(inst);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "could not create a mutex for the fake backend");
  }
  if (host) {
    /* Copy only what the host's table has; the rest stays NULL. */
    size_t n = host->size < sizeof inst->host ? host->size : sizeof inst->host;
    memcpy(&inst->host, host, n);
    inst->host.size = (uint32_t)n;
  }
  atomic_init(&inst->refs, 1);
  inst->next_id = 1;
  *out = inst;
  return SBIO_OK;
}

void sbio__fake_instance_ref(fake_instance *inst) {
  atomic_fetch_add(&inst->refs, 1);
}

void sbio__fake_instance_unref(fake_instance *inst) {
  if (!inst || atomic_fetch_sub(&inst->refs, 1) != 1) return;
  /* Normally empty by now; close already dropped the list's references. */
  for (fake_box *b = inst->live, *next; b; b = next) {
    next = b->next;
    sbio__fake_box_unref(b);
  }
  sbio__fake_settings_free(&inst->settings);
  pthread_mutex_destroy(&inst->mu);
  free(inst);
}

void sbio__fake_instance_close(fake_instance *inst) {
  if (!inst) return;
  pthread_mutex_lock(&inst->mu);
  fake_box *list = inst->live;
  inst->live = NULL;
  pthread_mutex_unlock(&inst->mu);
  for (fake_box *b = list, *next; b; b = next) {
    next = b->next;
    sbio__fake_box_mark_killed(b); /* an exec still running elsewhere ends */
    sbio__fake_box_unref(b);
  }
  sbio__fake_instance_unref(inst);
}

void sbio__fake_instance_log(const fake_instance *inst, const char *op, const char *id, const char *detail) {
  sbio__fake_calllog(inst->settings.call_log, inst->host.size ? &inst->host : NULL, op, id, detail);
}

void sbio__fake_instance_next_id(fake_instance *inst, char *buf, size_t size) {
  pthread_mutex_lock(&inst->mu);
  unsigned n = inst->next_id++;
  pthread_mutex_unlock(&inst->mu);
  snprintf(buf, size, "fake-%04u", n);
}

void sbio__fake_instance_add(fake_instance *inst, fake_box *box) {
  sbio__fake_box_ref(box);
  pthread_mutex_lock(&inst->mu);
  box->next = inst->live;
  inst->live = box;
  pthread_mutex_unlock(&inst->mu);
}

fake_box *sbio__fake_instance_find(fake_instance *inst, const char *id) {
  pthread_mutex_lock(&inst->mu);
  fake_box *b = inst->live;
  while (b && strcmp(b->id, id) != 0) b = b->next;
  if (b) sbio__fake_box_ref(b);
  pthread_mutex_unlock(&inst->mu);
  return b;
}

fake_box *sbio__fake_instance_take(fake_instance *inst, fake_box *box, const char *id) {
  pthread_mutex_lock(&inst->mu);
  fake_box **link = &inst->live;
  while (*link && !(box ? *link == box : strcmp((*link)->id, id) == 0)) link = &(*link)->next;
  fake_box *b = *link;
  if (b) {
    *link = b->next;
    b->next = NULL;
  }
  pthread_mutex_unlock(&inst->mu);
  return b;
}

int sbio__fake_instance_snapshot(fake_instance *inst, fake_box ***boxes, size_t *n) {
  *boxes = NULL;
  *n = 0;
  pthread_mutex_lock(&inst->mu);
  size_t count = 0;
  for (fake_box *b = inst->live; b; b = b->next) count++;
  fake_box **arr = count ? calloc(count, sizeof *arr) : NULL;
  if (count && !arr) {
    pthread_mutex_unlock(&inst->mu);
    return -1;
  }
  size_t i = 0;
  /* The list is newest first; report oldest first. */
  for (fake_box *b = inst->live; b; b = b->next) {
    sbio__fake_box_ref(b);
    arr[count - 1 - i++] = b;
  }
  pthread_mutex_unlock(&inst->mu);
  *boxes = arr;
  *n = count;
  return 0;
}
