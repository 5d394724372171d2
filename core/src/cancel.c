/* SPDX-License-Identifier: MIT */
/* sbio_cancel: a one-way flag. Requesting is a single atomic store so it
 * may come from any thread, a signal handler included; what it does to an
 * exec is decided where the exec runs (exec.c, host.c). */
#include "cancel.h"

#include <stdlib.h>

sbio_cancel *sbio_cancel_new(void) {
  sbio_cancel *c = malloc(sizeof *c);
  if (c) atomic_init(&c->requested, 0);
  return c;
}

void sbio_cancel_free(sbio_cancel *c) {
  free(c);
}

void sbio_cancel_request(sbio_cancel *c) {
  if (c) atomic_store(&c->requested, 1);
}

int sbio_cancel_requested(const sbio_cancel *c) {
  return c ? atomic_load(&((sbio_cancel *)c)->requested) : 0;
}
