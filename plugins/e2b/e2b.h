/* SPDX-License-Identifier: MIT */
/* sbio-backend-e2b: sandboxes as E2B Firecracker microVMs, spoken to over
 * E2B's control-plane REST API and envd (the agent inside each VM: Connect
 * RPC for processes and the filesystem, REST for file contents).
 *
 * The shared types of the backend live here; each concern has its own file
 * (docs/backends/e2b.md lists them). */
#ifndef SBIO_E2B_H
#define SBIO_E2B_H

#include "settings.h"

#include <sandboxio/backend.h>
#include <sandboxio/sdk.h>
#include <stdatomic.h>

#define E2B_MECHANISM "firecracker"
#define E2B_ENVD_PORT "49983"
#define E2B_USER_AGENT "sandboxio-e2b/0.1.0"

/* One per open: settings, host services, the secrets every message is
 * cleaned of, and the SDK client of the control plane. Shared by every
 * sandbox handle; reference-counted so a handle released after close still
 * finds it. */
typedef struct e2b_instance {
  atomic_int refs;
  sbio_host_services host;   /* a copy; host.size says how much is valid */
  e2b_settings settings;     /* read-only after open */
  sbio_sdk_secrets *secrets; /* the API key (as read) and envd access tokens */
  sbio_sdk_http *api;        /* https://api.<domain>: create, get, kill, list */
} e2b_instance;

/* A sandbox handle. Fields are fixed after create/connect except `killed`,
 * which kill sets from any thread. */
typedef struct e2b_sandbox {
  e2b_instance *inst;
  char id[128];
  char envd_version[32];
  sbio_sdk_http *envd; /* envd through E2B's proxy: routing headers and the access token on every request */
  atomic_int killed;
} e2b_sandbox;

void sbio__e2b_instance_ref(e2b_instance *inst);
void sbio__e2b_instance_unref(e2b_instance *inst);
/* The SDK client options every E2B endpoint shares (timeouts, retries,
 * secrets, host); the caller sets base_url, headers and retry_statuses. */
sbio_sdk_http_options sbio__e2b_client_options(const e2b_instance *inst);

/* A call context is usable when it has a deadline source. */
int sbio__e2b_call_ok(const sbio_bk_call *call);

/* envd version gates (E2B's SDK: envd/versions.ts). */
int sbio__e2b_version_at_least(const char *version, const char *minimum);
#define E2B_ENVD_DEFAULT_USER "0.4.0" /* earlier envd needs the user named */
#define E2B_ENVD_CLOSE_STDIN "0.5.2"  /* CloseStdin exists */
#define E2B_ENVD_OCTET_UPLOAD "0.5.7" /* raw octet-stream uploads */

/* ------------------------------------------------------------ operations */
int sbio__e2b_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                        sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__e2b_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                         sbio_bk_sandbox_info *info, sbio_bk_error *err);
int sbio__e2b_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err);
void sbio__e2b_op_release(void *sandbox);
int sbio__e2b_op_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                      sbio_bk_error *err);
int sbio__e2b_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                           sbio_bk_error *err);
int sbio__e2b_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                            sbio_bk_error *err);
int sbio__e2b_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                           void *user, sbio_bk_error *err);
int sbio__e2b_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__e2b_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__e2b_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                              sbio_bk_managed_fn entry, void *user, sbio_bk_error *err);
int sbio__e2b_op_probe(void *instance, const sbio_bk_call *call, char *detail, size_t detail_size, sbio_bk_error *err);
int sbio__e2b_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed,
                              sbio_bk_error *err);

/* Refuses what an E2B create cannot honour (explicit caps, malformed
 * allow-list entries) before anything exists. */
int sbio__e2b_check_request(const e2b_instance *inst, const sbio_bk_create_req *req, sbio_bk_error *err);

#endif
