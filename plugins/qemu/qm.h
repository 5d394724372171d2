/* SPDX-License-Identifier: MIT */
/* sbio-backend-qemu: the types every file of the backend shares.
 *
 * One qm_instance per configured backend, one qm_sandbox per VM. Files:
 *   plugin.c    the ABI table, open/close/plan/probe
 *   settings.c  the `settings` JSON        hwvirt.c  is there VT-x/AMD-V?
 *   vm.c        starting QEMU, its state directory, killing it
 *   chan.c      the agent channel: frames out and in, bounded by the call
 *   exec.c      exec over the channel      files.c   file operations
 *   managed.c   state directories for `sbio reap`
 *   proto.c     the wire format, shared with agent/agent.c */
#ifndef SBIO_QEMU_QM_H
#define SBIO_QEMU_QM_H

#include "hwvirt.h"
#include "proto.h"
#include "settings.h"

#include <pthread.h>
#include <sandboxio/backend.h>
#include <sandboxio/sdk.h>
#include <stdatomic.h>
#include <sys/types.h>

#define QM_NAME "qemu"
#define QM_WORK_DIR "/work"
#define QM_REAP_HINT "`sbio reap --backend qemu --kill` removes what is left"
#define QM_DEFAULT_TIMEOUT_S 300.0
#define QM_CLEANUP_S 5.0 /* killing a command or a VM after a deadline */

typedef struct qm_instance {
  const sbio_host_services *host;
  qm_settings settings;
  qm_hwvirt hw;
  char *kernel, *initrd; /* resolved from the settings */
  long tsc_khz;
} qm_instance;

typedef struct qm_sandbox {
  qm_instance *inst;
  char id[40];       /* "qm-" + 16 hex; also the state directory's name */
  char dir[3072];    /* the state directory */
  char mechanism[8]; /* "kvm" or "tcg": what QEMU was started with */
  pid_t pid;         /* QEMU, leader of its own process group */
  int fd;            /* the agent channel (unix socket), -1 when none */
  atomic_int killed;
  int reaped; /* QEMU waited for */
  int broken; /* the guest sent something it must not: no more requests */
  uint32_t next_id;
  int64_t expires_ns; /* host clock: when the guest's lifetime ends */
  double timeout_s;
  char **env; /* create-time environment and secrets, "K=V" */
  size_t n_env;
  qm_ready ready;
  uint8_t *rx; /* bytes received and not yet consumed */
  size_t rx_len;
} qm_sandbox;

/* plugin.c: "kvm" or "tcg" for a create, or the refusal (plan's answer). */
int sbio__qm_plan_mechanism(qm_instance *inst, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                            sbio_bk_error *err);

/* vm.c */
int sbio__qm_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                       sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__qm_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err);
void sbio__qm_op_release(void *sandbox);
/* Refusals that start nothing: egress, allow-lists, GPU, disk, images. */
int sbio__qm_check_request(const qm_instance *inst, const sbio_bk_create_req *req, sbio_bk_error *err);
/* Kills the process group `pgid` if its leader is still the QEMU of `dir`. */
int sbio__qm_kill_vm_dir(const char *dir, int *killed);
/* Whether the QEMU recorded in `dir` still runs. */
int sbio__qm_vm_running(const char *dir);

/* chan.c: one request at a time on a sandbox. */
typedef struct qm_req qm_req;
struct qm_req {
  uint32_t id;
  /* Produces the next frame to send into w (begun for you with the id);
   * returns 1 when it made one, 0 when nothing is left to send. */
  int (*next)(qm_req *q, qm_wr *w);
  /* A message for this request; returns 1 when the request is finished,
   * 0 to go on, or a catalogue code (>= 1000, err filled) to stop. */
  int (*on_msg)(qm_req *q, const qm_msg *m);
  void *user;
  int done;
};
/* Sends the request's frames and dispatches the answers until on_msg says
 * finished, the deadline passes (SBIO_E_EXEC_TIMEOUT/timeout_code), the
 * call is cancelled (SBIO_E_CANCELLED), or the VM goes away (SBIO_E_GONE). */
int sbio__qm_chan_run(qm_sandbox *sb, qm_req *q, const sbio_bk_call *call, int timeout_code, sbio_bk_error *err);
/* Sends one frame with no answer expected (KILL, POWEROFF), best effort. */
int sbio__qm_chan_send(qm_sandbox *sb, uint8_t type, uint32_t id, const sbio_bk_call *call);
/* Waits for the guest's READY. */
int sbio__qm_chan_ready(qm_sandbox *sb, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__qm_errcode(uint32_t qm_code, int fallback);

/* exec.c */
int sbio__qm_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                     sbio_bk_error *err);

/* files.c */
int sbio__qm_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                          sbio_bk_error *err);
int sbio__qm_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                           sbio_bk_error *err);
int sbio__qm_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                          void *user, sbio_bk_error *err);
int sbio__qm_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__qm_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err);

/* managed.c */
int sbio__qm_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                             sbio_bk_managed_fn entry, void *user, sbio_bk_error *err);
int sbio__qm_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed, sbio_bk_error *err);

#endif
