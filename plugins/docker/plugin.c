/* SPDX-License-Identifier: MIT */
/* sbio-backend-docker: the operations table, its metadata note, and the
 * instance (open/close/plan). See docs/backends/docker.md. */
#include "dk.h"

#include "api.h"
#include "engine.h"

#include <stdlib.h>
#include <string.h>

int64_t sbio__dk_now(const dk_instance *inst) {
  return inst->host->monotonic_ns(inst->host->host_data);
}

static void instance_free(dk_instance *inst) {
  sbio_sdk_http_free(inst->http);
  sbio__dk_settings_free(&inst->settings);
  free(inst->runtimes_json);
  pthread_mutex_destroy(&inst->lock);
  free(inst);
}

static int docker_open(const sbio_host_services *host, const char *settings_json, void **instance, sbio_bk_error *err) {
  if (!host || !host->monotonic_ns || !instance)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker open: missing argument");
  *instance = NULL;
  dk_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  inst->host = host;
  if (pthread_mutex_init(&inst->lock, NULL) != 0) {
    free(inst);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "docker open: no mutex");
  }
  int rc = sbio__dk_settings_parse(settings_json, &inst->settings, err);
  if (rc == SBIO_OK) rc = sbio__dk_endpoint_resolve(inst->settings.host, &inst->endpoint, err);
  if (rc == SBIO_OK) rc = sbio__dk_client_new(inst, err);
  if (rc != SBIO_OK) {
    instance_free(inst);
    return rc;
  }
  if (inst->settings.runtime && !strcmp(inst->settings.runtime, "runsc") &&
      inst->settings.pids_limit < DK_RUNSC_MIN_PIDS)
    sbio_sdk_log(host, NULL, SBIO_BK_LOG_WARN,
                 "docker: pids_limit %lld under runsc counts gVisor's own threads (about 80 when idle); below %d the "
                 "sandbox can die on its first fork",
                 (long long)inst->settings.pids_limit, DK_RUNSC_MIN_PIDS);
  *instance = inst;
  return SBIO_OK;
}

/* No libcurl global cleanup: libcurl's global state belongs to the SDK,
 * which initialises it once per process (in sbio_sdk_http_new), and nobody
 * cleans it up, because the core and other backends in the same process
 * keep using libcurl. */
static void docker_close(void *instance) {
  if (instance) instance_free(instance);
}

#define PLAN_S 15.0 /* the longest plan waits for the engine */

/* No provisioning and, for a configured runc/runsc, no engine call. */
static int docker_plan(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                       sbio_bk_error *err) {
  dk_instance *inst = instance;
  if (!inst || !req || !mechanism || mechanism_size < 2)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker plan: missing argument");
  int rc = sbio__dk_check_request(inst, req, err);
  if (rc != SBIO_OK) return rc;
  const char *rt = inst->settings.runtime;
  if (rt && (!strcmp(rt, "runc") || !strcmp(rt, "runsc"))) {
    snprintf(mechanism, mechanism_size, "%s", rt);
    return SBIO_OK;
  }
  /* Unset (the engine's default) or another name: ask the engine what it
   * runs, briefly. Plan gets no call, but the create it prepares must end
   * within the sandbox's timeout, and the core starts that deadline before
   * plan: so plan waits at most PLAN_S, and never longer than the timeout
   * (a frozen engine used to hold `run --timeout 3` for 15 s). */
  sbio_bk_call call;
  sbio_sdk_call_init(&call, inst->host, req->timeout_s < PLAN_S ? req->timeout_s : PLAN_S);
  char name[64];
  if (rt)
    snprintf(name, sizeof name, "%s", rt);
  else if ((rc = sbio__dk_engine_default_runtime(inst, &call, SBIO_E_CREATE, name, sizeof name, err)) != SBIO_OK)
    return rc;
  sbio__dk_engine_mechanism(inst, name, &call, mechanism, mechanism_size);
  return SBIO_OK;
}

/* probe (ABI 1.1, for `sbio doctor`): is the engine reachable, and which
 * API version and default runtime does it offer? Creates nothing. */
static int docker_probe(void *instance, const sbio_bk_call *call, char *detail, size_t detail_size,
                        sbio_bk_error *err) {
  dk_instance *inst = instance;
  if (!inst || !call || !detail || !detail_size)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker probe: missing argument");
  char runtime[64];
  int rc = sbio__dk_engine_default_runtime(inst, call, SBIO_E_CONNECT, runtime, sizeof runtime, err);
  if (rc != SBIO_OK) return rc;
  snprintf(detail, detail_size, "engine reachable, API %s, default runtime %s", inst->api, runtime);
  return SBIO_OK;
}

/* The metadata literals are laid out by hand: clang-format would split
 * every string into fragments. */
/* clang-format off */
SBIO_BACKEND(
    "docker", "0.1.0", "Hardened containers on a Docker Engine: runc (CONTAINER) or gVisor runsc (GVISOR)",
    SBIO_CAP("run_command") "," SBIO_CAP("streaming") "," SBIO_CAP("filesystem") ","
    SBIO_CAP("upload_download") "," SBIO_CAP("network_policy") "," SBIO_CAP("stdin") ","
    SBIO_CAP("separate_stderr") "," SBIO_CAP("managed") "," SBIO_CAP("connect"),
    SBIO_MECHANISM("runc", "container", "https://docs.docker.com/engine/security/", "2026-11-29",
                   "Namespaces provide the first and most straightforward form of isolation.") ","
    SBIO_MECHANISM("runsc", "gvisor", "https://gvisor.dev/docs/", "2026-11-29",
                   "The system interfaces normally implemented by the host kernel are moved into a distinct, "
                   "per-sandbox application kernel in order to minimize the risk of an container escape exploit."),
    .open = docker_open, .close = docker_close, .plan = docker_plan, .create = sbio__dk_op_create,
    .connect = sbio__dk_op_connect, .exec = sbio__dk_op_exec, .file_read = sbio__dk_op_file_read,
    .file_write = sbio__dk_op_file_write, .file_list = sbio__dk_op_file_list, .file_mkdir = sbio__dk_op_file_mkdir,
    .file_remove = sbio__dk_op_file_remove, .kill = sbio__dk_op_kill, .release = sbio__dk_op_release,
    .list_managed = sbio__dk_op_list_managed, .kill_managed = sbio__dk_op_kill_managed, .probe = docker_probe,
    .run = sbio__dk_op_run, .features = SBIO_BK_FEATURE_EXEC_CANCEL)
/* clang-format on */
