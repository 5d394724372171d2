/* SPDX-License-Identifier: MIT */
/* Killing an exec at its deadline. Docker has no "signal this exec" call,
 * so:
 *  1. A second exec runs a tiny sh script that SIGKILLs every process whose
 *     environment carries this exec's token (the process and everything it
 *     spawned; the token is random per exec). The script runs three passes
 *     to catch processes forked during the first.
 *  2. Exec inspect must then say the process is not running. If it still
 *     is (no /bin/sh in the image, a process that cleared its environment),
 *     the container is restarted with no grace: every process dies, the
 *     filesystem stays, PID 1 (the lifetime backstop) starts again.
 * The sandbox stays usable either way. Everything here has its own budget
 * (the call's deadline has passed), and all of it ends at most
 * SBIO_SDK_CLEANUP_MARGIN_S after that deadline (sbio_sdk_call_cleanup_bounded):
 * against an engine that stopped answering, the kill is then reported as
 * not confirmed instead of holding the caller for the budgets below. A
 * killer exec the engine started goes on without us. */
#include "exec.h"

#include "errmap.h"

#include <string.h>
#include <time.h>

#define KILL_BUDGET_S 10.0
#define GONE_WAIT_S 3.0

/* $1: the token. NUL bytes of /proc/PID/environ are dropped by the command
 * substitution, which leaves the token intact for the pattern. */
static const char kill_script[] =
    "t=\"" DK_EXEC_TOKEN_VAR "=$1\"; for pass in 1 2 3; do for d in /proc/[0-9]*; do "
    "case \"$(cat \"$d/environ\" 2>/dev/null)\" in *\"$t\"*) kill -9 \"${d#/proc/}\" 2>/dev/null;; esac; "
    "done; done; exit 0";

static void pause_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* 1 once the exec is no longer running (or forgotten), 0 if still running
 * at the call's deadline, -1 if the engine cannot tell. */
static int wait_not_running(dk_instance *inst, const char *exec_id, const sbio_bk_call *until) {
  for (;;) {
    dk_exec_state st;
    sbio_sdk_http_response resp;
    int rc = sbio__dk_exec_inspect(inst, exec_id, until, &st, &resp);
    sbio_sdk_http_response_free(&resp);
    if (rc != 0) return -1;
    if (!st.found || !st.running) return 1;
    if (sbio_bk_remaining_ns(until) == 0) return 0;
    pause_ms(50);
  }
}

static int run_killer(dk_sandbox *sb, const char *token, const sbio_bk_call *call) {
  dk_instance *inst = sb->inst;
  char body[4096];
  /* The script has quotes: escape them for JSON. */
  char escaped[2048];
  size_t o = 0;
  const char *s = kill_script;
  for (; *s && o + 2 < sizeof escaped; s++) {
    if (*s == '"' || *s == '\\') escaped[o++] = '\\';
    escaped[o++] = *s;
  }
  escaped[o] = '\0';
  snprintf(body, sizeof body,
           "{\"AttachStdout\":false,\"AttachStderr\":false,\"Tty\":false,\"Cmd\":[\"/bin/sh\",\"-c\",\"%s\","
           "\"sbio-kill\",\"%s\"]}",
           escaped, token);
  char kid[80];
  sbio_sdk_http_response resp;
  int rc = sbio__dk_exec_create(inst, sb->id, body, call, kid, sizeof kid, &resp);
  sbio_sdk_http_response_free(&resp);
  if (rc != 0) return -1;
  char path[160];
  snprintf(path, sizeof path, "/exec/%s/start", kid);
  rc = sbio__dk_send(inst, "POST", path, "{\"Detach\":true,\"Tty\":false}", call, &resp) == 0 && resp.status == 200
           ? 0
           : -1;
  sbio_sdk_http_response_free(&resp);
  if (rc != 0) return -1;
  sbio_sdk_subcall until;
  sbio_sdk_call_narrow(&until, call, GONE_WAIT_S);
  return wait_not_running(inst, kid, &until.call) == 1 ? 0 : -1;
}

static int restart(dk_sandbox *sb, const sbio_bk_call *call) {
  char path[200];
  snprintf(path, sizeof path, "/containers/%s/restart?t=0", sb->id);
  sbio_sdk_http_response resp;
  int rc = sbio__dk_send(sb->inst, "POST", path, NULL, call, &resp) == 0 && resp.status == 204 ? 0 : -1;
  sbio_sdk_http_response_free(&resp);
  return rc;
}

int sbio__dk_exec_kill(dk_sandbox *sb, const char *exec_id, const char *token, const sbio_bk_call *exec_call, char *how,
                       size_t how_size) {
  dk_instance *inst = sb->inst;
  /* The exec's deadline has passed: this has a budget of its own. */
  sbio_bk_call budget, until;
  sbio_sdk_call_cleanup_bounded(&budget, exec_call, KILL_BUDGET_S);
  sbio_sdk_call_cleanup_bounded(&until, exec_call, GONE_WAIT_S);
  if (token && token[0] && run_killer(sb, token, &budget) == 0 && wait_not_running(inst, exec_id, &until) == 1) {
    snprintf(how, how_size, "SIGKILL to every process of the exec");
    return 0;
  }
  sbio_sdk_call_cleanup_bounded(&until, exec_call, GONE_WAIT_S);
  if (restart(sb, &budget) == 0 && wait_not_running(inst, exec_id, &until) == 1) {
    snprintf(how, how_size, "the container was restarted to stop it; files are kept, other processes ended");
    return 0;
  }
  snprintf(how, how_size, "but the engine did not confirm the process ended within %.3g s of the deadline",
           SBIO_SDK_CLEANUP_MARGIN_S);
  return -1;
}
