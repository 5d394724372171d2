/* SPDX-License-Identifier: MIT */
/* sbio-backend-daytona: what its files share. The backend speaks
 * Daytona's REST API (control plane) and, through the proxy URL a sandbox
 * record names, the toolbox API of the daemon inside each sandbox
 * (docs/backends/daytona.md), both through the SDK's HTTP client. */
#ifndef SBIO_DAYTONA_DT_H
#define SBIO_DAYTONA_DT_H

#include "settings.h"

#include <pthread.h>
#include <sandboxio/backend.h>
#include <sandboxio/sdk.h>
#include <stdatomic.h>

#define DT_MECHANISM "daytona"
#define DT_VERSION "0.1.0"
#define DT_WORKDIR_FALLBACK "/home/daytona"
#define DT_API_BODY_LIMIT ((size_t)64 << 20)      /* a page of sandbox records */
#define DT_TOOLBOX_BODY_LIMIT ((size_t)256 << 20) /* a command's combined output, a directory listing */

/* A backend instance: settings, the host's services, the secrets every
 * message is cleaned of, the SDK client of the API. Shared by every
 * thread; nothing in it changes after open except the sandbox counter
 * (and the secrets set, which is thread-safe). */
typedef struct dt_instance {
  dt_settings settings;
  sbio_host_services host;   /* copied, only what the host's table has */
  sbio_sdk_secrets *secrets; /* the API key, as read for each operation */
  sbio_sdk_http *api;        /* the API base (settings.api_url) */
  atomic_uint next_name;     /* sandbox names: sbio-<session>-<n> */
} dt_instance;

/* A sandbox handle. `killed` lets a kill on another thread stop an exec or
 * file transfer in flight on this one. */
typedef struct dt_sandbox {
  dt_instance *inst;
  char id[128];
  sbio_sdk_http *toolbox; /* the sandbox's toolbox ({proxy}/{id}) */
  char workdir[512];      /* where relative paths resolve; "" until asked */
  atomic_int killed;
  pthread_mutex_t kill_lock; /* serialises the DELETE of concurrent kills */
  int deleted;
} dt_sandbox;

/* Logs through the SDK (the backend's secrets removed) and the host. */
#define sbio__dt_log(inst, level, ...) sbio_sdk_log(&(inst)->host, (inst)->secrets, level, __VA_ARGS__)

/* The SDK client options of both the API and a toolbox: timeouts,
 * retries, secrets, the headers Daytona's SDK sends. */
sbio_sdk_http_options sbio__dt_client_options(const dt_instance *inst);

#endif
