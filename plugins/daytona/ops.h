/* SPDX-License-Identifier: MIT */
/* The operations table's entries, one file per concern. */
#ifndef SBIO_DAYTONA_OPS_H
#define SBIO_DAYTONA_OPS_H

#include "dt.h"

int sbio__dt_op_plan(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                     sbio_bk_error *err);
int sbio__dt_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                       sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__dt_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                        sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__dt_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                     sbio_bk_error *err);
int sbio__dt_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                          sbio_bk_error *err);
int sbio__dt_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                           sbio_bk_error *err);
int sbio__dt_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                          void *user, sbio_bk_error *err);
int sbio__dt_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__dt_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__dt_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err);
void sbio__dt_op_release(void *sandbox);
int sbio__dt_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                             sbio_bk_managed_fn entry, void *user, sbio_bk_error *err);
int sbio__dt_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed, sbio_bk_error *err);

/* A handle for sandbox `id` whose toolbox is at `toolbox` (an SDK client
 * of its own); freed by sbio__dt_op_release. */
int sbio__dt_sandbox_new(dt_instance *inst, const char *id, const char *toolbox, dt_sandbox **out, sbio_bk_error *err);
/* Fills what the core's info struct has room for. */
void sbio__dt_fill_info(sbio_bk_sandbox_info *info, const char *id);
/* Deletes a sandbox after a failed create, under a deadline of its own
 * (the failed call's may have passed); logs what it could not do. By `id`
 * when there is one; by `name` (the one create gave it) when there is no
 * id, or the id found nothing: an answer whose id is not the sandbox's must
 * not leave the sandbox it made running and billed. Either may be NULL. */
void sbio__dt_cleanup(dt_instance *inst, const sbio_bk_call *call, const char *id, const char *name);

#endif
