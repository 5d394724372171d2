/* SPDX-License-Identifier: MIT */
/* exec: process.Process/Start as a Connect server stream. Output is
 * decoded envelope by envelope as bytes arrive and handed to the caller at
 * once. Next to the stream, in the same curl loop, go stdin (SendInput,
 * then CloseStdin) and, past the deadline, a SIGKILL (SendSignal). */
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
#define KILL_WAIT_NS ((int64_t)3 * 1000000000)      /* for the end event after SIGKILL */
#define ENVD_GRACE_MS 5000                          /* envd's own deadline trails ours */
#define UNARY_TIMEOUT_NS ((int64_t)10 * 1000000000) /* stdin and signal calls */
#define STEP_MS 20

typedef struct unary {
  e2b_req req;
  char *url, *body;
  struct curl_slist *headers;
  e2b_xfer *x;
} unary;

typedef struct exec_run {
  e2b_sandbox *sb;
  const sbio_bk_exec_req *req;
  const sbio_bk_call *call;
  e2b_loop *loop;
  e2b_env_parser parser;
  e2b_env_status parse_status;
  e2b_proc_events ev;
  e2b_req sreq;
  char *surl;
  unsigned char *sbody;
  struct curl_slist *sheaders;
  e2b_xfer *sx;
  int want_stdin, stdin_closed, stdin_failed;
  size_t stdin_off;
  unary input, kill;
  int kill_sent, timed_out, cancelled;
  int64_t started_ns, kill_at;
} exec_run;

static int on_stream(void *user, const char *data, size_t len) {
  exec_run *r = user;
  r->parse_status = sbio__e2b_env_feed(&r->parser, data, len, sbio__e2b_proc_on_envelope, &r->ev);
  return r->parse_status != E2B_ENV_OK;
}

/* ------------------------------------------------------- side requests */
static void unary_end(exec_run *r, unary *u) {
  if (u->x) sbio__e2b_loop_remove(r->loop, u->x);
  free(u->url);
  free(u->body);
  sbio__e2b_headers_free(u->headers);
  memset(u, 0, sizeof *u);
}

/* Starts a unary call in the exec's loop; takes `body`. */
static int unary_start(exec_run *r, unary *u, const char *method, char *body) {
  u->body = body;
  u->url = sbio__e2b_envd_url(r->sb, method);
  u->headers = sbio__e2b_envd_headers(r->sb, "application/json");
  if (u->headers) u->headers = sbio__e2b_header(u->headers, "Connect-Protocol-Version", "1");
  if (!u->body || !u->url || !u->headers) {
    unary_end(r, u);
    return -1;
  }
  u->req = (e2b_req){.method = "POST",
                     .url = u->url,
                     .headers = u->headers,
                     .body = u->body,
                     .body_len = strlen(u->body),
                     .deadline_ns = sbio_bk_now_ns(r->call) + UNARY_TIMEOUT_NS};
  u->x = sbio__e2b_loop_add(r->loop, &u->req);
  if (!u->x) {
    unary_end(r, u);
    return -1;
  }
  return 0;
}

static void send_kill(exec_run *r) {
  if (r->kill_sent || !r->ev.started) return;
  r->kill_sent = 1;
  unary_start(r, &r->kill, "process.Process/SendSignal", sbio__e2b_signal_request(r->ev.pid, "SIGNAL_SIGKILL"));
}

/* Feeds stdin one chunk at a time, in order, then closes it. */
static void pump_stdin(exec_run *r) {
  if (r->input.x && sbio__e2b_xfer_done(r->input.x)) {
    if (sbio__e2b_xfer_resp(r->input.x)->status != 200) r->stdin_failed = 1; /* e.g. the process exited */
    unary_end(r, &r->input);
  }
  if (!r->want_stdin || r->stdin_closed || r->stdin_failed || !r->ev.started || r->input.x || r->timed_out) return;
  size_t left = r->req->stdin_len - r->stdin_off;
  if (left > 0) {
    size_t n = left < STDIN_CHUNK ? left : STDIN_CHUNK;
    char *b64 = sbio__e2b_b64_encode(r->req->stdin_data + r->stdin_off, n);
    char *body = b64 ? sbio__e2b_input_request(r->ev.pid, b64) : NULL;
    free(b64);
    r->stdin_off += n;
    if (unary_start(r, &r->input, "process.Process/SendInput", body) != 0) r->stdin_failed = 1;
  } else {
    r->stdin_closed = 1;
    if (unary_start(r, &r->input, "process.Process/CloseStdin", sbio__e2b_input_request(r->ev.pid, NULL)) != 0)
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
  r->surl = sbio__e2b_envd_url(r->sb, "process.Process/Start");
  char timeout_ms[24], keepalive[16];
  snprintf(timeout_ms, sizeof timeout_ms, "%ld", sbio__e2b_ms_left(r->call, r->call->deadline_ns) + ENVD_GRACE_MS);
  snprintf(keepalive, sizeof keepalive, "%d", r->sb->inst->settings.keepalive_s);
  struct curl_slist *h = sbio__e2b_envd_headers(r->sb, "application/connect+json");
  if (h) h = sbio__e2b_header(h, "Connect-Protocol-Version", "1");
  /* envd kills the process itself at this deadline if we cannot. */
  if (h) h = sbio__e2b_header(h, "Connect-Timeout-Ms", timeout_ms);
  if (h) h = sbio__e2b_header(h, "Keepalive-Ping-Interval", keepalive);
  r->sheaders = h;
  if (!r->sbody || !r->surl || !h) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  r->sreq = (e2b_req){.method = "POST",
                      .url = r->surl,
                      .headers = h,
                      .body = r->sbody,
                      .body_len = body_len,
                      .sink = on_stream,
                      .sink_user = r,
                      .deadline_ns = r->call->deadline_ns + KILL_WAIT_NS + 1000000000};
  r->sx = sbio__e2b_loop_add(r->loop, &r->sreq);
  if (!r->sx) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  return SBIO_OK;
}

static void run_loop(exec_run *r) {
  const sbio_bk_call *call = r->call;
  while (!sbio__e2b_xfer_done(r->sx)) {
    if (call->cancelled && call->cancelled(call)) {
      r->cancelled = 1; /* the sandbox is being killed: the process goes with it */
      break;
    }
    int64_t now = sbio_bk_now_ns(call);
    if (!r->timed_out && now >= call->deadline_ns) {
      r->timed_out = 1;
      r->kill_at = now;
      if (!r->ev.started) break; /* nothing to kill yet */
      send_kill(r);
    }
    if (r->timed_out && now - r->kill_at > KILL_WAIT_NS) break;
    if (r->kill.x && sbio__e2b_xfer_done(r->kill.x)) unary_end(r, &r->kill);
    pump_stdin(r);
    if (sbio__e2b_loop_step(r->loop, STEP_MS) != 0) break;
  }
}

/* ------------------------------------------------------------- results */
static sbio_bk_call cleanup_call(const sbio_bk_call *call) {
  sbio_bk_call c = *call;
  c.deadline_ns = sbio_bk_now_ns(call) + UNARY_TIMEOUT_NS;
  c.cancelled = NULL;
  return c;
}

/* The stream ended without its end: find out whether the sandbox is gone;
 * if not, make sure the command does not run on unobserved. */
static int stream_broke(exec_run *r, const char *why, sbio_bk_error *err) {
  sbio_bk_call c = cleanup_call(r->call);
  sbio_bk_error probe = {.size = sizeof probe};
  cJSON *detail = NULL;
  int found = 1;
  if (sbio__e2b_api_get(r->sb->inst, &c, r->sb->id, &detail, &found, &probe) == SBIO_OK && !found)
    return sbio_bk_error_set(err, SBIO_E_GONE, "its lifetime may have ended; create a new sandbox",
                             "e2b: sandbox %s vanished while the command ran (%s)", r->sb->id, why);
  cJSON_Delete(detail);
  if (r->ev.started) {
    char *body = sbio__e2b_signal_request(r->ev.pid, "SIGNAL_SIGKILL");
    cJSON *msg = body ? cJSON_Parse(body) : NULL, *out = NULL;
    free(body);
    if (msg)
      sbio__e2b_rpc(r->sb, &c, "process.Process/SendSignal", msg, 1, "kill the command", SBIO_E_EXEC, SBIO_E_EXEC, &out,
                    NULL, 0, &probe);
    cJSON_Delete(msg);
    cJSON_Delete(out);
  }
  return sbio_bk_error_set(err, SBIO_E_EXEC, "run it again; check the network path to E2B",
                           "e2b: the output stream of the command in sandbox %s broke off before its end (%s); the "
                           "command was killed",
                           r->sb->id, why);
}

static int end_of_stream_error(exec_run *r, sbio_bk_error *err) {
  const char *code = r->ev.eos_code;
  if (strcmp(code, "deadline_exceeded") == 0)
    return sbio_bk_error_set(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout",
                             "e2b: envd stopped the command at its deadline (%s)", r->ev.eos_message);
  if (strcmp(code, "unauthenticated") == 0 || strcmp(code, "permission_denied") == 0)
    return sbio_bk_error_set(err, SBIO_E_AUTH, NULL, "e2b: envd of sandbox %s refused the command: %s (%s)", r->sb->id,
                             r->ev.eos_message, code);
  return sbio_bk_error_set(err, SBIO_E_EXEC, NULL, "e2b: envd %s the command in sandbox %s: %s (%s)",
                           r->ev.started ? "failed while running" : "could not start", r->sb->id, r->ev.eos_message,
                           code);
}

static int result(exec_run *r, int *exit_code, sbio_bk_error *err) {
  const e2b_resp *resp = sbio__e2b_xfer_resp(r->sx);
  *exit_code = -1;
  if (r->cancelled) {
    *exit_code = 137; /* killed with its sandbox */
    return SBIO_OK;
  }
  if (r->timed_out) {
    *exit_code = r->ev.ended ? sbio__e2b_proc_exit_status(&r->ev) : 137;
    double span = (double)(r->call->deadline_ns - r->started_ns) / 1e9;
    return sbio_bk_error_set(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout",
                             "e2b: the command did not finish within its %.3g s deadline%s", span,
                             r->kill_sent ? " and was killed (SIGKILL)" : "");
  }
  if (r->ev.bad)
    return sbio_bk_error_set(err, SBIO_E_EXEC, NULL, "e2b: envd sent a malformed stream: %s", r->ev.bad_what);
  if (r->parse_status != E2B_ENV_OK)
    return sbio_bk_error_set(err, SBIO_E_EXEC, NULL, "e2b: envd sent a malformed stream: %s",
                             sbio__e2b_env_status_text(r->parse_status));
  if (resp->status != 200) {
    if (resp->status == 0) return sbio__e2b_fail_transport(err, resp, "run the command", SBIO_E_EXEC, SBIO_E_EXEC);
    return sbio__e2b_fail_envd(r->sb, err, resp, "run the command", SBIO_E_EXEC, SBIO_E_EXEC);
  }
  if (resp->curl_code != CURLE_OK) return stream_broke(r, resp->error, err);
  if (!r->ev.eos)
    return stream_broke(
        r, sbio__e2b_env_at_boundary(&r->parser) ? "no end-of-stream message" : "it stopped inside a message", err);
  if (r->ev.eos_code[0]) return end_of_stream_error(r, err);
  if (!r->ev.ended)
    return sbio_bk_error_set(err, SBIO_E_EXEC, NULL, "e2b: the stream of sandbox %s ended without the command's end",
                             r->sb->id);
  *exit_code = sbio__e2b_proc_exit_status(&r->ev);
  return SBIO_OK;
}

int sbio__e2b_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                      sbio_bk_error *err) {
  e2b_sandbox *sb = sandbox;
  if (!sb || !req || !exit_code || !sbio__e2b_call_ok(call) || (!req->shell && (!req->argv || !req->argc)))
    return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b exec: missing argument");
  *exit_code = -1;
  if (atomic_load(&sb->killed))
    return sbio_bk_error_set(err, SBIO_E_GONE, "create a new sandbox", "e2b: sandbox %s was killed", sb->id);
  if (req->has_stdin && !sbio__e2b_version_at_least(sb->envd_version, E2B_ENVD_CLOSE_STDIN))
    return sbio_bk_error_set(err, SBIO_E_CAPABILITY, "rebuild the template with a newer E2B envd",
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
  r.loop = sbio__e2b_loop_new(sb->inst, call);
  int rc = r.loop ? start_stream(&r, err) : sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  if (rc == SBIO_OK) {
    run_loop(&r);
    rc = result(&r, exit_code, err);
  }
  unary_end(&r, &r.input);
  unary_end(&r, &r.kill);
  sbio__e2b_loop_free(r.loop);
  sbio__e2b_env_free(&r.parser);
  sbio__e2b_headers_free(r.sheaders);
  free(r.surl);
  free(r.sbody);
  return rc;
}
