/* SPDX-License-Identifier: MIT */
/* exec over the agent channel: argv (never through a shell) or sh -c, the
 * environment (create-time, then the exec's own), the cwd, stdin sent in
 * pieces while stdout and stderr stream back as they come. Past the
 * deadline, or when this exec alone is cancelled, the agent kills the
 * command's process group and the sandbox stays usable. */
#include "qm.h"

#include <stdlib.h>
#include <string.h>

typedef struct exec_ctx {
  qm_req q;
  qm_sandbox *sb;
  const sbio_bk_exec_req *req;
  size_t stdin_off;
  int sent_exec, sent_eof;
  int exit_code, exited;
  sbio_bk_error *err;
} exec_ctx;

static int next(qm_req *q, qm_wr *w) {
  exec_ctx *x = q->user;
  const sbio_bk_exec_req *req = x->req;
  if (!x->sent_exec) {
    x->sent_exec = 1;
    sbio__qm_wr_begin(w, QM_EXEC, q->id);
    sbio__qm_put_u8(w, req->shell ? 1 : 0);
    if (req->shell) {
      sbio__qm_put_u32(w, 1);
      sbio__qm_put_str(w, req->shell);
    } else {
      sbio__qm_put_u32(w, (uint32_t)req->argc);
      for (size_t i = 0; i < req->argc; i++) sbio__qm_put_str(w, req->argv[i]);
    }
    sbio__qm_put_u32(w, (uint32_t)(x->sb->n_env + req->n_env));
    for (size_t i = 0; i < x->sb->n_env; i++) sbio__qm_put_str(w, x->sb->env[i]);
    for (size_t i = 0; i < req->n_env; i++) {
      /* "K=V" built in place: the frame is the only copy. */
      const char *k = req->env[i].key, *v = req->env[i].value ? req->env[i].value : "";
      size_t kl = strlen(k), vl = strlen(v);
      sbio__qm_put_u32(w, (uint32_t)(kl + 1 + vl));
      for (const char *parts[3] = {k, "=", v}, **p = parts; p < parts + 3; p++) {
        size_t n = p == parts ? kl : p == parts + 1 ? 1 : vl;
        for (size_t j = 0; j < n; j++) sbio__qm_put_u8(w, (uint8_t)(*p)[j]);
      }
    }
    sbio__qm_put_str(w, req->cwd ? req->cwd : "");
    sbio__qm_put_u8(w, req->has_stdin ? 1 : 0);
    return 1;
  }
  if (!req->has_stdin || x->sent_eof) return 0;
  if (x->stdin_off < req->stdin_len) {
    size_t n = req->stdin_len - x->stdin_off;
    if (n > QM_CHUNK) n = QM_CHUNK;
    sbio__qm_wr_begin(w, QM_STDIN, q->id);
    sbio__qm_put_bytes(w, req->stdin_data + x->stdin_off, n);
    x->stdin_off += n;
    return 1;
  }
  x->sent_eof = 1;
  sbio__qm_wr_begin(w, QM_STDIN_EOF, q->id);
  return 1;
}

static int on_msg(qm_req *q, const qm_msg *m) {
  exec_ctx *x = q->user;
  switch (m->type) {
  case QM_OUT:
    if (x->req->output && m->data_len)
      x->req->output(x->req->output_user, m->stream, (const char *)m->data, m->data_len);
    return 0;
  case QM_EXIT:
    x->exited = 1;
    x->exit_code = m->exit_kind ? 128 + m->exit_code : m->exit_code;
    return 1;
  case QM_ERR:
    return sbio_sdk_error(x->err, SBIO_E_EXEC, NULL, "qemu exec: %s", m->text);
  default:
    return sbio_sdk_error(x->err, SBIO_E_EXEC, NULL, "qemu exec: unexpected message %u from the guest", m->type);
  }
}

/* After a deadline or a cancel: the agent kills the process group and
 * answers with its EXIT, which is waited for briefly. */
static void kill_command(exec_ctx *x, const sbio_bk_call *call) {
  sbio_bk_call c;
  sbio_sdk_call_cleanup(&c, call, QM_CLEANUP_S);
  if (sbio__qm_chan_send(x->sb, QM_KILL, x->q.id, &c) != 0) return;
  x->q.next = NULL;
  x->q.done = 0;
  sbio_bk_error ignored = {.size = sizeof ignored};
  x->err = &ignored;
  sbio__qm_chan_run(x->sb, &x->q, &c, SBIO_E_EXEC_TIMEOUT, &ignored);
}

int sbio__qm_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                     sbio_bk_error *err) {
  qm_sandbox *sb = sandbox;
  if (!sb || !req || !call || !exit_code || (!req->shell && (!req->argv || !req->argc)))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu exec: missing argument");
  if (req->argc > QM_ARGC_MAX || sb->n_env + req->n_env > QM_ARGC_MAX)
    return sbio_sdk_error(err, SBIO_E_EXEC, "pass fewer arguments or variables",
                          "qemu exec: at most %u arguments and %u variables", QM_ARGC_MAX, QM_ARGC_MAX);
  exec_ctx x = {.sb = sb, .req = req, .err = err};
  x.q.id = ++sb->next_id;
  x.q.next = next;
  x.q.on_msg = on_msg;
  x.q.user = &x;
  int rc = sbio__qm_chan_run(sb, &x.q, call, SBIO_E_EXEC_TIMEOUT, err);
  if (rc == SBIO_OK) {
    *exit_code = x.exit_code;
    return SBIO_OK;
  }
  if (atomic_load(&sb->killed) || (rc == SBIO_E_CANCELLED && !sbio_bk_exec_cancelled(call))) {
    /* The sandbox is being killed under us: the command ended with it. */
    *exit_code = 137;
    return SBIO_OK;
  }
  if (rc == SBIO_E_GONE && sbio_bk_now_ns(call) >= sb->expires_ns) {
    /* The guest powered itself off at the end of its lifetime while the
     * command ran: for the caller, the command ran out of time. */
    return sbio_sdk_error(err, SBIO_E_EXEC_TIMEOUT, "give the sandbox a longer timeout",
                          "qemu: the sandbox's %g s lifetime ended while the command ran", sb->timeout_s);
  }
  if (rc == SBIO_E_EXEC_TIMEOUT || rc == SBIO_E_CANCELLED) {
    sbio_bk_error saved = *err;
    kill_command(&x, call);
    *err = saved;
  }
  return rc;
}
