/* SPDX-License-Identifier: MIT */
/* Sandbox handles: connect to one this backend created, kill (delete it),
 * release. */
#include "ops.h"

#include "request.h"
#include "toolbox.h"
#include "wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REAP_HINT "`sbio reap --kill --backend daytona` removes it later"

int sbio__dt_sandbox_new(dt_instance *inst, const char *id, const char *toolbox, dt_sandbox **out, sbio_bk_error *err) {
  *out = NULL;
  dt_sandbox *sb = calloc(1, sizeof *sb);
  if (!sb || pthread_mutex_init(&sb->kill_lock, NULL) != 0) {
    free(sb);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory creating a Daytona sandbox handle");
  }
  sb->inst = inst;
  snprintf(sb->id, sizeof sb->id, "%s", id);
  atomic_init(&sb->killed, 0);
  /* The toolbox proxy authenticates the same key as the API: the same
   * client rules, a larger answer allowance (a command's whole output). */
  sbio_sdk_http_options o = sbio__dt_client_options(inst);
  o.base_url = toolbox;
  o.body_limit = DT_TOOLBOX_BODY_LIMIT;
  int rc = sbio_sdk_http_new(&o, &sb->toolbox, err);
  if (rc != SBIO_OK) {
    pthread_mutex_destroy(&sb->kill_lock);
    free(sb);
    return rc;
  }
  *out = sb;
  return SBIO_OK;
}

void sbio__dt_fill_info(sbio_bk_sandbox_info *info, const char *id) {
  if (info->size >= offsetof(sbio_bk_sandbox_info, id) + sizeof info->id) snprintf(info->id, sizeof info->id, "%s", id);
  if (info->size >= offsetof(sbio_bk_sandbox_info, mechanism) + sizeof info->mechanism)
    snprintf(info->mechanism, sizeof info->mechanism, "%s", DT_MECHANISM);
}

/* Only sandboxes this backend created are connected to: they carry the
 * managed label, and their lifetime backstop with it. */
static int check_connectable(const dt_record *rec, sbio_bk_error *err) {
  const char *managed = sbio__dt_record_label(rec, DT_LABEL_MANAGED);
  if (!managed || strcmp(managed, "true") != 0)
    return sbio_sdk_error(err, SBIO_E_CONNECT, "connect only to sandboxes sandboxio created",
                          "Daytona sandbox %s was not created by sandboxio (no %s=true label)", rec->id,
                          DT_LABEL_MANAGED);
  if (strcmp(rec->state, "started") == 0 || sbio__dt_state_transitional(rec->state)) return SBIO_OK;
  return sbio_sdk_error(err, SBIO_E_CONNECT, "only a running sandbox can be connected to",
                        "Daytona sandbox %s is %s, not running", rec->id, rec->state);
}

int sbio__dt_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                        sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  dt_instance *inst = instance;
  if (!inst || !id || !*id || !call || !sandbox || !info)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona connect: missing argument");
  *sandbox = NULL;
  char what[200];
  snprintf(what, sizeof what, "connecting to sandbox %.128s", id);
  dt_op op = {what, SBIO_E_CONNECT, SBIO_E_CONNECT, SBIO_E_CONNECT};
  dt_ctx ctx;
  dt_record rec;
  int found = 0;
  int rc = sbio__dt_ctx_init(&ctx, inst, call, NULL, err);
  if (rc == SBIO_OK) rc = sbio__dt_api_get(&ctx, id, &op, &rec, &found, err);
  if (rc == SBIO_OK && !found) {
    sbio__dt_ctx_done(&ctx);
    return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "no Daytona sandbox %.128s exists (it may have been deleted)", id);
  }
  char toolbox[1024];
  dt_sandbox *sb = NULL;
  if (rc == SBIO_OK) {
    rc = check_connectable(&rec, err);
    if (rc == SBIO_OK) rc = sbio__dt_wait_started(&ctx, &rec, &op, err);
    if (rc == SBIO_OK) rc = sbio__dt_toolbox_resolve(&ctx, &rec, &op, toolbox, sizeof toolbox, err);
    if (rc == SBIO_OK) rc = sbio__dt_sandbox_new(inst, rec.id, toolbox, &sb, err);
    sbio__dt_record_free(&rec);
  }
  sbio__dt_ctx_done(&ctx);
  if (rc != SBIO_OK) return rc;
  sbio__dt_fill_info(info, sb->id);
  *sandbox = sb;
  return SBIO_OK;
}

int sbio__dt_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  dt_sandbox *sb = sandbox;
  if (!sb || !call) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona kill: missing argument");
  /* First: an exec or transfer in flight on another thread stops now. */
  atomic_store(&sb->killed, 1);
  pthread_mutex_lock(&sb->kill_lock);
  int rc = SBIO_OK;
  if (!sb->deleted) {
    char what[200];
    snprintf(what, sizeof what, "deleting sandbox %s", sb->id);
    dt_op op = {what, SBIO_E_CONNECT, SBIO_E_CONNECT, SBIO_E_CONNECT};
    dt_ctx ctx;
    int existed = 0;
    /* This call's own context: it must not see the killed flag it set. */
    rc = sbio__dt_ctx_init(&ctx, sb->inst, call, NULL, err);
    if (rc == SBIO_OK) rc = sbio__dt_api_delete(&ctx, sb->id, &op, &existed, err);
    sbio__dt_ctx_done(&ctx);
    if (rc == SBIO_OK)
      sb->deleted = 1;
    else if (rc == SBIO_E_CONNECT)
      snprintf(err->hint, sizeof err->hint, "%s", REAP_HINT);
  }
  pthread_mutex_unlock(&sb->kill_lock);
  return rc;
}

void sbio__dt_op_release(void *sandbox) {
  dt_sandbox *sb = sandbox;
  if (!sb) return;
  sbio_sdk_http_free(sb->toolbox);
  pthread_mutex_destroy(&sb->kill_lock);
  free(sb);
}
