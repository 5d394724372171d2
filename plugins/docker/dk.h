/* SPDX-License-Identifier: MIT */
/* sbio-backend-docker: the types every file of the backend shares.
 *
 * One dk_instance per configured backend (shared by every thread of the
 * host), one dk_sandbox per container handle. Files by concern:
 *   settings.c   the `settings` JSON            endpoint.c  where the engine is
 *   api.c        the SDK's HTTP client, set up  engine.c    version, runtimes
 *                for the engine; API paths
 *   errmap.c     engine answers -> catalogue    pull.c      image pulls
 *   create.c     hardened create                sandbox.c   connect/kill/info
 *   demux.c      8-byte frames                  exec*.c     exec and its deadline kill
 *   attach.c     an attached process's streams  run.c       the one-shot run (ABI 1.5)
 *   spec.c       the hardened container spec    files*.c    archive and fs ops
 *   managed.c    list/kill by label             plugin.c    the ABI table
 * Every request goes through the SDK's client (<sandboxio/sdk/http.h>):
 * pooled keep-alive connections, deadlines, cancellation, retries of
 * idempotent requests; the exec attach is an SDK upgraded connection. */
#ifndef SBIO_DOCKER_DK_H
#define SBIO_DOCKER_DK_H

#include "endpoint.h"
#include "settings.h"

#include <pthread.h>
#include <sandboxio/backend.h>
#include <sandboxio/sdk.h>
#include <stdatomic.h>

#define DK_NAME "docker"
#define DK_WORK_DIR "/work"
#define DK_LABEL_MANAGED "io.sandboxio.managed"
#define DK_LABEL_SESSION "io.sandboxio.session"
#define DK_LABEL_TIMEOUT "io.sandboxio.timeout"
#define DK_LABEL_META "io.sandboxio.meta."
#define DK_REAP_HINT "`sbio reap --kill --backend docker` removes what is left"
/* A container's name: "sbio-<session>-<16 random hex>" (docker's names are
 * [a-zA-Z0-9][a-zA-Z0-9_.-]+); with the NUL, at most this long. */
#define DK_CONTAINER_NAME_MAX 64

/* The API versions this backend speaks. Requests use the 1.41 subset; the
 * changes up to DK_API_COMPAT_MAX do not touch it (docs/backends/docker.md). */
#define DK_API_MIN "1.25"
#define DK_API_PREFERRED "1.41"
#define DK_API_COMPAT_MAX "1.47"

typedef struct dk_instance {
  const sbio_host_services *host;
  dk_settings settings;
  dk_endpoint endpoint;
  sbio_sdk_http *http; /* the engine's API: every request, pooled connections */

  pthread_mutex_t lock; /* guards the lazily learnt engine facts below */
  int negotiated;
  char api[16];             /* e.g. "1.41" */
  char default_runtime[64]; /* from /info, "" until asked */
  char *runtimes_json;      /* /info Runtimes, for name -> mechanism */
} dk_instance;

typedef struct dk_sandbox {
  dk_instance *inst;
  char id[72];        /* full container id */
  char short_id[16];  /* first 12 hex: what callers see */
  char mechanism[64]; /* observed at create/connect */
  atomic_int killed;  /* set by kill; an exec in flight ends */
} dk_sandbox;

/* How many characters of `id` a message shows: 12 of a 64-hex id (what
 * callers see), a name whole. */
int sbio__dk_shown(const char *id);

/* Host clock (the deadline's clock). */
int64_t sbio__dk_now(const dk_instance *inst);

/* create.c */
int sbio__dk_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                       sbio_bk_sandbox_info *info, sbio_bk_error *err);
/* Refusals that need no engine: allow-lists, egress allow, disk, GPU. */
int sbio__dk_check_request(const dk_instance *inst, const sbio_bk_create_req *req, sbio_bk_error *err);

/* The steps of a create that the one-shot run (run.c) shares:
 * - prepare: every check that needs no container (the request, the image
 *   reference, the engine's API version), and the runtime to ask for;
 * - container_name: a name of the container's own, unique per create;
 * - create_container: POST /containers/create?name=NAME, pulling as the
 *   policy says. A 201 whose answer has no usable id (not JSON, no Id, an
 *   Id that is not 64 hex digits) made a container all the same, and a
 *   create whose answer was lost (a broken connection, the deadline or a
 *   cancellation while it was out, a 409 for its own name) may have: it is
 *   removed by its name, and *left says whether that was not confirmed
 *   (the error then says so and hints at `sbio reap`);
 * - start_container: `program` names the main process's program for the
 *   message when the image lacks it;
 * - observe_mechanism: the runtime the container really got (Podman's
 *   too), refused when it is not the configured one; need_running: it
 *   must also be running (a create's `sleep` that died at once);
 * - discard: removes the container by force (after a failure, past the
 *   deadline, once cancelled), within `seconds` of its own, never
 *   cancelled, and as `bound` says: DK_DISCARD_DEADLINE_MARGIN never more
 *   than the SDK's margin past call's deadline, DK_DISCARD_FROM_NOW the
 *   whole `seconds` from now (the one-shot run's removal within the core's
 *   teardown time). 1 when it is gone, else 0 with the failure appended to
 *   err's message (err may be NULL; an empty err gets the failure). */
int sbio__dk_prepare(dk_instance *inst, const sbio_bk_create_req *req, const sbio_bk_call *call, const char **image,
                     char *runtime, size_t size, sbio_bk_error *err);
int sbio__dk_container_name(const sbio_bk_create_req *req, char *name, size_t size, sbio_bk_error *err);
int sbio__dk_create_container(dk_instance *inst, const char *body, const char *name, const char *image,
                              const sbio_bk_call *call, char *id, size_t id_size, int *left, sbio_bk_error *err);
int sbio__dk_start_container(dk_instance *inst, const char *id, const char *program, const sbio_bk_call *call,
                             sbio_bk_error *err);
int sbio__dk_observe_mechanism(dk_instance *inst, const char *id, const char *runtime, int need_running,
                               const sbio_bk_call *call, char *mechanism, size_t size, sbio_bk_error *err);
typedef enum dk_discard_bound { DK_DISCARD_DEADLINE_MARGIN, DK_DISCARD_FROM_NOW } dk_discard_bound;
int sbio__dk_discard(dk_instance *inst, const char *id, const sbio_bk_call *call, double seconds,
                     dk_discard_bound bound, sbio_bk_error *err);

/* run.c: the one-shot run (ABI 1.5): the command as the container's main
 * process. */
int sbio__dk_op_run(void *instance, const sbio_bk_run_req *req, const sbio_bk_call *call, sbio_bk_sandbox_info *info,
                    int *exit_code, int *removed, sbio_bk_error *err);

/* spec.c: the hardened container spec (HostConfig, Env, Labels, Image,
 * WorkingDir) every container gets; the caller adds Entrypoint and Cmd.
 * NULL when out of memory. */
struct cJSON;
struct cJSON *sbio__dk_container_spec(const dk_instance *inst, const sbio_bk_create_req *req, const char *image,
                                      const char *runtime);

/* sandbox.c */
int sbio__dk_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                        sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__dk_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err);
void sbio__dk_op_release(void *sandbox);
dk_sandbox *sbio__dk_sandbox_new(dk_instance *inst, const char *id, const char *mechanism);
/* Removes a container (force, with its anonymous volumes); 404 is success.
 * `id` may also be the container's name. */
int sbio__dk_remove_container(dk_instance *inst, const char *id, const sbio_bk_call *call, int *removed,
                              sbio_bk_error *err);

/* 1 when the container exists (running or not), 0 when gone, -1 unknown. */
int sbio__dk_container_exists(dk_sandbox *sb, const sbio_bk_call *call);
/* The managed container behind `id` (running or not): its full id, or
 * SBIO_E_CONNECT when it does not exist or is not managed by sandboxio. */
int sbio__dk_inspect_managed(dk_instance *inst, const char *id, const sbio_bk_call *call, char *full_id, size_t id_size,
                             sbio_bk_error *err);

/* exec.c */
int sbio__dk_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                     sbio_bk_error *err);

/* files_rw.c, files_dir.c */
int sbio__dk_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                          sbio_bk_error *err);
int sbio__dk_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                           sbio_bk_error *err);
int sbio__dk_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                          void *user, sbio_bk_error *err);
int sbio__dk_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__dk_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err);

/* managed.c */
int sbio__dk_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                             sbio_bk_managed_fn entry, void *user, sbio_bk_error *err);
int sbio__dk_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed, sbio_bk_error *err);

#endif
