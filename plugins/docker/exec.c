/* SPDX-License-Identifier: MIT */
/* Exec: create, start over an upgraded connection (the SDK's
 * sbio_sdk_http_upgrade: POST /exec/{id}/start with "Upgrade: tcp" on a
 * fresh connection, after which it carries raw bytes), stream the frames into
 * the output callback as they arrive, write stdin then half-close, read the
 * exit code from exec inspect.
 *
 * Every wait is bounded by the call's deadline, and the stream is watched:
 * after DK_IDLE_PROBE_NS of silence the exec is inspected, because a stream
 * can stay open for ever after its sandbox died (OBSERVED under runsc with a
 * too-small PIDs limit: the exec vanishes, the container exits, the
 * connection never closes). A dead container ends the exec with
 * SBIO_E_GONE at the next probe instead of at the deadline.
 *
 * A caller's cancellation of this one exec (ABI 1.3) kills its processes
 * the way a deadline does (exec_kill.c) and returns SBIO_E_CANCELLED; the
 * sandbox and its files stay, and so do its other processes unless the
 * image has no /bin/sh to run the killer (then the container is restarted
 * and the message says so). */
#include "exec.h"

#include "attach.h"
#include "engine.h"
#include "errmap.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define AFTER_S 10.0 /* for the inspects after the stream ended (never past the deadline's margin) */

/* END_CANCELLED: the sandbox is being killed; END_EXEC_CANCELLED: only this
 * exec was cancelled by its caller (ABI 1.3), the sandbox lives on. */
typedef enum outcome {
  END_EOF,
  END_CANCELLED,
  END_EXEC_CANCELLED,
  END_DEADLINE,
  END_LOST,
  END_BROKEN,
  END_GONE
} outcome;

int sbio__dk_exec_create(dk_instance *inst, const char *container, const char *body, const sbio_bk_call *call,
                         char *out, size_t size, sbio_sdk_http_response *resp) {
  char path[200];
  snprintf(path, sizeof path, "/containers/%s/exec", container);
  if (sbio__dk_send(inst, "POST", path, body, call, resp) != 0 || resp->status != 201) return -1;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *id = root ? cJSON_GetObjectItemCaseSensitive(root, "Id") : NULL;
  int ok = cJSON_IsString(id) && id->valuestring && id->valuestring[0] && strlen(id->valuestring) < size &&
           strspn(id->valuestring, "0123456789abcdef") == strlen(id->valuestring);
  if (ok)
    snprintf(out, size, "%s", id->valuestring);
  else
    snprintf(resp->error, sizeof resp->error, "the engine's exec answer has no exec id");
  cJSON_Delete(root);
  return ok ? 0 : -1;
}

int sbio__dk_exec_inspect(dk_instance *inst, const char *exec_id, const sbio_bk_call *call, dk_exec_state *st,
                          sbio_sdk_http_response *resp) {
  memset(st, 0, sizeof *st);
  char path[160];
  snprintf(path, sizeof path, "/exec/%s/json", exec_id);
  if (sbio__dk_send(inst, "GET", path, NULL, call, resp) != 0) return -1;
  if (resp->status == 404) return 0;
  if (resp->status != 200) return -1;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *running = root ? cJSON_GetObjectItemCaseSensitive(root, "Running") : NULL;
  const cJSON *code = root ? cJSON_GetObjectItemCaseSensitive(root, "ExitCode") : NULL;
  const cJSON *pid = root ? cJSON_GetObjectItemCaseSensitive(root, "Pid") : NULL;
  st->found = 1;
  st->pid = cJSON_IsNumber(pid) ? (long)pid->valuedouble : -1;
  st->running = cJSON_IsTrue(running);
  st->has_exit = cJSON_IsNumber(code);
  st->exit_code = st->has_exit ? code->valueint : -1;
  cJSON_Delete(root);
  return 0;
}

int sbio__dk_container_running(dk_instance *inst, const char *container, const sbio_bk_call *call, int *exit_code) {
  char path[160];
  snprintf(path, sizeof path, "/containers/%s/json", container);
  sbio_sdk_http_response resp;
  int result = -1;
  if (sbio__dk_send(inst, "GET", path, NULL, call, &resp) == 0) {
    if (sbio__dk_container_missing(&resp))
      result = 0;
    else if (resp.status == 200) {
      cJSON *root = cJSON_ParseWithLength(resp.body, resp.len);
      const cJSON *state = root ? cJSON_GetObjectItemCaseSensitive(root, "State") : NULL;
      const cJSON *running = state ? cJSON_GetObjectItemCaseSensitive(state, "Running") : NULL;
      const cJSON *code = state ? cJSON_GetObjectItemCaseSensitive(state, "ExitCode") : NULL;
      result = cJSON_IsTrue(running) ? 1 : 0;
      if (exit_code && cJSON_IsNumber(code)) *exit_code = code->valueint;
      cJSON_Delete(root);
    }
  }
  sbio_sdk_http_response_free(&resp);
  return result;
}

static int make_token(char *out, size_t size) {
  unsigned char raw[16];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) return -1;
  for (size_t i = 0; i < sizeof raw && 2 * i + 2 < size; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
  return 0;
}

static char *exec_body(const sbio_bk_exec_req *req, const char *token) {
  cJSON *root = cJSON_CreateObject();
  cJSON *cmd = cJSON_CreateArray();
  cJSON *env = cJSON_CreateArray();
  int ok = root && cmd && env;
  if (ok && req->shell) {
    ok = cJSON_AddItemToArray(cmd, cJSON_CreateString("/bin/sh")) &&
         cJSON_AddItemToArray(cmd, cJSON_CreateString("-c")) &&
         cJSON_AddItemToArray(cmd, cJSON_CreateString(req->shell));
  }
  for (size_t i = 0; ok && !req->shell && i < req->argc; i++)
    ok = req->argv[i] && cJSON_AddItemToArray(cmd, cJSON_CreateString(req->argv[i]));
  for (size_t i = 0; ok && i < req->n_env; i++) {
    size_t len = strlen(req->env[i].key) + strlen(req->env[i].value) + 2;
    char *kv = malloc(len);
    ok = kv != NULL;
    if (ok) {
      snprintf(kv, len, "%s=%s", req->env[i].key, req->env[i].value);
      ok = cJSON_AddItemToArray(env, cJSON_CreateString(kv));
    }
    free(kv);
  }
  char mark[64];
  snprintf(mark, sizeof mark, "%s=%s", DK_EXEC_TOKEN_VAR, token);
  ok = ok && cJSON_AddItemToArray(env, cJSON_CreateString(mark));
  char cwd[4200] = "";
  if (ok && req->cwd && req->cwd[0]) {
    if (req->cwd[0] == '/')
      snprintf(cwd, sizeof cwd, "%s", req->cwd);
    else
      snprintf(cwd, sizeof cwd, "%s/%s", DK_WORK_DIR, req->cwd);
  }
  if (ok) {
    cJSON_AddItemToObject(root, "Cmd", cmd);
    cJSON_AddItemToObject(root, "Env", env);
    cmd = env = NULL;
    ok = cJSON_AddBoolToObject(root, "AttachStdin", req->has_stdin ? 1 : 0) &&
         cJSON_AddTrueToObject(root, "AttachStdout") && cJSON_AddTrueToObject(root, "AttachStderr") &&
         cJSON_AddFalseToObject(root, "Tty") && (!cwd[0] || cJSON_AddStringToObject(root, "WorkingDir", cwd));
  }
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  cJSON_Delete(cmd);
  cJSON_Delete(env);
  return text;
}

typedef struct exec_run {
  dk_sandbox *sb;
  const sbio_bk_exec_req *req;
  const sbio_bk_call *call;
  dk_attach io; /* the exec's stream, once started */
  char exec_id[80];
  int probe_strikes;
  int container_exit;
} exec_run;

/* After a silence: is the exec (and its container) still alive? */
static int probe(exec_run *r) {
  dk_instance *inst = r->sb->inst;
  sbio_sdk_subcall budget;
  sbio_sdk_call_narrow(&budget, r->call, DK_PROBE_BUDGET_S);
  dk_exec_state st;
  sbio_sdk_http_response resp;
  int rc = sbio__dk_exec_inspect(inst, r->exec_id, &budget.call, &st, &resp);
  sbio_sdk_http_response_free(&resp);
  r->io.last_activity = sbio__dk_now(inst);
  if (rc != 0) return -1; /* engine slow or away: the deadline still bounds us */
  if (st.found && st.running) {
    r->probe_strikes = 0;
    return -1;
  }
  if (sbio__dk_container_running(inst, r->sb->id, &budget.call, &r->container_exit) == 0) return END_GONE;
  /* The engine closes a finished exec's stream within ~2 s, even when a
   * background child still holds the output open; past two probes it is
   * stuck. */
  return ++r->probe_strikes >= 2 ? END_BROKEN : -1;
}

static outcome pump(exec_run *r) {
  dk_instance *inst = r->sb->inst;
  for (;;) {
    if (atomic_load(&r->sb->killed)) return END_CANCELLED;
    int step = sbio__dk_attach_step(&r->io);
    if (step == DK_ATTACH_CANCELLED) return sbio_bk_exec_cancelled(r->call) ? END_EXEC_CANCELLED : END_CANCELLED;
    if (step == DK_ATTACH_DEADLINE) return END_DEADLINE;
    if (step == DK_ATTACH_EOF) return END_EOF;
    if (step == DK_ATTACH_LOST) return END_LOST;
    if (step == DK_ATTACH_IDLE && sbio__dk_now(inst) - r->io.last_activity >= DK_IDLE_PROBE_NS) {
      int end = probe(r);
      if (end >= 0) return (outcome)end;
    }
  }
}

/* A failure that may be the container's death rather than the exec's own:
 * the engine's error status (409, 5xx) or a lost connection. Not a caller's
 * error (400, 401, 403), a cancellation or a deadline: those are answered
 * as what they are. */
static int may_be_death(const sbio_sdk_http_response *resp) {
  switch (resp->outcome) {
  case SBIO_SDK_HTTP_CANCELLED:
  case SBIO_SDK_HTTP_TIMEOUT:
  case SBIO_SDK_HTTP_SLOW:
  case SBIO_SDK_HTTP_NOMEM:
    return 0;
  default:
    break;
  }
  if (sbio__dk_no_answer(resp)) return 1;
  return resp->status == 409 || resp->status >= 500;
}

/* Whether the container has stopped or is gone, from one inspect within
 * the caller's deadline. While a container dies, Podman answers an exec
 * with texts that say nothing of it (OBSERVED, Podman 4.3: a 500 "does not
 * exist in database", a started exec whose runc "cannot exec in a stopped
 * container" and exits 125, a 127 "namespace path: lstat /proc/N/ns/ipc:
 * no such file or directory"), so the container's own state decides.
 * Unknown (the engine did not answer) is not gone. */
static int container_died(exec_run *r) {
  sbio_sdk_subcall budget;
  sbio_sdk_call_narrow(&budget, r->call, DK_PROBE_BUDGET_S);
  return sbio__dk_container_running(r->sb->inst, r->sb->id, &budget.call, &r->container_exit) == 0;
}

/* The exit codes of an exec the runtime could not run or that was killed:
 * Podman's own failure (125), the runtime's cannot run / not found
 * (126, 127), SIGKILL (137, what a stopping container's processes get). */
static int death_exit_code(int code) {
  return code == 125 || code == 126 || code == 127 || code == 137;
}

static int gone_error(exec_run *r, sbio_bk_error *err) {
  return sbio_sdk_error(err, SBIO_E_GONE, "the container stopped or was removed; create a new sandbox",
                        "docker: sandbox %s no longer exists (its container stopped or was removed during the "
                        "exec)",
                        r->sb->short_id);
}

/* The stream ended: the exit code, waiting briefly if the engine has not
 * recorded it yet. */
static int finish(exec_run *r, int *exit_code, sbio_bk_error *err) {
  dk_instance *inst = r->sb->inst;
  sbio_bk_call after;
  sbio_sdk_call_cleanup_bounded(&after, r->call, AFTER_S);
  int no_code = 0;
  for (int i = 0;; i++) {
    dk_exec_state st;
    sbio_sdk_http_response resp;
    int rc = sbio__dk_exec_inspect(inst, r->exec_id, &after, &st, &resp);
    if (rc != 0 && sbio__dk_no_answer(&resp)) {
      /* The stream ended because the engine went away. */
      rc = sbio_sdk_error(err, SBIO_E_EXEC, "check that the Docker engine is running (it may have restarted)",
                          "docker: lost the connection to the Docker engine at %s during the exec in sandbox %s "
                          "(%s)",
                          inst->endpoint.display, r->sb->short_id, resp.error);
      sbio_sdk_http_response_free(&resp);
      return rc;
    }
    if (rc != 0 && may_be_death(&resp) && container_died(r)) {
      sbio_sdk_http_response_free(&resp);
      return gone_error(r, err);
    }
    if (rc != 0) {
      rc = sbio__dk_fail(inst, &resp, SBIO_E_EXEC, SBIO_E_EXEC, "read the exit code (exec inspect)", err);
      sbio_sdk_http_response_free(&resp);
      return rc;
    }
    sbio_sdk_http_response_free(&resp);
    if (!st.found) {
      if (sbio__dk_container_running(inst, r->sb->id, &after, NULL) == 0) return gone_error(r, err);
      return sbio_sdk_error(err, SBIO_E_EXEC, NULL,
                            "docker: the engine forgot exec %.12s before its exit code "
                            "was read",
                            r->exec_id);
    }
    /* A runtime failure or a kill is the container's death when the
     * container is no longer running; in a running one (a command not
     * found) it is the command's answer. */
    if (!st.running && st.has_exit && death_exit_code(st.exit_code) && container_died(r)) return gone_error(r, err);
    if (!st.running && st.has_exit) {
      const char *program = r->req->shell ? "/bin/sh" : r->req->argv[0];
      *exit_code = sbio__dk_attach_finish(&r->io, st.exit_code, st.pid, program);
      return SBIO_OK;
    }
    no_code = !st.running; /* ended, yet no numeric ExitCode */
    if (i >= 20 || sbio_bk_remaining_ns(&after) == 0) break;
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  if (no_code)
    return sbio_sdk_error(err, SBIO_E_EXEC, NULL,
                          "docker: exec %.12s ended, but the engine's exec inspect has no numeric ExitCode",
                          r->exec_id);
  return sbio_sdk_error(err, SBIO_E_EXEC, NULL, "docker: exec %.12s ended its stream but is still running", r->exec_id);
}

/* The connection broke mid-stream: the container died, or the engine, or
 * (Podman) the process ended without reading all of its stdin: Podman then
 * closes the attach connection with our unread bytes in it, which arrives
 * as a reset, not an EOF. The exec's own record tells them apart. */
static int lost(exec_run *r, int *exit_code, sbio_bk_error *err) {
  dk_instance *inst = r->sb->inst;
  sbio_bk_call budget;
  sbio_sdk_call_cleanup_bounded(&budget, r->call, DK_PROBE_BUDGET_S);
  int state = sbio__dk_container_running(inst, r->sb->id, &budget, NULL);
  if (state == 0) return gone_error(r, err);
  dk_exec_state st;
  sbio_sdk_http_response resp;
  int rc = state == 1 ? sbio__dk_exec_inspect(inst, r->exec_id, &budget, &st, &resp) : -1;
  if (state == 1) sbio_sdk_http_response_free(&resp);
  if (rc == 0 && st.found && !st.running && st.has_exit) {
    *exit_code = st.exit_code;
    return SBIO_OK;
  }
  return sbio_sdk_error(err, SBIO_E_EXEC, "check that the Docker engine is running (it may have restarted)",
                        "docker: lost the connection to the Docker engine at %s during the exec in sandbox %s",
                        inst->endpoint.display, r->sb->short_id);
}

/* The caller cancelled this exec (and only it): kill its processes as a
 * deadline does, keep the sandbox. The upgrade may have been cut short
 * after the engine started the process, so this also runs then. */
static int cancelled(exec_run *r, const char *token, int *exit_code, sbio_bk_error *err) {
  *exit_code = 137;
  char how[256] = "";
  if (sbio__dk_exec_kill(r->sb, r->exec_id, token, r->call, how, sizeof how) != 0)
    return sbio_sdk_error(err, SBIO_E_EXEC, "the sandbox may still run the command; kill the sandbox to be sure",
                          "docker: the exec in sandbox %s was cancelled, %s", r->sb->short_id, how);
  return sbio_sdk_error(err, SBIO_E_CANCELLED, NULL,
                        "docker: command cancelled by its caller and killed (%s); sandbox %s is still usable", how,
                        r->sb->short_id);
}

static int run(exec_run *r, const char *token, int64_t start, int *exit_code, sbio_bk_error *err) {
  dk_instance *inst = r->sb->inst;
  char path[160];
  snprintf(path, sizeof path, "/exec/%s/start", r->exec_id);
  sbio_sdk_http_response resp;
  sbio_sdk_http_conn *conn = NULL;
  if (sbio__dk_upgrade(inst, path, "{\"Detach\":false,\"Tty\":false}", r->call, &conn, &resp) != 0 || !conn) {
    int rc;
    if (resp.outcome == SBIO_SDK_HTTP_CANCELLED && sbio_bk_exec_cancelled(r->call) && !atomic_load(&r->sb->killed)) {
      rc = cancelled(r, token, exit_code, err);
    } else if (resp.outcome == SBIO_SDK_HTTP_CANCELLED) {
      *exit_code = 137;
      rc = SBIO_OK;
    } else if (resp.outcome == SBIO_SDK_HTTP_TIMEOUT) {
      char how[256] = "";
      sbio__dk_exec_kill(r->sb, r->exec_id, token, r->call, how, sizeof how);
      rc = sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout",
                          "docker: the exec did not start before its deadline (%s)", how);
    } else if (sbio__dk_container_gone(&resp) || (may_be_death(&resp) && container_died(r))) {
      rc = gone_error(r, err);
    } else {
      rc = sbio__dk_fail(inst, &resp, SBIO_E_EXEC, SBIO_E_EXEC_TIMEOUT, "start the exec", err);
    }
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  sbio_sdk_http_response_free(&resp);
  sbio__dk_attach_begin(&r->io, inst, conn, r->req, r->call, 0);
  outcome end = pump(r);
  sbio__dk_attach_close(&r->io);
  switch (end) {
  case END_EOF:
    return finish(r, exit_code, err);
  case END_CANCELLED:
    *exit_code = 137;
    return SBIO_OK; /* the sandbox is being killed */
  case END_EXEC_CANCELLED:
    return cancelled(r, token, exit_code, err);
  case END_GONE:
    *exit_code = 137;
    return gone_error(r, err);
  case END_LOST:
    *exit_code = 137;
    return lost(r, exit_code, err);
  case END_BROKEN:
    return finish(r, exit_code, err);
  case END_DEADLINE:
    break;
  }
  *exit_code = 137;
  char how[256] = "";
  int killed = sbio__dk_exec_kill(r->sb, r->exec_id, token, r->call, how, sizeof how) == 0;
  double span = (double)(r->call->deadline_ns - start) / 1e9;
  if (!killed)
    return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT,
                          "the Docker engine did not answer in time; the sandbox's lifetime backstop ends the command",
                          "docker: command exceeded its %.3g s deadline; sbio tried to kill it, %s", span, how);
  return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout if the command needs longer",
                        "docker: command exceeded its %.3g s deadline and was killed (%s)", span, how);
}

int sbio__dk_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                     sbio_bk_error *err) {
  dk_sandbox *sb = sandbox;
  if (!sb || !req || !call || !exit_code || (!req->shell && (!req->argv || req->argc == 0)))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker exec: needs a sandbox and a command");
  *exit_code = -1;
  if (atomic_load(&sb->killed))
    return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox", "docker: sandbox %s was killed", sb->short_id);
  dk_instance *inst = sb->inst;
  int64_t start = sbio__dk_now(inst);
  int rc = sbio__dk_engine_ready(inst, call, SBIO_E_EXEC, err);
  if (rc != SBIO_OK) return rc;
  char token[40];
  if (make_token(token, sizeof token) != 0)
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "docker exec: no randomness for the exec token");
  char *body = exec_body(req, token);
  if (!body) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory building the exec request");
  exec_run r = {.sb = sb, .req = req, .call = call};
  sbio_sdk_http_response resp;
  int created = sbio__dk_exec_create(inst, sb->id, body, call, r.exec_id, sizeof r.exec_id, &resp);
  free(body);
  if (created != 0) {
    if (resp.outcome == SBIO_SDK_HTTP_CANCELLED && sbio_bk_exec_cancelled(call) && !atomic_load(&sb->killed)) {
      /* Nothing was started: an exec that is created is not yet running. */
      rc = sbio_sdk_error(err, SBIO_E_CANCELLED, NULL, "docker: command cancelled by its caller before it started");
    } else if (resp.outcome == SBIO_SDK_HTTP_CANCELLED) {
      *exit_code = 137; /* killed before it started: as if killed while running */
      rc = SBIO_OK;
    } else if (sbio__dk_container_gone(&resp) || (may_be_death(&resp) && container_died(&r)))
      rc = gone_error(&r, err);
    else
      rc = sbio__dk_fail(inst, &resp, SBIO_E_EXEC, SBIO_E_EXEC_TIMEOUT, "create the exec", err);
    sbio_sdk_http_response_free(&resp);
    return rc;
  }
  sbio_sdk_http_response_free(&resp);
  rc = run(&r, token, start, exit_code, err);
  if (rc == SBIO_OK) rc = sbio__dk_attach_check(&r.io, sb->short_id, err);
  sbio__dk_attach_flush(&r.io); /* whatever was held is the command's */
  return rc;
}
