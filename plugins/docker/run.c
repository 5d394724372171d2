/* SPDX-License-Identifier: MIT */
/* The one-shot run (backend ABI 1.5): one command in a container made for
 * it, the command being the container's own process, as `docker run --rm`
 * does, instead of an idle container, an exec and a forced removal.
 *
 * The container gets the hardened spec every docker sandbox gets (spec.c:
 * network none, no capabilities, no-new-privileges, caps, docker's init,
 * AutoRemove, the labels). Its main process is the command under the
 * image's `timeout -s KILL -- <lifetime>`: the same lifetime backstop as
 * create's `sleep`, so a command outliving a caller that died (kill -9)
 * is killed by the engine's own clock, and AutoRemove then removes it.
 * `timeout` execs (busybox) or runs (coreutils) the command, and reports a
 * program that is missing or cannot run with 127 or 126 and a line on
 * stderr, which becomes the message an exec gives (exec_startfail.c).
 *
 * Order, so that nothing is missed: create; inspect (the mechanism the
 * engine really gave, for the core's admission); admit; attach (output,
 * and stdin when there is some) and two waits are all in place before the
 * start: condition=next-exit for the exit code, condition=removed for the
 * engine's word that AutoRemove removed the container, so a run that ends
 * normally costs no removal request and "removed" is not a guess. (Docker
 * alone would need only the second, which carries the exit code too;
 * Podman 4.3's answers it with StatusCode 0 whatever the code was.)
 *
 * Past the deadline, or once cancelled, the container is removed by force
 * (exit code 137), within the teardown time the core gives. Every wait is
 * bounded by the call's deadline, plus that teardown time for the last
 * steps. */
#include "api.h"
#include "attach.h"
#include "errmap.h"
#include "exec.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_BODY_MAX 4096

typedef enum end {
  END_EOF,       /* the command closed its output: it ended */
  END_STOPPED,   /* the container stopped (seen by a probe), the stream did not say so */
  END_DEADLINE,  /* the call's deadline passed */
  END_CANCELLED, /* the call was cancelled */
  END_LOST       /* the attach connection broke */
} end;

/* A container wait (POST /containers/{id}/wait?condition=...). */
typedef struct dk_wait {
  sbio_sdk_http_stream *stream;
  sbio_sdk_http_response resp;
} dk_wait;

typedef struct one_shot {
  dk_instance *inst;
  const sbio_bk_run_req *req;
  const sbio_bk_call *call;
  char id[72];
  sbio_sdk_http_conn *conn; /* the attach, until the start */
  dk_attach io;             /* ... then its streams */
  dk_wait exited, removed;  /* condition=next-exit, condition=removed */
} one_shot;

static int is_cancelled(const sbio_bk_call *c) {
  return c->cancelled && c->cancelled(c);
}

/* "KEY=" of an "KEY=value" entry of the spec's Env: 1 when it is `key`. */
static int env_entry_is(const char *entry, const char *key) {
  size_t n = strlen(key);
  return !strncmp(entry, key, n) && entry[n] == '=';
}

/* The exec's environment goes over the sandbox's, as an exec's does. */
static int add_exec_env(cJSON *env, const sbio_bk_exec_req *x) {
  for (size_t i = 0; i < x->n_env; i++) {
    const sbio_bk_kv *kv = &x->env[i];
    for (int j = cJSON_GetArraySize(env) - 1; j >= 0; j--) {
      const cJSON *item = cJSON_GetArrayItem(env, j);
      if (cJSON_IsString(item) && env_entry_is(item->valuestring, kv->key)) cJSON_DeleteItemFromArray(env, j);
    }
    size_t len = strlen(kv->key) + strlen(kv->value) + 2;
    char *s = malloc(len);
    if (!s) return -1;
    snprintf(s, len, "%s=%s", kv->key, kv->value);
    cJSON *item = cJSON_CreateString(s);
    free(s);
    if (!item || !cJSON_AddItemToArray(env, item)) return -1;
  }
  return 0;
}

/* Entrypoint: the backstop; Cmd: the command (argv as it is, never through
 * a shell; a script through /bin/sh -c, as exec does). */
static int add_command(cJSON *root, const sbio_bk_run_req *req) {
  const sbio_bk_exec_req *x = req->exec;
  char lifetime[32];
  snprintf(lifetime, sizeof lifetime, "%.0f", ceil(req->create->timeout_s) + 1);
  const char *entry[] = {"timeout", "-s", "KILL", "--", lifetime};
  cJSON *cmd = cJSON_CreateArray();
  int ok = cmd != NULL;
  if (ok && x->shell) {
    const char *sh[] = {"/bin/sh", "-c", x->shell};
    for (size_t i = 0; ok && i < 3; i++) ok = cJSON_AddItemToArray(cmd, cJSON_CreateString(sh[i]));
  }
  for (size_t i = 0; ok && !x->shell && i < x->argc; i++)
    ok = cJSON_AddItemToArray(cmd, cJSON_CreateString(x->argv[i]));
  if (!ok || !cJSON_AddItemToObject(root, "Cmd", cmd)) {
    cJSON_Delete(cmd);
    return -1;
  }
  return cJSON_AddItemToObject(root, "Entrypoint", cJSON_CreateStringArray(entry, 5)) ? 0 : -1;
}

/* The create body: the shared hardened spec, the command, its environment
 * and working directory, and stdin open once when the command has some. */
static char *run_body(const dk_instance *inst, const sbio_bk_run_req *req, const char *image, const char *runtime) {
  const sbio_bk_exec_req *x = req->exec;
  cJSON *root = sbio__dk_container_spec(inst, req->create, image, runtime);
  int ok = root && add_command(root, req) == 0 && add_exec_env(cJSON_GetObjectItemCaseSensitive(root, "Env"), x) == 0 &&
           cJSON_AddTrueToObject(root, "AttachStdout") && cJSON_AddTrueToObject(root, "AttachStderr");
  if (ok && x->cwd && x->cwd[0]) {
    char cwd[4200];
    if (x->cwd[0] == '/')
      snprintf(cwd, sizeof cwd, "%s", x->cwd);
    else
      snprintf(cwd, sizeof cwd, "%s/%s", DK_WORK_DIR, x->cwd);
    ok = cJSON_ReplaceItemInObjectCaseSensitive(root, "WorkingDir", cJSON_CreateString(cwd));
  }
  if (ok && x->has_stdin)
    ok = cJSON_ReplaceItemInObjectCaseSensitive(root, "OpenStdin", cJSON_CreateTrue()) &&
         cJSON_AddTrueToObject(root, "StdinOnce") && cJSON_AddTrueToObject(root, "AttachStdin");
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}

static int check_command(const sbio_bk_exec_req *x, sbio_bk_error *err) {
  if (!x->shell && (!x->argv || !x->argc))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker run: needs a command");
  for (size_t i = 0; !x->shell && i < x->argc; i++)
    if (!x->argv[i]) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker run: argv[%zu] is NULL", i);
  for (size_t i = 0; i < x->n_env; i++)
    if (!x->env[i].key || !x->env[i].key[0] || strchr(x->env[i].key, '=') || !x->env[i].value)
      return sbio_sdk_error(err, SBIO_E_CONFIG, NULL, "docker: environment variable name '%.100s' is not valid",
                            x->env[i].key ? x->env[i].key : "");
  if (x->cwd && strlen(x->cwd) > 4096)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker run: the working directory is too long");
  return SBIO_OK;
}

/* ------------------------------------------------------------- streams */
/* Attach before start: nothing the command writes is missed. */
static int attach(one_shot *r, sbio_bk_error *err) {
  char path[200];
  snprintf(path, sizeof path, "/containers/%s/attach?stream=1&stdout=1&stderr=1%s", r->id,
           r->req->exec->has_stdin ? "&stdin=1" : "");
  sbio_sdk_http_response resp;
  int rc = SBIO_OK;
  if (sbio__dk_upgrade(r->inst, path, "", r->call, &r->conn, &resp) != 0 || !r->conn)
    rc = sbio__dk_fail(r->inst, &resp, SBIO_E_CREATE, SBIO_E_EXEC_TIMEOUT, "attach to the container", err);
  sbio_sdk_http_response_free(&resp);
  return rc;
}

/* A wait, in place before the start: its head says the engine has it. */
static int open_wait(one_shot *r, const char *condition, dk_wait *w, sbio_bk_error *err) {
  char path[200], versioned[DK_API_PATH_MAX];
  snprintf(path, sizeof path, "/containers/%s/wait?condition=%s", r->id, condition);
  sbio_sdk_http_request req = {.method = "POST",
                               .path = sbio__dk_api_path(r->inst, path, versioned, sizeof versioned),
                               .body = "",
                               .content_type = "application/json",
                               .retry = SBIO_SDK_RETRY_NEVER,
                               .timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT};
  /* The run's call bounds it: past the deadline, or once cancelled, the
   * container is removed by force and the wait is not read. */
  int rc = SBIO_OK;
  if (sbio_sdk_http_stream_open_at_head(r->inst->http, &req, r->call, &w->stream, &w->resp) != 0 || !w->stream)
    rc = sbio__dk_fail(r->inst, &w->resp, SBIO_E_CREATE, SBIO_E_EXEC_TIMEOUT, "wait for the container", err);
  if (rc != SBIO_OK) {
    sbio_sdk_http_response_free(&w->resp);
    memset(&w->resp, 0, sizeof w->resp);
  }
  return rc;
}

static void close_wait(dk_wait *w) {
  sbio_sdk_http_stream_close(w->stream);
  w->stream = NULL;
  sbio_sdk_http_response_free(&w->resp);
}

/* A wait's answer: {"StatusCode": N, "Error": null | {"Message": ...}}.
 * 0 with the code once the condition is met; -1 when no answer came
 * (w->resp says why: the deadline, a cancellation, a broken connection);
 * -2 when the answer is not an exit code (w->resp.error says how). */
static int read_wait(dk_wait *w, int *exit_code) {
  char body[WAIT_BODY_MAX + 1];
  size_t len = 0;
  const void *piece;
  long n;
  while ((n = sbio_sdk_http_stream_read(w->stream, &piece)) > 0) {
    if (len + (size_t)n > WAIT_BODY_MAX) return -1;
    memcpy(body + len, piece, (size_t)n);
    len += (size_t)n;
  }
  if (n < 0) return -1;
  body[len] = '\0';
  cJSON *root = cJSON_ParseWithLength(body, len);
  const cJSON *code = root ? cJSON_GetObjectItemCaseSensitive(root, "StatusCode") : NULL;
  const cJSON *error = root ? cJSON_GetObjectItemCaseSensitive(root, "Error") : NULL;
  const cJSON *message = cJSON_IsObject(error) ? cJSON_GetObjectItemCaseSensitive(error, "Message") : NULL;
  int ok = cJSON_IsNumber(code) && code->valuedouble >= 0 && code->valuedouble <= 255 &&
           !(cJSON_IsString(message) && message->valuestring[0]);
  if (ok) *exit_code = code->valueint;
  /* The engine answered, but not with an exit code: say so (follow()
   * must not call that a lost engine). */
  if (!ok && cJSON_IsString(message) && message->valuestring[0])
    snprintf(w->resp.error, sizeof w->resp.error, "the engine's wait answer is an error: %.180s", message->valuestring);
  else if (!ok)
    snprintf(w->resp.error, sizeof w->resp.error, "the engine's wait answer has no StatusCode from 0 to 255");
  cJSON_Delete(root);
  return ok ? 0 : -2;
}

/* After a silence: is the container still running? A stream can stay open
 * after its container died (seen under runsc); the wait then knows. */
static int stopped(one_shot *r) {
  sbio_sdk_subcall budget;
  sbio_sdk_call_narrow(&budget, r->call, DK_PROBE_BUDGET_S);
  int state = sbio__dk_container_running(r->inst, r->id, &budget.call, NULL);
  r->io.last_activity = sbio__dk_now(r->inst);
  return state == 0; /* -1, no answer: the deadline still bounds the run */
}

static end pump(one_shot *r) {
  for (;;) {
    int step = sbio__dk_attach_step(&r->io);
    if (step == DK_ATTACH_CANCELLED) return END_CANCELLED;
    if (step == DK_ATTACH_DEADLINE) return END_DEADLINE;
    if (step == DK_ATTACH_EOF) return END_EOF;
    if (step == DK_ATTACH_LOST) return END_LOST;
    if (step == DK_ATTACH_IDLE && sbio__dk_now(r->inst) - r->io.last_activity >= DK_IDLE_PROBE_NS && stopped(r))
      return END_STOPPED;
  }
}

/* -------------------------------------------------------------- the run */
/* Removes the container by force (deadline, cancellation, a lost wait)
 * within the core's teardown time from now: 1 once the engine confirmed it
 * is gone, else 0 with `why` (may be NULL; given empty). */
static int remove_now(one_shot *r, sbio_bk_error *why) {
  double seconds = r->req->teardown_s > 0 ? r->req->teardown_s : 0.25;
  return sbio__dk_discard(r->inst, r->id, r->call, seconds, DK_DISCARD_FROM_NOW, why);
}

/* Once the command runs: its output until it ends, then its exit code. */
static int follow(one_shot *r, int64_t start, int *exit_code, int *removed, sbio_bk_error *err) {
  sbio__dk_attach_begin(&r->io, r->inst, r->conn, r->req->exec, r->call, 1);
  r->conn = NULL;
  end e = pump(r);
  sbio__dk_attach_close(&r->io);
  if (e != END_EOF && e != END_STOPPED && e != END_LOST) sbio__dk_attach_flush(&r->io);
  if (e == END_EOF || e == END_STOPPED || e == END_LOST) {
    /* The command closed its output (or the attach broke): the waits say
     * how it ended and when the engine removed the container. A command
     * that closed its output and runs on meets the deadline here. */
    int waited = read_wait(&r->exited, exit_code);
    if (waited == 0) {
      const sbio_bk_exec_req *x = r->req->exec;
      *exit_code = sbio__dk_attach_finish(&r->io, *exit_code, -1, x->shell ? "/bin/sh" : x->argv[0]);
      int ignored;
      /* AutoRemove follows the exit at once; past the deadline (or when
       * the wait broke) the removal is ours. */
      *removed = read_wait(&r->removed, &ignored) == 0 || remove_now(r, NULL);
      if (*exit_code != DK_STARTFAIL_NO_BACKSTOP) return SBIO_OK;
      *exit_code = -1; /* the command never ran */
      return sbio_sdk_error(err, SBIO_E_CREATE, "use an image with busybox or coreutils (they provide `timeout`)",
                            "docker: sandbox %.12s could not run the command: the image has no `timeout` program, "
                            "which sbio run runs it under as the sandbox's lifetime backstop",
                            r->id);
    }
    sbio__dk_attach_flush(&r->io); /* whatever was held is the command's */
    if (waited == -2) {
      *removed = remove_now(r, NULL);
      return sbio_sdk_error(err, SBIO_E_EXEC, *removed ? NULL : DK_REAP_HINT,
                            "docker: sandbox %.12s ran its command, but %s%s", r->id, r->exited.resp.error,
                            *removed ? "" : "; its removal was not confirmed: the container may remain");
    }
    if (r->exited.resp.outcome == SBIO_SDK_HTTP_TIMEOUT)
      e = END_DEADLINE;
    else if (r->exited.resp.outcome == SBIO_SDK_HTTP_CANCELLED)
      e = END_CANCELLED;
    else {
      *removed = remove_now(r, NULL);
      return sbio_sdk_error(err, SBIO_E_EXEC,
                            *removed ? "check that the Docker engine is running (it may have restarted)"
                                     : "check that the Docker engine is running (it may have restarted); then "
                                       "`sbio reap --kill --backend docker` removes what is left",
                            "docker: lost the Docker engine at %s while sandbox %.12s ran its command (%s)%s",
                            r->inst->endpoint.display, r->id,
                            r->exited.resp.error[0] ? r->exited.resp.error : "its exit code never came",
                            *removed ? "" : "; its removal was not confirmed: the container may remain");
    }
  }
  *exit_code = 137;
  sbio_bk_error why = {.size = sizeof why};
  *removed = remove_now(r, &why);
  double span = (double)(r->call->deadline_ns - start) / 1e9;
  if (e == END_CANCELLED && *removed)
    return sbio_sdk_error(err, SBIO_E_CANCELLED, NULL, "docker: the run of sandbox %.12s was cancelled", r->id);
  if (e == END_CANCELLED)
    return sbio_sdk_error(err, SBIO_E_CANCELLED, DK_REAP_HINT,
                          "docker: the run of sandbox %.12s was cancelled; the removal of its container was not "
                          "confirmed (%s)",
                          r->id, why.message);
  if (*removed)
    return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, "raise the timeout if the command needs longer",
                          "docker: command exceeded its %.3g s deadline and was killed", span);
  return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, DK_REAP_HINT,
                        "docker: command exceeded its %.3g s deadline; sbio removed its container %.12s by force, "
                        "not confirmed (%s); the lifetime backstop ends it",
                        span, r->id, why.message);
}

int sbio__dk_op_run(void *instance, const sbio_bk_run_req *req, const sbio_bk_call *call, sbio_bk_sandbox_info *info,
                    int *exit_code, int *removed, sbio_bk_error *err) {
  dk_instance *inst = instance;
  if (!inst || !req || !req->create || !req->exec || !req->admit || !call || !info || !exit_code || !removed)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker run: missing argument");
  *exit_code = -1;
  *removed = 0;
  info->id[0] = '\0';
  const int64_t start = sbio__dk_now(inst);
  const char *image = NULL;
  char runtime[64], mechanism[64] = "";
  int rc = check_command(req->exec, err);
  if (rc == SBIO_OK) rc = sbio__dk_prepare(inst, req->create, call, &image, runtime, sizeof runtime, err);
  char name[DK_CONTAINER_NAME_MAX];
  if (rc == SBIO_OK) rc = sbio__dk_container_name(req->create, name, sizeof name, err);
  if (rc != SBIO_OK) return rc;
  char *body = run_body(inst, req, image, runtime);
  if (!body) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory building the create request");
  one_shot r = {.inst = inst, .req = req, .call = call};
  int left = 0;
  rc = sbio__dk_create_container(inst, body, name, image, call, r.id, sizeof r.id, &left, err);
  free(body);
  if (rc != SBIO_OK) {
    *removed = !left; /* nothing was made, or what was made is removed */
    return rc;
  }

  /* From here on the container exists: every path removes it. */
  snprintf(info->id, sizeof info->id, "%.12s", r.id);
  rc = sbio__dk_observe_mechanism(inst, r.id, runtime, 0, call, mechanism, sizeof mechanism, err);
  snprintf(info->mechanism, sizeof info->mechanism, "%s", mechanism);
  if (rc == SBIO_OK && req->admit(req->admit_user, info) != 0)
    rc = sbio_sdk_error(err, SBIO_E_CREATE, NULL, "docker: sandbox %.12s was not admitted", r.id);
  if (rc == SBIO_OK) rc = attach(&r, err);
  if (rc == SBIO_OK) rc = open_wait(&r, "next-exit", &r.exited, err);
  if (rc == SBIO_OK) rc = open_wait(&r, "removed", &r.removed, err);
  if (rc == SBIO_OK) rc = sbio__dk_start_container(inst, r.id, "timeout", call, err);
  if (rc == SBIO_OK) {
    rc = follow(&r, start, exit_code, removed, err);
    if (rc == SBIO_OK) rc = sbio__dk_attach_check(&r.io, info->id, err);
  } else {
    sbio_sdk_http_conn_close(r.conn);
    /* Cancelled while the container was being readied: the caller's word,
     * not the request the cancellation cut short. */
    if (is_cancelled(call))
      rc = sbio_sdk_error(err, SBIO_E_CANCELLED, NULL,
                          "docker: the run of sandbox %.12s was cancelled before its "
                          "command started",
                          r.id);
    *removed = sbio__dk_discard(inst, r.id, call, req->teardown_s, DK_DISCARD_DEADLINE_MARGIN, err);
  }
  close_wait(&r.exited);
  close_wait(&r.removed);
  return rc;
}
