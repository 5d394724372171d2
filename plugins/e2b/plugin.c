/* SPDX-License-Identifier: MIT */
/* sbio-backend-e2b: the plugin's metadata and entry point, and the backend
 * instance (open, close, plan). E2B runs every sandbox in its own
 * Firecracker microVM; docs/tiers.md records the source of that claim. */
#include "e2b.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int e2b_open(const sbio_host_services *host, const char *settings_json, void **instance, sbio_bk_error *err) {
  if (!instance || !host)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b open: missing host services or instance");
  *instance = NULL;
  e2b_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory opening the backend");
  size_t n = host->size < sizeof inst->host ? host->size : sizeof inst->host;
  memcpy(&inst->host, host, n);
  inst->host.size = (uint32_t)n;
  atomic_init(&inst->refs, 1);
  int rc = sbio__e2b_settings_parse(settings_json, &inst->settings, err);
  if (rc != SBIO_OK) {
    sbio_sdk_redact_error(&inst->host, NULL, err);
    free(inst);
    return rc;
  }
  inst->secrets = sbio_sdk_secrets_new();
  static const char *const api_headers[] = {"Accept: application/json"};
  /* 502/503/504 from the control plane are E2B's load balancers: transient. */
  static const long api_retry[] = {500, 502, 503, 504};
  sbio_sdk_http_options o = sbio__e2b_client_options(inst);
  o.base_url = inst->settings.api_url;
  o.headers = api_headers;
  o.n_headers = 1;
  o.retry_statuses = api_retry;
  o.n_retry_statuses = sizeof api_retry / sizeof api_retry[0];
  rc = inst->secrets ? sbio_sdk_http_new(&o, &inst->api, err)
                     : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory opening the backend");
  if (rc != SBIO_OK) {
    sbio__e2b_instance_unref(inst);
    return rc;
  }
  *instance = inst;
  return SBIO_OK;
}

static void e2b_close(void *instance) {
  sbio__e2b_instance_unref(instance);
}

/* Every message that leaves the backend goes through the SDK's redaction:
 * the backend's own secrets (the API key as read, envd access tokens),
 * then what the host knows. */
static int redacted(const e2b_instance *inst, int rc, sbio_bk_error *err) {
  if (rc != SBIO_OK && inst) sbio_sdk_redact_error(&inst->host, inst->secrets, err);
  return rc;
}

static const e2b_instance *owner(const void *sandbox) {
  return sandbox ? ((const e2b_sandbox *)sandbox)->inst : NULL;
}

static int e2b_plan(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                    sbio_bk_error *err) {
  e2b_instance *inst = instance;
  if (!inst || !req || !mechanism || mechanism_size < sizeof E2B_MECHANISM)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b plan: missing argument");
  int rc = sbio__e2b_check_request(inst, req, err);
  if (rc != SBIO_OK) return redacted(inst, rc, err);
  snprintf(mechanism, mechanism_size, "%s", E2B_MECHANISM);
  return SBIO_OK;
}

static int e2b_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                      sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  return redacted(instance, sbio__e2b_op_create(instance, req, call, sandbox, info, err), err);
}

static int e2b_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                       sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  return redacted(instance, sbio__e2b_op_connect(instance, id, call, sandbox, info, err), err);
}

static int e2b_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__e2b_op_kill(sandbox, call, err), err);
}

static int e2b_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                    sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__e2b_op_exec(sandbox, req, call, exit_code, err), err);
}

static int e2b_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                         sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__e2b_op_file_read(sandbox, path, call, sink, user, err), err);
}

static int e2b_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                          sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__e2b_op_file_write(sandbox, path, data, len, call, err), err);
}

static int e2b_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry, void *user,
                         sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__e2b_op_file_list(sandbox, path, call, entry, user, err), err);
}

static int e2b_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__e2b_op_file_mkdir(sandbox, path, parents, call, err), err);
}

static int e2b_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__e2b_op_file_remove(sandbox, path, call, err), err);
}

static int e2b_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                            sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  return redacted(instance, sbio__e2b_op_list_managed(instance, labels, n_labels, call, entry, user, err), err);
}

static int e2b_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed, sbio_bk_error *err) {
  return redacted(instance, sbio__e2b_op_kill_managed(instance, id, call, killed, err), err);
}

#if SBIO_BACKEND_ABI_MINOR >= 1
static int e2b_probe(void *instance, const sbio_bk_call *call, char *detail, size_t detail_size, sbio_bk_error *err) {
  int rc = redacted(instance, sbio__e2b_op_probe(instance, call, detail, detail_size, err), err);
  if (rc == SBIO_OK && instance) {
    char *clean = sbio_sdk_redact(&((e2b_instance *)instance)->host, ((e2b_instance *)instance)->secrets, detail);
    snprintf(detail, detail_size, "%s", clean ? clean : "(withheld: out of memory)");
    free(clean);
  }
  return rc;
}
#endif

// clang-format off
#define E2B_CAPS                                                                   \
  SBIO_CAP("run_command") "," SBIO_CAP("streaming") "," SBIO_CAP("filesystem") "," \
  SBIO_CAP("upload_download") "," SBIO_CAP("network_policy") ","                   \
  SBIO_CAP("network_allowlist") "," SBIO_CAP("stdin") ","                          \
  SBIO_CAP("separate_stderr") "," SBIO_CAP("managed") "," SBIO_CAP("connect")
// clang-format on

/* E2B's own statement, read on the verified date from the stored copy
 * docs/tiers.md names; re-read it when the date goes stale. */
#define E2B_MECHANISMS                                                                                                 \
  SBIO_MECHANISM("firecracker", "microvm", "https://raw.githubusercontent.com/e2b-dev/runtime/main/README.md",         \
                 "2026-11-29",                                                                                         \
                 "Firecracker microVMs that resume from a snapshot, run untrusted agent code, and pause when the "     \
                 "agent stops.")

/* probe arrived with ABI 1.1; built against 1.0 headers the table simply
 * ends before it (the core then reports probing as unsupported). */
#if SBIO_BACKEND_ABI_MINOR >= 1
#define E2B_PROBE_OP , .probe = e2b_probe
#else
#define E2B_PROBE_OP
#endif

/* The key's variable is declared (ABI 1.4), and so is the setting that
 * names another: the core redacts the key even from what E2B echoes. */
SBIO_BACKEND_WITH_CREDENTIALS("e2b", "0.1.0", "E2B cloud sandboxes: one Firecracker microVM each", E2B_CAPS,
                              E2B_MECHANISMS, SBIO_CREDENTIALS(SBIO_CRED("E2B_API_KEY"), SBIO_CRED("api_key_env")),
                              .open = e2b_open, .close = e2b_close, .plan = e2b_plan, .create = e2b_create,
                              .connect = e2b_connect, .exec = e2b_exec, .file_read = e2b_file_read,
                              .file_write = e2b_file_write, .file_list = e2b_file_list, .file_mkdir = e2b_file_mkdir,
                              .file_remove = e2b_file_remove, .kill = e2b_kill, .release = sbio__e2b_op_release,
                              .list_managed = e2b_list_managed, .kill_managed = e2b_kill_managed E2B_PROBE_OP,
                              .features = SBIO_BK_FEATURE_EXEC_CANCEL)
