/* SPDX-License-Identifier: MIT */
/* sbio-backend-daytona: Daytona sandboxes through Daytona's REST and
 * toolbox APIs (docs/backends/daytona.md).
 *
 * Its isolation tier is UNKNOWN on purpose. Daytona's own documentation
 * describes the same sandboxes as Linux containers sharing the host kernel,
 * as Sysbox containers, as having a dedicated kernel, and as Firecracker
 * microVMs; until one current page settles which mechanism a sandbox
 * created through this API gets, no tier is claimed (docs/tiers.md). */
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USER_AGENT "sandboxio-daytona/" DT_VERSION

sbio_sdk_http_options sbio__dt_client_options(const dt_instance *inst) {
  const dt_settings *s = &inst->settings;
  /* Daytona's throttler refuses before any handler runs (429: retried
   * for any request, by the SDK); 5xx are worth another try only for
   * requests that may be repeated. 408 is a command's own timeout. */
  static const long retry_statuses[] = {500, 502, 503, 504};
  return (sbio_sdk_http_options){
      .backend = "daytona",
      .secrets = inst->secrets,
      .host = &inst->host,
      .user_agent = USER_AGENT,
      .credential_env = s->api_key_env,
      .connect_timeout_ms = (long)(s->connect_timeout_s * 1000) > 0 ? (long)(s->connect_timeout_s * 1000) : 1,
      .request_timeout_ms = (long)(s->request_timeout_s * 1000) > 0 ? (long)(s->request_timeout_s * 1000) : 1,
      .max_attempts = s->max_retries + 1,
      .backoff_initial_ms = s->retry_base_ms,
      .backoff_max_ms = s->retry_max_ms,
      /* However long Daytona asks to wait, the operation's deadline decides. */
      .retry_after_max_ms = SBIO_SDK_RETRY_AFTER_CAP_MS,
      .retry_statuses = retry_statuses,
      .n_retry_statuses = sizeof retry_statuses / sizeof retry_statuses[0],
      .loopback_http_only = 1,
      .body_limit = DT_API_BODY_LIMIT,
  };
}

static void instance_free(dt_instance *inst) {
  if (!inst) return;
  sbio_sdk_http_free(inst->api);
  sbio_sdk_secrets_free(inst->secrets);
  sbio__dt_settings_free(&inst->settings);
  free(inst);
}

static int dt_open(const sbio_host_services *host, const char *settings_json, void **instance, sbio_bk_error *err) {
  if (!instance) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona open: no instance slot");
  *instance = NULL;
  dt_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory opening the daytona backend");
  if (host) {
    size_t n = host->size < sizeof inst->host ? host->size : sizeof inst->host;
    memcpy(&inst->host, host, n);
    inst->host.size = (uint32_t)n;
  }
  int rc = sbio__dt_settings_parse(settings_json, &inst->settings, err);
  if (rc != SBIO_OK) {
    sbio_sdk_redact_error(&inst->host, NULL, err);
    free(inst);
    return rc;
  }
  inst->secrets = sbio_sdk_secrets_new();
  const char *headers[2] = {"X-Daytona-Source: sandboxio"};
  char org[600];
  size_t n_headers = 1;
  if (inst->settings.organization_id) {
    snprintf(org, sizeof org, "X-Daytona-Organization-ID: %.500s", inst->settings.organization_id);
    headers[n_headers++] = org;
  }
  sbio_sdk_http_options o = sbio__dt_client_options(inst);
  o.base_url = inst->settings.api_url;
  o.headers = headers;
  o.n_headers = n_headers;
  rc = inst->secrets ? sbio_sdk_http_new(&o, &inst->api, err)
                     : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory opening the daytona backend");
  if (rc != SBIO_OK) {
    instance_free(inst);
    return rc;
  }
  atomic_init(&inst->next_name, 0);
  /* A configured name whose variable is unset may be the key itself,
   * pasted where its name belongs: it is named only once it is set. */
  const char *key_var = inst->settings.api_key_env, *key_set = getenv(key_var);
  int key_named = !strcmp(key_var, DT_DEFAULT_KEY_ENV) || (key_set && key_set[0]);
  sbio__dt_log(inst, SBIO_BK_LOG_DEBUG, "daytona: API %s (from %s), key from %s", inst->settings.api_url,
               inst->settings.api_url_from, key_named ? key_var : "the variable settings.api_key_env names");
  *instance = inst;
  return SBIO_OK;
}

static void dt_close(void *instance) {
  instance_free(instance);
}

/* Every message that leaves the backend goes through the SDK's redaction:
 * the API key as read (Daytona may echo a request back), then what the
 * host knows. */
static int redacted(const dt_instance *inst, int rc, sbio_bk_error *err) {
  if (rc != SBIO_OK && inst) sbio_sdk_redact_error(&inst->host, inst->secrets, err);
  return rc;
}

static const dt_instance *owner(const void *sandbox) {
  return sandbox ? ((const dt_sandbox *)sandbox)->inst : NULL;
}

static int dt_plan(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                   sbio_bk_error *err) {
  return redacted(instance, sbio__dt_op_plan(instance, req, mechanism, mechanism_size, err), err);
}

static int dt_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                     sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  return redacted(instance, sbio__dt_op_create(instance, req, call, sandbox, info, err), err);
}

static int dt_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                      sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  return redacted(instance, sbio__dt_op_connect(instance, id, call, sandbox, info, err), err);
}

static int dt_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                   sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__dt_op_exec(sandbox, req, call, exit_code, err), err);
}

static int dt_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                        sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__dt_op_file_read(sandbox, path, call, sink, user, err), err);
}

static int dt_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                         sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__dt_op_file_write(sandbox, path, data, len, call, err), err);
}

static int dt_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry, void *user,
                        sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__dt_op_file_list(sandbox, path, call, entry, user, err), err);
}

static int dt_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__dt_op_file_mkdir(sandbox, path, parents, call, err), err);
}

static int dt_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__dt_op_file_remove(sandbox, path, call, err), err);
}

static int dt_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  return redacted(owner(sandbox), sbio__dt_op_kill(sandbox, call, err), err);
}

static int dt_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                           sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  return redacted(instance, sbio__dt_op_list_managed(instance, labels, n_labels, call, entry, user, err), err);
}

static int dt_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed, sbio_bk_error *err) {
  return redacted(instance, sbio__dt_op_kill_managed(instance, id, call, killed, err), err);
}

// clang-format off
#define DT_CAPS                                                                                                        \
  SBIO_CAP("run_command") "," SBIO_CAP("filesystem") "," SBIO_CAP("upload_download") ","                              \
  SBIO_CAP("network_policy") "," SBIO_CAP("network_allowlist") "," SBIO_CAP("managed") "," SBIO_CAP("connect")
// clang-format on

/* One sentence, shown by `sbio inspect daytona` as the reason the tier is
 * UNKNOWN: which of Daytona's own pages disagree, and how. */
#define DT_MECHANISMS                                                                                                  \
  SBIO_MECHANISM_UNVERIFIED(DT_MECHANISM,                                                                              \
                            "Daytona's own documentation contradicts itself: docs/en/sandboxes says a dedicated "      \
                            "kernel, docs/en/linux-sandboxes a shared host kernel, docs/en/security-exhibit Sysbox, "  \
                            "docs/en/v2/isolation Firecracker microVMs")

/* The key's variable is declared (ABI 1.4), and so is the setting that
 * names another: the core redacts the key even from what Daytona echoes. */
SBIO_BACKEND_WITH_CREDENTIALS("daytona", DT_VERSION,
                              "Daytona sandboxes over its REST and toolbox APIs (tier unverified)", DT_CAPS,
                              DT_MECHANISMS, SBIO_CREDENTIALS(SBIO_CRED("DAYTONA_API_KEY"), SBIO_CRED("api_key_env")),
                              .open = dt_open, .close = dt_close, .plan = dt_plan, .create = dt_create,
                              .connect = dt_connect, .exec = dt_exec, .file_read = dt_file_read,
                              .file_write = dt_file_write, .file_list = dt_file_list, .file_mkdir = dt_file_mkdir,
                              .file_remove = dt_file_remove, .kill = dt_kill, .release = sbio__dt_op_release,
                              .list_managed = dt_list_managed, .kill_managed = dt_kill_managed,
                              .features = SBIO_BK_FEATURE_EXEC_CANCEL)
