/* SPDX-License-Identifier: MIT */
/* The cancellation token of one or more execs (sbio_cancel in
 * sandboxio.h): one atomic flag, set from any thread, read by the call
 * context the backend polls (host.c). */
#ifndef SBIO_CANCEL_H
#define SBIO_CANCEL_H

#include <sandboxio/sandboxio.h>
#include <stdatomic.h>

struct sbio_cancel {
  atomic_int requested;
};

#endif
