/* SPDX-License-Identifier: MIT */
/* exec through the toolbox's process/execute. Daytona answers once the
 * command has ended, with stdout and stderr as one combined text, so output
 * arrives in one piece on stream 1 (the backend declares neither streaming
 * nor separate stderr). The exec's request is bounded by the caller's
 * deadline like every other wait. Its `timeout` is that deadline rounded up
 * to whole seconds (Daytona's unit), so the daemon kills the process group
 * by itself at most a second later (the backstop). At the deadline the exec
 * stops waiting and runs its kill step: the token killer below, on a call
 * of its own (every backend kills after the deadline, each with a small
 * bounded budget). So an exec returns at most SBIO_SDK_CLEANUP_MARGIN_S past
 * its deadline, SBX_E1302 either way, and says so when the kill could not
 * be confirmed.
 *
 * Cancelling one exec (ABI 1.3): the toolbox has no call that kills one
 * command of process/execute, and the daemon does not kill a command whose
 * request was abandoned. So every command carries SBIO_EXEC_ID=<random
 * token> in its environment, and a cancellation runs a second, short
 * process/execute that SIGKILLs every process carrying it (the command and
 * what it started; children inherit the environment), as the docker backend
 * does at a deadline. The sandbox stays. A deadline's kill step is the
 * same killer. */
#include "ops.h"

#include "errmap.h"
#include "request.h"
#include "shquote.h"
#include "toolbox.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define KILLED_EXIT 137
#define EXEC_TOKEN_VAR "SBIO_EXEC_ID"
/* The killer of a cancelled or timed-out command, on a call of its own
 * (docs/backends/daytona.md). The killer itself is quick (a few grep runs);
 * the budget is the margin for a loaded machine. It is bounded by the
 * exec's deadline plus SBIO_SDK_CLEANUP_MARGIN_S: a cancel well before the
 * deadline gets all of it, the kill at a deadline ends within that margin. */
#define KILL_BUDGET_S 10.0

/* $1 is the token. Each pass lists the processes whose environment carries
 * it (one grep over every /proc/PID/environ, whatever the number of
 * processes: a loop forking `cat` per process took seconds on a busy host)
 * and SIGKILLs them; it repeats until a pass finds none, which catches what
 * forked meanwhile and waits for the killed ones to go (a zombie's environ
 * is empty). So exit 0 means the command is confirmed gone. Exit 2: no grep
 * or no /proc, nothing could be checked; exit 1: something survived. */
static const char kill_script[] =
    "t=\"" EXEC_TOKEN_VAR "=$1\"; command -v grep >/dev/null 2>&1 && [ -r /proc/self/environ ] || exit 2; "
    "n=0; while [ \"$n\" -lt 100 ]; do "
    "p=$(grep -l -s -F -e \"$t\" /proc/[0-9]*/environ); [ -z \"$p\" ] && exit 0; "
    "for f in $p; do f=\"${f%/environ}\"; kill -9 \"${f#/proc/}\" 2>/dev/null; done; "
    "n=$((n+1)); sleep 0.05 2>/dev/null; done; exit 1";

static int make_token(char *out, size_t size) {
  unsigned char raw[16];
  if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) return -1;
  for (size_t i = 0; i < sizeof raw && 2 * i + 2 < size; i++) snprintf(out + 2 * i, 3, "%02x", raw[i]);
  return 0;
}

/* Kills every process of the cancelled or timed-out command, on a call of
 * its own (the exec's is cancelled or past its deadline). 0 when the killer
 * confirmed that none is left, 1 when it answered otherwise, -1 when no
 * answer came within the budget (its length in *budget_s). */
static int kill_by_token(dt_sandbox *sb, const sbio_bk_call *exec_call, const char *token, double *budget_s) {
  sbio_bk_call budget;
  sbio_sdk_call_cleanup_bounded(&budget, exec_call, KILL_BUDGET_S);
  *budget_s = (double)sbio_bk_remaining_ns(&budget) / 1e9;
  double daytona_s = ceil(*budget_s); /* Daytona's whole seconds: its backstop for the killer */
  dt_ctx kctx;
  sbio_bk_error ignored = {.size = sizeof ignored};
  if (sbio__dt_ctx_init(&kctx, sb->inst, &budget, &sb->killed, &ignored) != SBIO_OK) return -1;
  char command[1024];
  snprintf(command, sizeof command, "sh -c '%s' sbio-kill %s", kill_script, token);
  cJSON *body = cJSON_CreateObject();
  char *text = NULL;
  if (body && cJSON_AddStringToObject(body, "command", command) &&
      cJSON_AddNumberToObject(body, "timeout", daytona_s < 1 ? 1 : daytona_s))
    text = cJSON_PrintUnformatted(body);
  cJSON_Delete(body);
  int rc = -1;
  if (text) {
    sbio_sdk_http_request hreq = sbio__dt_request(&kctx, "POST", "/process/execute");
    hreq.body = text;
    hreq.body_len = strlen(text);
    sbio_sdk_http_response resp;
    sbio_sdk_http_send(sb->toolbox, &hreq, &kctx.call, &resp);
    if (sbio__dt_ok(&resp)) {
      cJSON *doc = cJSON_ParseWithLength(resp.body ? resp.body : "", resp.len);
      const cJSON *code = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "exitCode") : NULL;
      rc = cJSON_IsNumber(code) && code->valuedouble == 0 ? 0 : 1;
      cJSON_Delete(doc);
    }
    sbio_sdk_http_response_free(&resp);
  }
  free(text);
  sbio__dt_ctx_done(&kctx);
  return rc;
}

/* Why kill_by_token() did not confirm the kill, for an error message. */
static const char *kill_failure(int killed, double budget_s, char *buf, size_t size) {
  if (killed > 0) return "could not confirm that every process of the command ended";
  snprintf(buf, size, "did not finish within %.1f s", budget_s);
  return buf;
}

static char *request_body(dt_ctx *ctx, dt_sandbox *sb, const sbio_bk_exec_req *req, const sbio_bk_call *call,
                          const char *token, sbio_bk_error *err) {
  for (size_t i = 0; i < req->n_env; i++)
    if (!sbio__dt_env_name_ok(req->env[i].key)) {
      sbio_sdk_error(err, SBIO_E_CONFIG, "names are letters, digits and '_', not starting with a digit",
                     "environment variable name '%.80s' is not valid", req->env[i].key ? req->env[i].key : "");
      return NULL;
    }
  char cwd[4096];
  if (req->cwd && sbio__dt_abs_path(ctx, sb, req->cwd, cwd, sizeof cwd, err) != SBIO_OK) return NULL;
  char *command = req->shell ? strdup(req->shell) : sbio__dt_shell_join(req->argv, req->argc);
  double timeout = ceil((double)sbio_bk_remaining_ns(call) / 1e9); /* the command's own deadline */
  cJSON *body = cJSON_CreateObject(), *envs = NULL;
  int bad = !command || !body || !cJSON_AddStringToObject(body, "command", command) ||
            !cJSON_AddNumberToObject(body, "timeout", timeout < 1 ? 1 : timeout) ||
            (req->cwd && !cJSON_AddStringToObject(body, "cwd", cwd));
  if (!bad) {
    envs = cJSON_AddObjectToObject(body, "envs");
    for (size_t i = 0; envs && i < req->n_env; i++) {
      cJSON_DeleteItemFromObjectCaseSensitive(envs, req->env[i].key);
      if (!cJSON_AddStringToObject(envs, req->env[i].key, req->env[i].value ? req->env[i].value : "")) envs = NULL;
    }
    /* Last, so no caller variable can replace the mark a cancellation
     * finds the command's processes by. */
    if (envs) cJSON_DeleteItemFromObjectCaseSensitive(envs, EXEC_TOKEN_VAR);
    if (envs && !cJSON_AddStringToObject(envs, EXEC_TOKEN_VAR, token)) envs = NULL;
    bad = !envs;
  }
  char *text = bad ? NULL : cJSON_PrintUnformatted(body);
  cJSON_Delete(body);
  free(command);
  if (!text) sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory preparing a command for Daytona");
  return text;
}

/* The 200 answer: {"exitCode": n, "result": "..."} ("code" on very old
 * daemons). */
static int deliver(dt_sandbox *sb, const sbio_sdk_http_response *resp, const sbio_bk_exec_req *req, int *exit_code,
                   sbio_bk_error *err) {
  cJSON *doc = cJSON_ParseWithLength(resp->body ? resp->body : "", resp->len);
  const cJSON *code = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "exitCode") : NULL;
  if (!cJSON_IsNumber(code) && cJSON_IsObject(doc)) code = cJSON_GetObjectItemCaseSensitive(doc, "code");
  const cJSON *result = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "result") : NULL;
  int rc = SBIO_OK;
  if (!cJSON_IsNumber(code)) {
    rc =
        sbio_sdk_error(err, SBIO_E_EXEC, NULL, "Daytona's answer for a command in sandbox %s has no exit code", sb->id);
  } else if (code->valuedouble == -1) {
    /* The daemon could not start it (a missing cwd, no shell). */
    char why[301] = "no reason given";
    if (cJSON_IsString(result))
      sbio_sdk_quote_provider(&sb->inst->host, sb->inst->secrets, result->valuestring, strlen(result->valuestring), why,
                              sizeof why);
    rc = sbio_sdk_error(err, SBIO_E_EXEC, NULL, "Daytona could not start the command in sandbox %s: %s", sb->id, why);
  } else {
    double v = code->valuedouble;
    *exit_code = (v >= 0 && v <= 255 && v == floor(v)) ? (int)v : KILLED_EXIT;
    if (cJSON_IsString(result) && result->valuestring[0] && req->output)
      req->output(req->output_user, 1, result->valuestring, strlen(result->valuestring));
  }
  cJSON_Delete(doc);
  return rc;
}

int sbio__dt_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                     sbio_bk_error *err) {
  dt_sandbox *sb = sandbox;
  if (!sb || !req || !call || !exit_code || (!req->shell && (!req->argv || !req->argc)))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona exec: missing argument");
  *exit_code = -1;
  if (req->has_stdin) return sbio_sdk_error(err, SBIO_E_CAPABILITY, NULL, "Daytona's process/execute takes no stdin");
  if (atomic_load(&sb->killed))
    return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox", "sandbox %s was killed", sb->id);
  if (sbio_bk_remaining_ns(call) <= 0) {
    *exit_code = KILLED_EXIT;
    return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, NULL, "the command's deadline passed before it started");
  }
  dt_ctx ctx;
  int rc = sbio__dt_ctx_init(&ctx, sb->inst, call, &sb->killed, err);
  char token[40];
  if (rc == SBIO_OK && make_token(token, sizeof token) != 0)
    rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "daytona exec: no randomness for the exec token");
  char *body = rc == SBIO_OK ? request_body(&ctx, sb, req, call, token, err) : NULL;
  if (rc == SBIO_OK && !body) rc = err->code ? err->code : SBIO_E_INTERNAL;
  if (rc != SBIO_OK) {
    free(body);
    sbio__dt_ctx_done(&ctx);
    return rc;
  }
  char what[200];
  snprintf(what, sizeof what, "running a command in sandbox %s", sb->id);
  dt_op op = {what, SBIO_E_EXEC, SBIO_E_GONE, SBIO_E_EXEC_TIMEOUT};
  sbio_sdk_http_request hreq = sbio__dt_request(&ctx, "POST", "/process/execute");
  hreq.body = body;
  hreq.body_len = strlen(body);
  hreq.timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT; /* as long as the command may run, not one request's limit */
  sbio_sdk_http_response resp;
  sbio_sdk_http_send(sb->toolbox, &hreq, &ctx.call, &resp); /* bounded by the exec's own deadline */
  int stopped = resp.outcome == SBIO_SDK_HTTP_CANCELLED || (!sbio__dt_ok(&resp) && sbio__dt_cancelled(&ctx));
  if (stopped && sbio_bk_exec_cancelled(call) && !atomic_load(&sb->killed)) {
    /* Only this command was cancelled: kill it, keep the sandbox. SBX_E1902
     * only once the killer confirmed that none of its processes is left. */
    *exit_code = KILLED_EXIT;
    char why[80];
    double budget_s = 0;
    int killed = kill_by_token(sb, call, token, &budget_s);
    if (killed == 0)
      rc = sbio_sdk_error(err, SBIO_E_CANCELLED, NULL,
                          "command cancelled by its caller and killed (SIGKILL to every process of the command); "
                          "sandbox %s is still usable",
                          sb->id);
    else
      rc = sbio_sdk_error(err, SBIO_E_EXEC, "the sandbox may still run the command; kill the sandbox to be sure",
                          "the command in sandbox %s was cancelled, but the command that kills it %s", sb->id,
                          kill_failure(killed, budget_s, why, sizeof why));
  } else if (!stopped && resp.outcome == SBIO_SDK_HTTP_TIMEOUT) {
    /* The deadline came before Daytona's answer: the kill step, on its own
     * budget (the daemon's own timeout is only the backstop). */
    *exit_code = KILLED_EXIT;
    char why[80];
    double budget_s = 0;
    int killed = kill_by_token(sb, call, token, &budget_s);
    if (killed == 0)
      rc = sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout if the command needs longer",
                          "the command in sandbox %s did not finish before its deadline and was killed "
                          "(SIGKILL to every process of the command); the sandbox is still usable",
                          sb->id);
    else
      rc = sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT,
                          "the sandbox may still run the command until Daytona's own timeout; kill the sandbox to be "
                          "sure",
                          "the command in sandbox %s did not finish before its deadline, and the command that kills "
                          "it %s",
                          sb->id, kill_failure(killed, budget_s, why, sizeof why));
  } else if (stopped) {
    /* The sandbox is being killed: the command died with it, whatever the
     * toolbox managed to answer before the connection went. */
    *exit_code = KILLED_EXIT;
  } else if (sbio__dt_ok(&resp)) {
    rc = deliver(sb, &resp, req, exit_code, err);
  } else {
    int answered = resp.outcome == SBIO_SDK_HTTP_ANSWERED;
    if (answered && resp.status == 408) *exit_code = KILLED_EXIT; /* the daemon's own kill */
    if (answered && (resp.status == 404 || resp.status == 409))
      rc = sbio__dt_toolbox_gone(&ctx, sb->id, what, err); /* the proxy: no such sandbox, or not running */
    if (rc == SBIO_OK) rc = sbio__dt_fail(&ctx, &op, &resp, err);
  }
  sbio_sdk_http_response_free(&resp);
  free(body);
  sbio__dt_ctx_done(&ctx);
  return rc;
}
