/* SPDX-License-Identifier: MIT */
#include "script.h"

#include "vclock.h"
#include "vout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  int code;
} script_errors[] = {
    {"network_policy", SBIO_E_NETWORK_POLICY},
    {"exec", SBIO_E_EXEC},
    {"resource_limit", SBIO_E_RESOURCE_LIMIT},
    {"rate_limit", SBIO_E_RATE_LIMIT},
    {"auth", SBIO_E_AUTH},
    {"gone", SBIO_E_GONE},
    {"connect", SBIO_E_CONNECT},
    {"filesystem", SBIO_E_FS},
};

int sbio__fake_script_error_code(const char *name) {
  for (size_t i = 0; i < sizeof script_errors / sizeof *script_errors; i++) {
    if (strcmp(script_errors[i].name, name) == 0) return script_errors[i].code;
  }
  return 0;
}

const char *sbio__fake_script_error_names(void) {
  return "network_policy, exec, resource_limit, rate_limit, auth, gone, connect, filesystem";
}

const fake_script *sbio__fake_script_find(const fake_script *scripts, size_t n, const char *text) {
  for (size_t i = 0; i < n; i++) {
    if (strstr(text, scripts[i].match)) return &scripts[i];
  }
  return NULL;
}

/* Maps how a wait ended onto the exec's outcome; 1 when the exec is over. */
static int wake_ends_exec(fake_wake w, const sbio_bk_call *call, int64_t start, int *exit_code, sbio_bk_error *err,
                          int *rc) {
  switch (w) {
  case FAKE_WAKE_DONE:
    return 0;
  case FAKE_WAKE_DEADLINE:
    *exit_code = 137;
    *rc =
        sbio_bk_error_set(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout if the command needs longer",
                          "command exceeded its %g s deadline and was killed", sbio__fake_deadline_span_s(call, start));
    return 1;
  case FAKE_WAKE_CANCELLED:
  case FAKE_WAKE_KILLED:
    break;
  }
  *exit_code = 137;
  *rc = w == FAKE_WAKE_CANCELLED && sbio_bk_exec_cancelled(call) ? sbio__fake_cancelled_error(err) : SBIO_OK;
  return 1;
}

int sbio__fake_script_play(const fake_script *s, const sbio_bk_exec_req *req, const sbio_bk_call *call,
                           double time_scale, atomic_int *killed, int *exit_code, sbio_bk_error *err) {
  int64_t start = sbio_bk_now_ns(call);
  int rc = SBIO_OK;
  if (s->delay > 0 &&
      wake_ends_exec(sbio__fake_vsleep(call, time_scale, s->delay, killed), call, start, exit_code, err, &rc))
    return rc;
  if (s->hang &&
      wake_ends_exec(sbio__fake_vsleep(call, time_scale, INFINITY, killed), call, start, exit_code, err, &rc))
    return rc;
  if (s->error_code)
    return sbio_bk_error_set(err, s->error_code, NULL, "command matched fake script '%s', which fails with %s",
                             s->match, s->error_name);
  fake_outctx out = {.fn = req->output, .user = req->output_user};
  if (s->out) sbio__fake_emit_lines(&out, 1, s->out, strlen(s->out));
  if (s->err) sbio__fake_emit_lines(&out, 2, s->err, strlen(s->err));
  *exit_code = s->exit_code;
  return SBIO_OK;
}

void sbio__fake_script_free(fake_script *s) {
  free(s->match);
  free(s->out);
  free(s->err);
  free(s->error_name);
  memset(s, 0, sizeof *s);
}
