/* SPDX-License-Identifier: MIT */
/* A fake backend instance (one per open): its settings, the host services
 * and the sandboxes it created that are still alive. Sandbox ids
 * ("fake-0001", ...) count per instance, and connect only finds sandboxes
 * of the same instance: a fake sandbox lives only in memory.
 *
 * Reference-counted: open holds one reference and each sandbox handle one,
 * so a handle released after close still finds its instance. */
#ifndef SBIO_FAKE_INSTANCE_H
#define SBIO_FAKE_INSTANCE_H

#include "box.h"
#include "settings.h"

#include <pthread.h>
#include <sandboxio/backend.h>
#include <stdatomic.h>

typedef struct fake_instance {
  atomic_int refs;
  sbio_host_services host; /* a copy; host.size says how much of it is valid */
  fake_settings settings;  /* read-only after open */
  pthread_mutex_t mu;      /* guards `live` and `next_id` */
  fake_box *live;          /* each holds a reference for the list */
  unsigned next_id;
} fake_instance;

int sbio__fake_instance_open(const sbio_host_services *host, const char *settings_json, fake_instance **out,
                             sbio_bk_error *err);
/* Forgets every live sandbox and drops open's reference. */
void sbio__fake_instance_close(fake_instance *inst);
void sbio__fake_instance_ref(fake_instance *inst);
void sbio__fake_instance_unref(fake_instance *inst);

/* Appends a line to the call log, if one is configured. */
void sbio__fake_instance_log(const fake_instance *inst, const char *op, const char *id, const char *detail);

/* The next id, "fake-0001" onwards. */
void sbio__fake_instance_next_id(fake_instance *inst, char *buf, size_t size);
/* The live list takes a reference of its own. */
void sbio__fake_instance_add(fake_instance *inst, fake_box *box);
/* A live sandbox by id with a reference for the caller, or NULL. */
fake_box *sbio__fake_instance_find(fake_instance *inst, const char *id);
/* Unlinks a live sandbox by id (box NULL) or by pointer and hands the
 * caller the list's reference; NULL when it was not live. */
fake_box *sbio__fake_instance_take(fake_instance *inst, fake_box *box, const char *id);
/* Every live sandbox, each with a reference for the caller. 0 ok, -1 OOM. */
int sbio__fake_instance_snapshot(fake_instance *inst, fake_box ***boxes, size_t *n);

#endif
