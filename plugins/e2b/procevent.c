/* SPDX-License-Identifier: MIT */
#include "procevent.h"

#include "b64.h"
#include "envelope.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(e2b_proc_events *ev, const char *what) {
  ev->bad = 1;
  snprintf(ev->bad_what, sizeof ev->bad_what, "%s", what);
  return 1;
}

static void copy_string(const cJSON *obj, const char *key, char *buf, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsString(v) || !v->valuestring) return;
  size_t j = 0;
  for (const char *p = v->valuestring; *p && j + 1 < size; p++) buf[j++] = ((unsigned char)*p < 0x20) ? ' ' : *p;
  buf[j] = '\0';
}

static int on_end_stream(e2b_proc_events *ev, const cJSON *root) {
  ev->eos = 1;
  const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
  if (!error || cJSON_IsNull(error)) return 0;
  if (!cJSON_IsObject(error)) return bad(ev, "the end-of-stream error is not an object");
  copy_string(error, "code", ev->eos_code, sizeof ev->eos_code);
  copy_string(error, "message", ev->eos_message, sizeof ev->eos_message);
  if (!ev->eos_code[0]) snprintf(ev->eos_code, sizeof ev->eos_code, "unknown");
  return 0;
}

static int on_data(e2b_proc_events *ev, const cJSON *data) {
  static const char *const names[] = {"stdout", "stderr"};
  for (int s = 0; s < 2; s++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(data, names[s]);
    if (!v) continue;
    if (!cJSON_IsString(v) || !v->valuestring) return bad(ev, "output data is not a base64 string");
    unsigned char *bytes = NULL;
    size_t n = 0;
    if (sbio__e2b_b64_decode(v->valuestring, strlen(v->valuestring), &bytes, &n) != 0)
      return bad(ev, "output data is not valid base64");
    if (n && ev->output) ev->output(ev->output_user, s + 1, (const char *)bytes, n);
    free(bytes);
  }
  return 0; /* pty output is not asked for; anything else is ignored */
}

static int on_end(e2b_proc_events *ev, const cJSON *end) {
  ev->ended = 1;
  const cJSON *code = cJSON_GetObjectItemCaseSensitive(end, "exitCode");
  if (code && !cJSON_IsNumber(code)) return bad(ev, "exitCode is not a number");
  ev->exit_code = code ? code->valueint : 0; /* proto3 omits a zero */
  copy_string(end, "status", ev->status, sizeof ev->status);
  copy_string(end, "error", ev->error, sizeof ev->error);
  return 0;
}

int sbio__e2b_proc_on_envelope(void *user, unsigned flags, const unsigned char *msg, size_t len) {
  e2b_proc_events *ev = user;
  cJSON *root = cJSON_ParseWithLength((const char *)msg, len);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return bad(ev, "a stream message is not a JSON object");
  }
  int rc = 0;
  if (flags & E2B_ENV_END_STREAM) {
    rc = on_end_stream(ev, root);
  } else {
    const cJSON *event = cJSON_GetObjectItemCaseSensitive(root, "event");
    const cJSON *part;
    if (!cJSON_IsObject(event)) {
      rc = bad(ev, "a stream message has no event object");
    } else if ((part = cJSON_GetObjectItemCaseSensitive(event, "start"))) {
      const cJSON *pid = cJSON_GetObjectItemCaseSensitive(part, "pid");
      if (!cJSON_IsNumber(pid) || pid->valuedouble < 0 || pid->valuedouble > 4294967295.0)
        rc = bad(ev, "the start event has no valid pid");
      else {
        ev->pid = (uint32_t)pid->valuedouble;
        ev->started = 1;
      }
    } else if ((part = cJSON_GetObjectItemCaseSensitive(event, "data"))) {
      rc = cJSON_IsObject(part) ? on_data(ev, part) : bad(ev, "a data event is not an object");
    } else if ((part = cJSON_GetObjectItemCaseSensitive(event, "end"))) {
      rc = cJSON_IsObject(part) ? on_end(ev, part) : bad(ev, "the end event is not an object");
    } else if (cJSON_GetObjectItemCaseSensitive(event, "keepalive")) {
      ev->keepalives++;
    }
  }
  cJSON_Delete(root);
  return rc;
}

static const struct {
  const char *name;
  int signo;
} SIGNALS[] = {{"killed", 9},
               {"terminated", 15},
               {"interrupt", 2},
               {"hangup", 1},
               {"aborted", 6},
               {"segmentation fault", 11},
               {"broken pipe", 13},
               {"quit", 3},
               {"alarm clock", 14},
               {"bus error", 7},
               {"floating point exception", 8}};

int sbio__e2b_proc_exit_status(const e2b_proc_events *ev) {
  if (strncmp(ev->status, "signal: ", 8) == 0) {
    const char *name = ev->status + 8;
    for (size_t i = 0; i < sizeof SIGNALS / sizeof SIGNALS[0]; i++)
      if (strncmp(name, SIGNALS[i].name, strlen(SIGNALS[i].name)) == 0) return 128 + SIGNALS[i].signo;
    return 137;
  }
  if (ev->exit_code < 0) return 137; /* Go reports -1 for "killed by a signal" */
  return ev->exit_code;
}
