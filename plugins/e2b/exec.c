/* SPDX-License-Identifier: MIT */
/* exec: process.Process/Start as a Connect server stream. Output is
 * decoded envelope by envelope as bytes arrive and handed to the caller at
 * once. Next to the stream, in the same SDK transfer group, go stdin
 * (SendInput, then CloseStdin). The group is bounded by the caller's call,
 * so nothing here outlives the exec's deadline; once it passed, the
 * command is killed (SendSignal SIGKILL) on a short clean-up call of its
 * own, as the kill step of an exec is everywhere. A caller's cancellation
 * of this one exec (ABI 1.3) kills it the same way and keeps the sandbox. */
#include "api.h"
#include "b64.h"
#include "envelope.h"
#include "errmap.h"
#include "execreq.h"
#include "procevent.h"
#include "rpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STDIN_CHUNK ((size_t)64 * 1024)
#define ENVD_GRACE_MS 5000    /* envd's own deadline trails ours: it kills the command if we cannot */
#define SIDE_TIMEOUT_MS 10000 /* one stdin or close request */
#define KILL_BUDGET_S 10.0    /* the SIGKILL after the deadline */
#define CLEANUP_BUDGET_S 10.0 /* finding out why a stream broke, and killing what it left */
#define STEP_MS 20

typedef struct side {
  sbio_sdk_http_request req;
  char *body;
  sbio_sdk_http_transfer *t;
} side;

typedef struct exec_run {
  e2b_sandbox *sb;
  const sbio_bk_exec_req *req;
  const sbio_bk_call *call;
  sbio_sdk_http_group *group;
  e2b_env_parser parser;
  e2b_env_status parse_status;
  e2b_proc_events ev;
  sbio_sdk_http_request sreq;
  unsigned char *sbody;
  char timeout_header[64], keepalive_header[64];
  const char *sheaders[3];
  sbio_sdk_http_transfer *st;
  int want_stdin, stdin_closed, stdin_failed;
  size_t stdin_off;
  side input;
  int64_t started_ns;
} exec_run;

static int on_stream(void *user, const char *data, size_t len) {
  exec_run *r = user;
  r->parse_status = sbio__e2b_env_feed(&r->parser, data, len, sbio__e2b_proc_on_envelope, &r->ev);
  return r->parse_status != E2B_ENV_OK;
}

/* ------------------------------------------------------- side requests */
static const char *const connect_headers[] = {E2B_CONNECT_HEADER};

static void side_end(exec_run *r, side *s) {
  if (s->t) sbio_sdk_http_transfer_free(r->group, s->t);
  free(s->body);
  memset(s, 0, sizeof *s);
}

/* Starts a unary call next to the stream; takes `body`. */
static int side_start(exec_run *r, side *s, const char *method, char *body) {
  s->body = body;
  if (!body) return -1;
  s->req = (sbio_sdk_http_request){.method = "POST",
                                   .path = method,
                                   .headers = connect_headers,
                                   .n_headers = 1,
                                   .body = body,
                                   .body_len = strlen(body),
                                   .timeout_ms = SIDE_TIMEOUT_MS};
  s->t = sbio_sdk_http_group_start(r->group, &s->req);
  if (!s->t) {
    side_end(r, s);
    return -1;
  }
  return 0;
}

/* Feeds stdin one chunk at a time, in order, then closes it. */
static void pump_stdin(exec_run *r) {
  if (r->input.t && sbio_sdk_http_transfer_done(r->input.t)) {
    if (sbio_sdk_http_transfer_response(r->input.t)->status != 200) r->stdin_failed = 1; /* e.g. the process exited */
    side_end(r, &r->input);
  }
  if (!r->want_stdin || r->stdin_closed || r->stdin_failed || !r->ev.started || r->input.t) return;
  size_t left = r->req->stdin_len - r->stdin_off;
  if (left > 0) {
    size_t n = left < STDIN_CHUNK ? left : STDIN_CHUNK;
    char *b64 = sbio__e2b_b64_encode(r->req->stdin_data + r->stdin_off, n);
    char *body = b64 ? sbio__e2b_input_request(r->ev.pid, b64) : NULL;
    free(b64);
    r->stdin_off += n;
    if (side_start(r, &r->input, "process.Process/SendInput", body) != 0) r->stdin_failed = 1;
  } else {
    r->stdin_closed = 1;
    if (side_start(r, &r->input, "process.Process/CloseStdin", sbio__e2b_input_request(r->ev.pid, NULL)) != 0)
      r->stdin_failed = 1;
  }
}

/* --------------------------------------------------------------- start */
static int start_stream(exec_run *r, sbio_bk_error *err) {
  char *json = sbio__e2b_start_request(r->sb, r->req, r->want_stdin, err);
  if (!json) return err->code;
  size_t body_len = 0;
  r->sbody = sbio__e2b_env_wrap(json, strlen(json), &body_len);
  free(json);
  if (!r->sbody) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  /* envd kills the process itself at this deadline if we cannot. */
  snprintf(r->timeout_header, sizeof r->timeout_header, "Connect-Timeout-Ms: %lld",
           (long long)(sbio_bk_remaining_ns(r->call) / 1000000) + ENVD_GRACE_MS);
  snprintf(r->keepalive_header, sizeof r->keepalive_header, "Keepalive-Ping-Interval: %d",
           r->sb->inst->settings.keepalive_s);
  r->sheaders[0] = E2B_CONNECT_HEADER;
  r->sheaders[1] = r->timeout_header;
  r->sheaders[2] = r->keepalive_header;
  r->sreq = (sbio_sdk_http_request){.method = "POST",
                                    .path = "process.Process/Start",
                                    .headers = r->sheaders,
                                    .n_headers = 3,
                                    .body = r->sbody,
                                    .body_len = body_len,
                                    .content_type = "application/connect+json",
                                    .sink = on_stream,
                                    .sink_user = r,
                                    .timeout_ms = SBIO_SDK_HTTP_NO_TIMEOUT};
  r->st = sbio_sdk_http_group_start(r->group, &r->sreq);
  if (!r->st) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  return SBIO_OK;
}

static void run_loop(exec_run *r) {
  while (!sbio_sdk_http_transfer_done(r->st)) {
    pump_stdin(r);
    if (sbio_sdk_http_group_wait(r->group, STEP_MS) < 0) break;
  }
}

/* ------------------------------------------------------------- results */
/* SIGKILL for the command, on a call of its own: the exec's has ended. */
static int kill_command(exec_run *r) {
  char *body = sbio__e2b_signal_request(r->ev.pid, "SIGNAL_SIGKILL");
  cJSON *msg = body ? cJSON_Parse(body) : NULL, *out = NULL;
  free(body);
  if (!msg) return -1;
  sbio_bk_call c;
  sbio_sdk_call_cleanup(&c, r->call, KILL_BUDGET_S);
  sbio_bk_error ignored = {.size = sizeof ignored};
  int rc = sbio__e2b_rpc(r->sb, &c, "process.Process/SendSignal", msg, 1, "kill the command", SBIO_E_EXEC, SBIO_E_EXEC,
                         &out, NULL, 0, &ignored);
  cJSON_Delete(msg);
  cJSON_Delete(out);
  return rc == SBIO_OK ? 0 : -1;
}

/* The stream ended without its end: find out whether the sandbox is gone;
 * if not, make sure the command does not run on unobserved. */
static int stream_broke(exec_run *r, const char *why, sbio_bk_error *err) {
  sbio_bk_call c;
  sbio_sdk_call_cleanup(&c, r->call, CLEANUP_BUDGET_S);
  sbio_bk_error probe = {.size = sizeof probe};
  cJSON *detail = NULL;
  int found = 1;
  if (sbio__e2b_api_get(r->sb->inst, &c, r->sb->id, &detail, &found, &probe) == SBIO_OK && !found)
    return sbio_sdk_error(err, SBIO_E_GONE, "its lifetime may have ended; create a new sandbox",
                          "e2b: sandbox %s vanished while the command ran (%s)", r->sb->id, why);
  cJSON_Delete(detail);
  if (r->ev.started) kill_command(r);
  return sbio_sdk_error(err, SBIO_E_EXEC, "run it again; check the network path to E2B",
                        "e2b: the output stream of the command in sandbox %s broke off before its end (%s); the "
                        "command was killed",
                        r->sb->id, why);
}

static int end_of_stream_error(exec_run *r, sbio_bk_error *err) {
  const char *code = r->ev.eos_code;
  if (strcmp(code, "deadline_exceeded") == 0)
    return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout",
                          "e2b: envd stopped the command at its deadline (%s)", r->ev.eos_message);
  if (strcmp(code, "unauthenticated") == 0 || strcmp(code, "permission_denied") == 0)
    return sbio_sdk_error(err, SBIO_E_AUTH, NULL, "e2b: envd of sandbox %s refused the command: %s (%s)", r->sb->id,
                          r->ev.eos_message, code);
  return sbio_sdk_error(err, SBIO_E_EXEC, NULL, "e2b: envd %s the command in sandbox %s: %s (%s)",
                        r->ev.started ? "failed while running" : "could not start", r->sb->id, r->ev.eos_message, code);
}

static int timed_out(exec_run *r, int *exit_code, sbio_bk_error *err) {
  /* Nothing to kill before the start event: envd's own deadline
   * (Connect-Timeout-Ms) ends a command that starts after all. */
  int killed = r->ev.started && !r->ev.ended && kill_command(r) == 0;
  *exit_code = r->ev.ended ? sbio__e2b_proc_exit_status(&r->ev) : 137;
  double span = (double)(r->call->deadline_ns - r->started_ns) / 1e9;
  return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout",
                        "e2b: the command did not finish within its %.3g s deadline%s", span,
                        killed ? " and was killed (SIGKILL)" : "");
}

/* The caller cancelled this exec (ABI 1.3): SIGKILL for the command
 * (envd does not kill a command whose client went away), the sandbox
 * stays. Before envd reported the start there is no pid to signal; envd's
 * own deadline (the exec's, plus ENVD_GRACE_MS) then ends a command that
 * starts after all, and the message says so. */
static int cancelled(exec_run *r, int *exit_code, sbio_bk_error *err) {
  *exit_code = 137;
  if (r->ev.ended) {
    *exit_code = sbio__e2b_proc_exit_status(&r->ev);
    return sbio_sdk_error(err, SBIO_E_CANCELLED, NULL,
                          "e2b: command cancelled by its caller as it ended; sandbox %s is still usable", r->sb->id);
  }
  if (!r->ev.started)
    return sbio_sdk_error(err, SBIO_E_CANCELLED, NULL,
                          "e2b: command cancelled by its caller before envd reported its start (envd ends it at its "
                          "deadline if it started); sandbox %s is still usable",
                          r->sb->id);
  if (kill_command(r) != 0)
    return sbio_sdk_error(err, SBIO_E_EXEC, "the sandbox may still run the command; kill the sandbox to be sure",
                          "e2b: the command in sandbox %s was cancelled, but envd did not take the SIGKILL", r->sb->id);
  return sbio_sdk_error(err, SBIO_E_CANCELLED, NULL,
                        "e2b: command cancelled by its caller and killed (SIGKILL); sandbox %s is still usable",
                        r->sb->id);
}

static int result(exec_run *r, int *exit_code, sbio_bk_error *err) {
  const sbio_sdk_http_response *resp = sbio_sdk_http_transfer_response(r->st);
  *exit_code = -1;
  if (resp->outcome == SBIO_SDK_HTTP_CANCELLED && sbio_bk_exec_cancelled(r->call) && !atomic_load(&r->sb->killed))
    return cancelled(r, exit_code, err);
  if (resp->outcome == SBIO_SDK_HTTP_CANCELLED) {
    *exit_code = 137; /* the sandbox is being killed: the command goes with it */
    return SBIO_OK;
  }
  if (resp->outcome == SBIO_SDK_HTTP_TIMEOUT) return timed_out(r, exit_code, err);
  if (r->ev.bad) return sbio_sdk_error(err, SBIO_E_EXEC, NULL, "e2b: envd sent a malformed stream: %s", r->ev.bad_what);
  if (r->parse_status != E2B_ENV_OK)
    return sbio_sdk_error(err, SBIO_E_EXEC, NULL, "e2b: envd sent a malformed stream: %s",
                          sbio__e2b_env_status_text(r->parse_status));
  if (resp->status != 200) {
    if (resp->outcome != SBIO_SDK_HTTP_ANSWERED)
      return sbio_sdk_http_fail(r->sb->envd, resp, SBIO_SDK_OP_EXEC, "run the command", err);
    return sbio__e2b_fail_envd(r->sb, err, resp, "run the command", SBIO_E_EXEC, SBIO_E_EXEC);
  }
  if (resp->outcome != SBIO_SDK_HTTP_ANSWERED) return stream_broke(r, resp->error, err);
  if (!r->ev.eos)
    return stream_broke(
        r, sbio__e2b_env_at_boundary(&r->parser) ? "no end-of-stream message" : "it stopped inside a message", err);
  if (r->ev.eos_code[0]) return end_of_stream_error(r, err);
  if (!r->ev.ended)
    return sbio_sdk_error(err, SBIO_E_EXEC, NULL, "e2b: the stream of sandbox %s ended without the command's end",
                          r->sb->id);
  *exit_code = sbio__e2b_proc_exit_status(&r->ev);
  return SBIO_OK;
}

int sbio__e2b_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                      sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb || !req || !exit_code || !sbio__e2b_call_ok(call) || (!req->shell && (!req->argv || !req->argc)))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b exec: missing argument");
  *exit_code = -1;
  if (atomic_load(&sb->killed))
    return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox", "e2b: sandbox %s was killed", sb->id);
  if (req->has_stdin && !sbio__e2b_version_at_least(sb->envd_version, E2B_ENVD_CLOSE_STDIN))
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "rebuild the template with a newer E2B envd",
                          "e2b: sandbox %s runs envd %s, which cannot close a command's stdin (needs %s or later)",
                          sb->id, sb->envd_version, E2B_ENVD_CLOSE_STDIN);
  exec_run r;
  memset(&r, 0, sizeof r);
  r.sb = sb;
  r.req = req;
  r.call = call;
  r.want_stdin = req->has_stdin;
  r.started_ns = sbio_bk_now_ns(call);
  r.ev.output = req->output;
  r.ev.output_user = req->output_user;
  sbio__e2b_env_init(&r.parser, 0);
  int rc = sbio_sdk_http_group_new(sb->envd, call, &r.group, err);
  if (rc == SBIO_OK) rc = start_stream(&r, err);
  if (rc == SBIO_OK) {
    run_loop(&r);
    rc = result(&r, exit_code, err);
  }
  side_end(&r, &r.input);
  sbio_sdk_http_group_free(r.group);
  sbio__e2b_env_free(&r.parser);
  free(r.sbody);
  return rc;
}
