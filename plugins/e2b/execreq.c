/* SPDX-License-Identifier: MIT */
/* The StartRequest of an exec: what runs, with which environment, where. */
#include "execreq.h"

#include "paths.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* argv mode goes through bash only to get E2B's login environment (the
 * SDKs run `bash -l -c`); the words are passed as positional parameters
 * and exec'd as they are, so nothing in them is expanded or split, and a
 * missing program exits 127 as in any shell. */
#define ARGV_RUNNER "exec \"$0\" \"$@\""

char *sbio__e2b_start_request(const e2b_sandbox *sb, const sbio_bk_exec_req *req, int with_stdin, sbio_bk_error *err) {
  char *cwd = NULL;
  const char *wd = sb->inst->settings.workdir;
  if (sbio__e2b_path_resolve(wd, req->cwd ? req->cwd : wd, &cwd, err) != SBIO_OK) return NULL;
  cJSON *root = cJSON_CreateObject();
  cJSON *proc = root ? cJSON_AddObjectToObject(root, "process") : NULL;
  cJSON *args = proc ? cJSON_AddArrayToObject(proc, "args") : NULL;
  int ok = proc && args && cJSON_AddStringToObject(proc, "cmd", "/bin/bash");
  ok = ok && cJSON_AddItemToArray(args, cJSON_CreateString("-l"));
  ok = ok && cJSON_AddItemToArray(args, cJSON_CreateString("-c"));
  if (req->shell) {
    ok = ok && cJSON_AddItemToArray(args, cJSON_CreateString(req->shell));
  } else {
    ok = ok && cJSON_AddItemToArray(args, cJSON_CreateString(ARGV_RUNNER));
    for (size_t i = 0; ok && i < req->argc; i++)
      ok = req->argv[i] && cJSON_AddItemToArray(args, cJSON_CreateString(req->argv[i]));
  }
  if (ok && req->n_env) {
    cJSON *envs = cJSON_AddObjectToObject(proc, "envs");
    ok = envs != NULL;
    for (size_t i = 0; ok && i < req->n_env; i++) {
      if (!req->env[i].key || !req->env[i].value) continue;
      cJSON_DeleteItemFromObjectCaseSensitive(envs, req->env[i].key);
      ok = cJSON_AddStringToObject(envs, req->env[i].key, req->env[i].value) != NULL;
    }
  }
  ok = ok && cJSON_AddStringToObject(proc, "cwd", cwd);
  /* false: stdin is closed at once, so nothing waits on it. */
  ok = ok && cJSON_AddBoolToObject(root, "stdin", with_stdin);
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  free(cwd);
  if (!text) sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory building the command");
  return text;
}

char *sbio__e2b_signal_request(uint32_t pid, const char *signal_name) {
  cJSON *root = cJSON_CreateObject();
  cJSON *sel = root ? cJSON_AddObjectToObject(root, "process") : NULL;
  int ok = sel && cJSON_AddNumberToObject(sel, "pid", pid) && cJSON_AddStringToObject(root, "signal", signal_name);
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}

char *sbio__e2b_input_request(uint32_t pid, const char *b64) {
  cJSON *root = cJSON_CreateObject();
  cJSON *sel = root ? cJSON_AddObjectToObject(root, "process") : NULL;
  cJSON *input = root ? cJSON_AddObjectToObject(root, "input") : NULL;
  int ok = sel && input && cJSON_AddNumberToObject(sel, "pid", pid);
  if (ok && b64) ok = cJSON_AddStringToObject(input, "stdin", b64) != NULL;
  if (ok && !b64) cJSON_DeleteItemFromObjectCaseSensitive(root, "input"); /* CloseStdin: process only */
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}
