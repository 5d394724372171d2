/* SPDX-License-Identifier: MIT */
/* Create: a hardened container, no opt-out (docs/backends/docker.md):
 * network none, every capability dropped, no-new-privileges, PIDs, memory
 * (swap equal) and CPU caps, an init process reaping zombies, and PID 1 a
 * `sleep` lifetime backstop so the container stops on its own when its
 * timeout passes even if this process died, and AutoRemove so the engine
 * then removes it: a dead caller leaves nothing behind. Anything that fails
 * after the container exists removes it before the error is returned. */
#include "api.h"
#include "engine.h"
#include "errmap.h"
#include "podman.h"
#include "pull.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define CLEANUP_S 15.0

int sbio__dk_check_request(const dk_instance *inst, const sbio_bk_create_req *req, sbio_bk_error *err) {
  (void)inst;
  if (req->n_allow)
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "drop the allow-list; docker sandboxes have no network at all",
                          "docker: egress allow-lists are not supported (a container's network is all or nothing)");
  if (req->egress != 0)
    return sbio_sdk_error(err, SBIO_E_CAPABILITY,
                          "keep egress denied; see docs/backends/docker.md for why the backend offers no network",
                          "docker: egress allow is not supported: every docker sandbox runs with network 'none'");
  if (req->disk_mb > 0)
    return sbio_sdk_error(err, SBIO_E_CONFIG, "drop the disk cap for the docker backend",
                          "docker: a disk cap cannot be enforced by the Docker Engine on every storage driver");
  if (req->gpu && req->gpu[0])
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "drop the GPU request",
                          "docker: GPUs are not offered by this backend (requested '%.100s')", req->gpu);
  if (req->memory_mb > 0 && req->memory_mb < DK_MIN_MEMORY_MB)
    return sbio_sdk_error(err, SBIO_E_CONFIG, "ask for 6 MB or more",
                          "docker: memory cap %lld MB is below the "
                          "engine's minimum of %d MB",
                          (long long)req->memory_mb, DK_MIN_MEMORY_MB);
  if (req->cpu < 0 || (req->cpu > 0 && req->cpu < 0.01))
    return sbio_sdk_error(err, SBIO_E_CONFIG, "ask for 0.01 CPUs or more", "docker: CPU cap %g is too small", req->cpu);
  if (!(req->timeout_s > 0) || !(req->timeout_s <= SBIO_MAX_TIMEOUT_S))
    return sbio_sdk_error(err, SBIO_E_CONFIG, "give a timeout between 0 and 86400 seconds (24 hours)",
                          "docker: sandbox timeout %g s is out of range", req->timeout_s);
  for (size_t i = 0; i < req->n_env + req->n_secrets; i++) {
    const sbio_bk_kv *kv = i < req->n_env ? &req->env[i] : &req->secrets[i - req->n_env];
    if (!kv->key || !kv->key[0] || strchr(kv->key, '=') || !kv->value)
      return sbio_sdk_error(err, SBIO_E_CONFIG, NULL, "docker: environment variable name '%.100s' is not valid",
                            kv->key ? kv->key : "");
  }
  return SBIO_OK;
}

/* The request body of POST /containers/create for create's idle
 * container: the shared hardened spec (spec.c) with PID 1 the lifetime
 * backstop. The backstop outlives the sandbox's timeout by a second, then
 * PID 1 exits, the container stops and (AutoRemove) the engine removes it.
 * A restart (exec_kill.c) does not remove it: the engine lifts AutoRemove
 * for the restart's stop. */
static char *create_body(const dk_instance *inst, const sbio_bk_create_req *req, const char *image,
                         const char *runtime) {
  char lifetime[32];
  snprintf(lifetime, sizeof lifetime, "%.0f", ceil(req->timeout_s) + 1);
  const char *entry[] = {"sleep"}, *cmd[] = {lifetime};
  cJSON *root = sbio__dk_container_spec(inst, req, image, runtime);
  int ok = root && cJSON_AddItemToObject(root, "Entrypoint", cJSON_CreateStringArray(entry, 1)) &&
           cJSON_AddItemToObject(root, "Cmd", cJSON_CreateStringArray(cmd, 1));
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}

/* 1 when the engine said the image is missing. */
static int no_such_image(const sbio_sdk_http_response *resp) {
  return resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status == 404 && resp->body && strstr(resp->body, "image");
}

/* "sbio-<session>-<16 random hex>": the session (the host's, letters and
 * digits only, so the name is one docker accepts) says whose it is, the
 * random part makes it unique whatever the process or the session. */
int sbio__dk_container_name(const sbio_bk_create_req *req, char *name, size_t size, sbio_bk_error *err) {
  char session[33];
  size_t n = 0;
  for (const char *p = req->session_id ? req->session_id : ""; *p && n + 1 < sizeof session; p++)
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) session[n++] = *p;
  session[n] = '\0';
  unsigned char raw[8];
  if (size < DK_CONTAINER_NAME_MAX || getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "docker create: no randomness for the container's name");
  char hex[17];
  for (size_t i = 0; i < sizeof raw; i++) snprintf(hex + 2 * i, 3, "%02x", raw[i]);
  snprintf(name, size, "sbio-%s-%s", n ? session : "nosession", hex);
  return SBIO_OK;
}

/* 0 with the id; -1 when the engine did not answer 201; -2 when it did
 * (so a container exists) but the answer has no id to use, resp->error
 * saying what was wrong with it (never the body: it may echo the request). */
static int post_create(dk_instance *inst, const char *body, const char *name, const sbio_bk_call *call, char *id,
                       size_t id_size, sbio_sdk_http_response *resp) {
  char path[32 + DK_CONTAINER_NAME_MAX];
  snprintf(path, sizeof path, "/containers/create?name=%s", name);
  if (sbio__dk_send(inst, "POST", path, body, call, resp) != 0 || resp->status != 201) return -1;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *cid = root ? cJSON_GetObjectItemCaseSensitive(root, "Id") : NULL;
  /* A Docker (and Podman) container id is 64 lowercase hex digits; only
   * that is ever put into a request path. */
  int ok = cJSON_IsString(cid) && cid->valuestring && strlen(cid->valuestring) == 64 && id_size > 64 &&
           strspn(cid->valuestring, "0123456789abcdef") == 64;
  if (ok) snprintf(id, id_size, "%s", cid->valuestring);
  if (!root)
    snprintf(resp->error, sizeof resp->error, "its answer is not JSON");
  else if (!cid)
    snprintf(resp->error, sizeof resp->error, "its answer has no Id");
  else if (!ok)
    snprintf(resp->error, sizeof resp->error, "its answer's Id is not 64 hex digits");
  cJSON_Delete(root);
  return ok ? 0 : -2;
}

/* 1 when a create that failed may still have made its container: the
 * request may have reached the engine and its answer not reached us (the
 * connection broke, or the deadline or a cancellation came while it was
 * out), or the engine says the name is in use. The name is this create's
 * own (random), so only an earlier attempt of this same create can hold it
 * (libcurl resends a request once when a reused connection turns out dead,
 * and the first one may have been acted on). Not when the request provably
 * never reached the engine, nor when the engine answered anything else. */
static int may_have_made(const sbio_sdk_http_response *resp) {
  if (resp->outcome == SBIO_SDK_HTTP_ANSWERED) return resp->status == 409;
  return !resp->not_sent;
}

int sbio__dk_create_container(dk_instance *inst, const char *body, const char *name, const char *image,
                              const sbio_bk_call *call, char *id, size_t id_size, int *left, sbio_bk_error *err) {
  dk_pull policy = inst->settings.pull;
  *left = 0;
  int rc = policy == DK_PULL_ALWAYS ? sbio__dk_image_pull(inst, image, call, err) : SBIO_OK;
  for (int attempt = 0; rc == SBIO_OK; attempt++) {
    sbio_sdk_http_response resp;
    int r = post_create(inst, body, name, call, id, id_size, &resp);
    if (r == 0) {
      sbio_sdk_http_response_free(&resp);
      return SBIO_OK;
    }
    if (r == -1 && no_such_image(&resp) && attempt == 0 && policy == DK_PULL_MISSING) {
      sbio_sdk_http_response_free(&resp);
      rc = sbio__dk_image_pull(inst, image, call, err);
      continue;
    }
    if (r == -1 && no_such_image(&resp) && policy == DK_PULL_NEVER) {
      char msg[300];
      rc = sbio_sdk_error(err, SBIO_E_CREATE, "pull it first (docker pull), or set the pull setting to missing",
                          "docker: image %.200s is not present on the engine and the pull policy is never (%s)", image,
                          sbio__dk_engine_message(&resp, msg, sizeof msg));
      if (err) err->provider_status = 404;
    } else if (r == -1 && resp.outcome == SBIO_SDK_HTTP_ANSWERED && resp.status == 409) {
      /* The engine's 409 names the name, which says nothing useful here:
       * what happened is that an answer was lost. */
      rc = sbio_sdk_error(err, SBIO_E_CREATE, "check the engine's socket and its log; then try again",
                          "docker: create the container: the engine's answer to it was lost, and the create resent "
                          "found its container already made (HTTP 409 for its name %s)",
                          name);
      if (err) err->provider_status = 409;
    } else {
      rc = sbio__dk_fail(inst, &resp, SBIO_E_CREATE, SBIO_E_CREATE_TIMEOUT, "create the container", err);
    }
    int made = r == -2 || may_have_made(&resp);
    sbio_sdk_http_response_free(&resp);
    /* The engine made (or may have made) a container whose id its answer
     * did not give: the name it was given is the one handle left on it. A
     * removal of a container that was never made is answered 404, which
     * counts as removed. */
    if (made) *left = !sbio__dk_discard(inst, name, call, CLEANUP_S, DK_DISCARD_DEADLINE_MARGIN, err);
  }
  return rc;
}

/* True when the engine's answer says the main process's program is not in
 * the image (runc: exec: "timeout": executable file not found in $PATH, or
 * "no such file or directory" for a path), naming that program: a missing
 * mount source or init binary says the same words about something else. */
static int program_missing(const sbio_sdk_http_response *resp, const char *program) {
  return resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status >= 400 && resp->body && strstr(resp->body, program) &&
         (strstr(resp->body, "executable file not found") || strstr(resp->body, "no such file or directory"));
}

int sbio__dk_start_container(dk_instance *inst, const char *id, const char *program, const sbio_bk_call *call,
                             sbio_bk_error *err) {
  char path[160];
  snprintf(path, sizeof path, "/containers/%s/start", id);
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(inst, "POST", path, NULL, call, &resp);
  if (rc == 0 && (resp.status == 204 || resp.status == 304)) {
    rc = SBIO_OK;
  } else if (rc == 0 && program_missing(&resp, program)) {
    char msg[300];
    rc = sbio_sdk_error(err, SBIO_E_CREATE,
                        "use an image with busybox or coreutils (they provide `sleep` and `timeout`)",
                        "docker: container %.12s could not start: the image has no `%s` program, which the backend "
                        "runs as the sandbox's lifetime backstop (%s)",
                        id, program, sbio__dk_engine_message(&resp, msg, sizeof msg));
  } else {
    rc = sbio__dk_fail(inst, &resp, SBIO_E_CREATE, SBIO_E_CREATE_TIMEOUT, "start the container", err);
  }
  sbio_sdk_http_response_free(&resp);
  return rc;
}

/* Reads back the runtime the container really got. */
static int observed_runtime(dk_instance *inst, const char *id, int need_running, const sbio_bk_call *call,
                            char *runtime, size_t size, sbio_bk_error *err) {
  char path[160];
  snprintf(path, sizeof path, "/containers/%s/json", id);
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(inst, "GET", path, NULL, call, &resp);
  if (rc != 0 || resp.status != 200) {
    rc = sbio__dk_fail(inst, &resp, SBIO_E_CREATE, SBIO_E_CREATE_TIMEOUT, "inspect the new container", err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  cJSON *root = cJSON_ParseWithLength(resp.body, resp.len);
  sbio_sdk_http_response_free(&resp);
  const cJSON *hc = root ? cJSON_GetObjectItemCaseSensitive(root, "HostConfig") : NULL;
  const cJSON *rt = hc ? cJSON_GetObjectItemCaseSensitive(hc, "Runtime") : NULL;
  const cJSON *state = root ? cJSON_GetObjectItemCaseSensitive(root, "State") : NULL;
  const cJSON *running = state ? cJSON_GetObjectItemCaseSensitive(state, "Running") : NULL;
  rc = SBIO_OK;
  if (need_running && !cJSON_IsTrue(running))
    rc = sbio_sdk_error(err, SBIO_E_CREATE, "check that the image has a `sleep` program",
                        "docker: container %.12s stopped right after it started", id);
  else if (!cJSON_IsString(rt) || !rt->valuestring || !rt->valuestring[0])
    snprintf(runtime, size, "unknown");
  else
    snprintf(runtime, size, "%s", rt->valuestring);
  cJSON_Delete(root);
  return rc;
}

int sbio__dk_prepare(dk_instance *inst, const sbio_bk_create_req *req, const sbio_bk_call *call, const char **image,
                     char *runtime, size_t size, sbio_bk_error *err) {
  *image = req->template_name && req->template_name[0] ? req->template_name : inst->settings.image;
  int rc = sbio__dk_check_request(inst, req, err);
  if (rc == SBIO_OK) rc = sbio__dk_image_check(*image, err);
  if (rc == SBIO_OK) rc = sbio__dk_engine_ready(inst, call, SBIO_E_CREATE, err);
  if (rc == SBIO_OK && inst->settings.runtime)
    snprintf(runtime, size, "%s", inst->settings.runtime);
  else if (rc == SBIO_OK)
    rc = sbio__dk_engine_default_runtime(inst, call, SBIO_E_CREATE, runtime, size, err);
  return rc;
}

int sbio__dk_observe_mechanism(dk_instance *inst, const char *id, const char *runtime, int need_running,
                               const sbio_bk_call *call, char *mechanism, size_t size, sbio_bk_error *err) {
  char observed[64] = "";
  int rc = observed_runtime(inst, id, need_running, call, observed, sizeof observed, err);
  if (rc != SBIO_OK) return rc;
  sbio__dk_podman_runtime(inst, id, call, observed, sizeof observed);
  /* A configured runtime is a security setting: an engine that does not
   * say which runtime it gave cannot be taken at its word (fail closed).
   * Docker always says; only something else on the socket would not. */
  if (inst->settings.runtime && strcmp(observed, "unknown") == 0)
    return sbio_sdk_error(err, SBIO_E_CREATE, "check what answers on the engine's socket",
                          "docker: the engine at %s did not say which runtime runs container %.12s (no "
                          "HostConfig.Runtime in its inspect), so the configured runtime '%.40s' is not confirmed",
                          inst->endpoint.display, id, runtime);
  /* Podman's compat create ignores HostConfig.Runtime and runs its own
   * default: a configured runtime that did not run is an error, not a
   * silently weaker sandbox. */
  if (inst->settings.runtime && strcmp(observed, runtime) != 0)
    return sbio_sdk_error(err, SBIO_E_CREATE,
                          "this engine does not honour the runtime setting (Podman: set the runtime in "
                          "containers.conf, [engine] runtime, and leave the setting out)",
                          "docker: the engine at %s ran container %.12s with runtime '%.40s', not the configured "
                          "'%.40s'",
                          inst->endpoint.display, id, observed, runtime);
  sbio__dk_engine_mechanism(inst, observed, call, mechanism, size);
  return SBIO_OK;
}

int sbio__dk_discard(dk_instance *inst, const char *id, const sbio_bk_call *call, double seconds,
                     dk_discard_bound bound, sbio_bk_error *err) {
  int removed = 0;
  sbio_bk_error why = {.size = sizeof why};
  /* Its own time: the operation's may be spent, and this must happen; but
   * (DK_DISCARD_DEADLINE_MARGIN) never more than the margin past the
   * operation's deadline (a frozen engine: the container then waits for
   * `sbio reap`, as the error says). */
  sbio_bk_call cleanup;
  if (bound == DK_DISCARD_FROM_NOW)
    sbio_sdk_call_cleanup(&cleanup, call, seconds);
  else
    sbio_sdk_call_cleanup_bounded(&cleanup, call, seconds);
  if (sbio__dk_remove_container(inst, id, &cleanup, &removed, &why) == SBIO_OK) return 1;
  if (err && err->message[0]) {
    size_t n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, "; removing container %.*s also failed: %s", sbio__dk_shown(id),
             id, why.message);
    snprintf(err->hint, sizeof err->hint, "%s", DK_REAP_HINT);
  } else if (err) {
    *err = why;
  }
  return 0;
}

int sbio__dk_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                       sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  dk_instance *inst = instance;
  if (!inst || !req || !call || !sandbox || !info)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker create: missing argument");
  *sandbox = NULL;
  const char *image = NULL;
  char runtime[64];
  int rc = sbio__dk_prepare(inst, req, call, &image, runtime, sizeof runtime, err);
  if (rc != SBIO_OK) return rc;

  char name[DK_CONTAINER_NAME_MAX];
  rc = sbio__dk_container_name(req, name, sizeof name, err);
  if (rc != SBIO_OK) return rc;
  char *body = create_body(inst, req, image, runtime);
  if (!body) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory building the create request");
  char id[72] = "";
  int left = 0;
  rc = sbio__dk_create_container(inst, body, name, image, call, id, sizeof id, &left, err);
  free(body);
  if (rc != SBIO_OK) return rc;

  /* From here on the container exists: any failure removes it. */
  char mechanism[64] = "";
  dk_sandbox *sb = NULL;
  rc = sbio__dk_start_container(inst, id, "sleep", call, err);
  if (rc == SBIO_OK) rc = sbio__dk_observe_mechanism(inst, id, runtime, 1, call, mechanism, sizeof mechanism, err);
  if (rc == SBIO_OK && !(sb = sbio__dk_sandbox_new(inst, id, mechanism)))
    rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  if (rc != SBIO_OK) {
    sbio__dk_discard(inst, id, call, CLEANUP_S, DK_DISCARD_DEADLINE_MARGIN, err);
    return rc;
  }
  snprintf(info->id, sizeof info->id, "%s", sb->short_id);
  snprintf(info->mechanism, sizeof info->mechanism, "%s", sb->mechanism);
  *sandbox = sb;
  return SBIO_OK;
}
