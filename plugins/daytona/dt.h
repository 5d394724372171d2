/* SPDX-License-Identifier: MIT */
/* sbio-backend-daytona: what its files share. The backend speaks
 * Daytona's REST API (control plane) and, through the proxy URL a sandbox
 * record names, the toolbox API of the daemon inside each sandbox
 * (docs/backends/daytona.md). */
#ifndef SBIO_DAYTONA_DT_H
#define SBIO_DAYTONA_DT_H

#include "settings.h"

#include <pthread.h>
#include <sandboxio/backend.h>
#include <stdatomic.h>

#define DT_MECHANISM "daytona"
#define DT_VERSION "0.1.0"
#define DT_WORKDIR_FALLBACK "/home/daytona"

/* A backend instance: settings and the host's services. Shared by every
 * thread; nothing in it changes after open except the sandbox counter. */
typedef struct dt_instance {
  dt_settings settings;
  sbio_host_services host; /* copied, only what the host's table has */
  atomic_uint next_name;   /* sandbox names: sbio-<session>-<n> */
} dt_instance;

/* A sandbox handle. `killed` lets a kill on another thread stop an exec or
 * file transfer in flight on this one. */
typedef struct dt_sandbox {
  dt_instance *inst;
  char id[128];
  char toolbox[1024]; /* toolbox base URL for this sandbox, no trailing '/' */
  char workdir[512];  /* where relative paths resolve; "" until asked */
  atomic_int killed;
  pthread_mutex_t kill_lock; /* serialises the DELETE of concurrent kills */
  int deleted;
} dt_sandbox;

/* Logs through the host (redacted there); a no-op without a logger. */
void sbio__dt_log(const dt_instance *inst, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
