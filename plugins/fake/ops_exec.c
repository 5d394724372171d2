/* SPDX-License-Identifier: MIT */
/* exec: a scripted result when one matches, else the virtual shell. */
#include "fake.h"

#include "fspath.h"
#include "script.h"
#include "vshell.h"

#include <stdlib.h>
#include <string.h>

/* The command as one string: the shell string, or argv joined by spaces
 * (what scripts match against and the call log shows). */
static char *command_text(const sbio_bk_exec_req *req) {
  if (req->shell) return strdup(req->shell);
  size_t total = 1;
  for (size_t i = 0; i < req->argc; i++) total += strlen(req->argv[i]) + 1;
  char *text = malloc(total);
  if (!text) return NULL;
  size_t len = 0;
  for (size_t i = 0; i < req->argc; i++) {
    if (i) text[len++] = ' ';
    size_t n = strlen(req->argv[i]);
    memcpy(text + len, req->argv[i], n);
    len += n;
  }
  text[len] = '\0';
  return text;
}

static int valid_request(const sbio_bk_exec_req *req) {
  if (req->shell) return 1;
  if (!req->argv || req->argc == 0) return 0;
  for (size_t i = 0; i < req->argc; i++) {
    if (!req->argv[i]) return 0;
  }
  return 1;
}

/* Sets up the shell's environment and working directory. */
static int shell_init(fake_vsh *sh, fake_handle *h, const sbio_bk_exec_req *req, sbio_bk_error *err) {
  if (sbio__fake_env_copy(&sh->env, &h->box->env) != 0 || sbio__fake_env_set_all(&sh->env, req->env, req->n_env) != 0)
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory preparing a fake exec");
  int prc = sbio__fake_path_resolve(FAKE_WORKDIR, req->cwd ? req->cwd : FAKE_WORKDIR, &sh->cwd);
  if (prc == FAKE_PATH_NOMEM)
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory preparing a fake exec");
  int is_dir = 0;
  if (prc == FAKE_PATH_OK) {
    pthread_mutex_lock(&h->box->mu);
    if (sbio__fake_memfs_stat(h->box->fs, sh->cwd, &is_dir, NULL) != FAKE_FS_OK) is_dir = 0;
    pthread_mutex_unlock(&h->box->mu);
  }
  if (!is_dir)
    return sbio_bk_error_set(err, SBIO_E_EXEC, "create the directory first, or pass an existing cwd",
                             "working directory %.200s does not exist in fake sandbox %s", req->cwd, h->box->id);
  return SBIO_OK;
}

static int run_shell(fake_handle *h, const sbio_bk_exec_req *req, const sbio_bk_call *call, int64_t start,
                     int *exit_code, sbio_bk_error *err) {
  fake_stdin in = {req->has_stdin ? req->stdin_data : NULL, req->has_stdin && req->stdin_data ? req->stdin_len : 0, 0};
  fake_vsh sh = {.out = {.fn = req->output, .user = req->output_user, .box = h->box},
                 .box = h->box,
                 .call = call,
                 .time_scale = h->inst->settings.time_scale,
                 .in = &in,
                 .stop = FAKE_WAKE_DONE};
  sbio__fake_env_init(&sh.env);
  int rc = shell_init(&sh, h, req, err);
  if (rc == SBIO_OK) {
    fake_io io;
    sbio__fake_io_init(&io);
    int status = req->shell ? sbio__fake_vsh_run_script(&sh, &io, req->shell)
                            : sbio__fake_vsh_run_argv(&sh, &io, req->argc, req->argv);
    *exit_code = status & 255;
    if (sh.stop == FAKE_WAKE_DEADLINE)
      rc = sbio_bk_error_set(err, SBIO_E_EXEC_TIMEOUT, "raise the exec timeout if the command needs longer",
                             "command exceeded its %g s deadline and was killed",
                             sbio__fake_deadline_span_s(call, start));
    else if (sh.stop == FAKE_WAKE_CANCELLED && sbio_bk_exec_cancelled(call))
      rc = sbio__fake_cancelled_error(err);
    if (sh.stop != FAKE_WAKE_DONE) *exit_code = 137;
  }
  sbio__fake_vsh_free(&sh);
  return rc;
}

int sbio__fake_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                       sbio_bk_error *err) {
  fake_handle *h = sandbox;
  if (!h || !req || !exit_code || !fake_call_usable(call) || !valid_request(req))
    return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL,
                             "fake exec: needs a sandbox, a call context and a non-empty argv or shell string");
  *exit_code = -1;
  int rc = sbio__fake_check_alive(h, err);
  if (rc != SBIO_OK) return rc;
  int64_t start = sbio_bk_now_ns(call);
  char *text = command_text(req);
  if (!text) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory starting a fake exec");
  sbio__fake_instance_log(h->inst, "exec", h->box->id, text);
  const fake_settings *st = &h->inst->settings;
  const fake_script *script = sbio__fake_script_find(st->scripts, st->n_scripts, text);
  free(text);
  if (script) return sbio__fake_script_play(script, req, call, st->time_scale, &h->box->killed, exit_code, err);
  return run_shell(h, req, call, start, exit_code, err);
}
