/* SPDX-License-Identifier: MIT */
/* The fake backend's operations, split by concern across ops_*.c and wired
 * into the operations table in fake.c. */
#ifndef SBIO_FAKE_FAKE_H
#define SBIO_FAKE_FAKE_H

#include "box.h"
#include "instance.h"

#include <sandboxio/backend.h>

/* The mechanism every fake sandbox reports (declared tier: CONTAINER). */
#define FAKE_MECHANISM "none"
#define FAKE_REAP_HINT "the sandbox may still exist; `sbio reap --backend fake --kill` removes it"

/* What a sandbox handle points at; connect makes another handle to the same box. */
typedef struct fake_handle {
  fake_instance *inst;
  fake_box *box;
} fake_handle;

/* The per-call context carries the deadline clock; without it nothing can be bounded. */
static inline int fake_call_usable(const sbio_bk_call *call) {
  return call && call->host && call->host->monotonic_ns;
}

/* fake.c */
int sbio__fake_check_request(const sbio_bk_create_req *req, sbio_bk_error *err);
/* Fails with SBIO_E_GONE when the handle's sandbox was killed. */
int sbio__fake_check_alive(const fake_handle *h, sbio_bk_error *err);

/* ops_sandbox.c */
int sbio__fake_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                         sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__fake_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                          sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__fake_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err);
void sbio__fake_op_release(void *sandbox);
int sbio__fake_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                               sbio_bk_managed_fn entry, void *user, sbio_bk_error *err);
int sbio__fake_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed,
                               sbio_bk_error *err);

/* ops_exec.c */
int sbio__fake_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                       sbio_bk_error *err);

/* ops_files.c */
int sbio__fake_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                            sbio_bk_error *err);
int sbio__fake_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                             sbio_bk_error *err);
int sbio__fake_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                            void *user, sbio_bk_error *err);
int sbio__fake_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call,
                             sbio_bk_error *err);
int sbio__fake_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err);

#endif
