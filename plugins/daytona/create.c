/* SPDX-License-Identifier: MIT */
/* plan and create. A create is POST /sandbox, a wait until "started", and
 * the toolbox address; a failure at any step deletes what was made, so
 * nothing stays provisioned. Each sandbox gets a name of its own, so that a
 * POST whose answer was lost can still be found and deleted. */
#include "ops.h"

#include "request.h"
#include "toolbox.h"
#include "wait.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbio__dt_op_plan(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                     sbio_bk_error *err) {
  dt_instance *inst = instance;
  if (!inst || !req || !mechanism || mechanism_size < sizeof DT_MECHANISM)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona plan: missing argument");
  int rc = sbio__dt_check_request(&inst->settings, req, err);
  if (rc == SBIO_OK) snprintf(mechanism, mechanism_size, "%s", DT_MECHANISM);
  return rc;
}

/* "sbio-<session>-<n>": unique per process and session, and only made of
 * characters any sandbox name accepts. */
static void sandbox_name(dt_instance *inst, const char *session, char *out, size_t size) {
  char clean[40];
  size_t o = 0;
  for (const char *p = session ? session : ""; *p && o + 1 < sizeof clean; p++)
    if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) clean[o++] = *p;
  clean[o] = '\0';
  unsigned n = atomic_fetch_add(&inst->next_name, 1) + 1;
  snprintf(out, size, "sbio-%s-%u", o ? clean : "nosession", n);
}

/* Deletes what `key` (an id or a name) names; *gone: it existed and was
 * deleted. A name is looked up first: deleting by a name no sandbox has is
 * a request for nothing, and the lookup says so without one. */
static int delete_one(dt_ctx *ctx, const char *key, int is_name, const dt_op *op, int *gone, sbio_bk_error *err) {
  *gone = 0;
  if (is_name) {
    dt_record rec;
    int found = 0;
    int rc = sbio__dt_api_get(ctx, key, op, &rec, &found, err);
    if (rc != SBIO_OK || !found) return rc;
    sbio__dt_record_free(&rec);
  }
  return sbio__dt_api_delete(ctx, key, op, gone, err);
}

void sbio__dt_cleanup(dt_instance *inst, const sbio_bk_call *call, const char *id, const char *name) {
  if (id && !id[0]) id = NULL;
  if (!id && !name) return;
  /* The failed call's deadline may have passed, or it may be cancelled:
   * the clean-up has a budget of its own and is never cancelled. */
  sbio_bk_call own;
  sbio_sdk_call_cleanup(&own, call, inst->settings.cleanup_timeout_s);
  dt_ctx ctx;
  sbio_bk_error err = {.size = sizeof err};
  char what[300];
  snprintf(what, sizeof what, "deleting sandbox %s after a failed create", id ? id : name);
  dt_op op = {what, SBIO_E_CONNECT, SBIO_E_CONNECT, SBIO_E_CONNECT};
  int gone = 0, rc = sbio__dt_ctx_init(&ctx, inst, &own, NULL, &err);
  if (rc == SBIO_OK && id) rc = delete_one(&ctx, id, 0, &op, &gone, &err);
  /* No id, or the answer's id named no sandbox: the name create chose is
   * the one handle left on what it made. */
  if (rc == SBIO_OK && !gone && name) rc = delete_one(&ctx, name, 1, &op, &gone, &err);
  sbio__dt_ctx_done(&ctx);
  if (rc != SBIO_OK)
    sbio__dt_log(inst, SBIO_BK_LOG_ERROR,
                 "daytona: could not delete sandbox %s after a failed create: %s; "
                 "`sbio reap --kill --backend daytona` removes it",
                 id ? id : name, err.message);
}

/* After POST /sandbox answered: wait until started and find the toolbox. */
static int finish(dt_ctx *ctx, dt_record *rec, dt_sandbox **out, sbio_bk_error *err) {
  dt_op op = {"starting a Daytona sandbox", SBIO_E_CREATE, SBIO_E_CREATE, SBIO_E_CREATE_TIMEOUT};
  int rc = sbio__dt_wait_started(ctx, rec, &op, err);
  char toolbox[1024];
  if (rc == SBIO_OK) rc = sbio__dt_toolbox_resolve(ctx, rec, &op, toolbox, sizeof toolbox, err);
  if (rc == SBIO_OK) rc = sbio__dt_sandbox_new(ctx->inst, rec->id, toolbox, out, err);
  if (rc == SBIO_OK)
    sbio__dt_log(ctx->inst, SBIO_BK_LOG_DEBUG, "daytona: sandbox %s started (class %s)", rec->id,
                 rec->sandbox_class[0] ? rec->sandbox_class : "not reported");
  return rc;
}

int sbio__dt_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                       sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  dt_instance *inst = instance;
  if (!inst || !req || !call || !sandbox || !info)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona create: missing argument");
  *sandbox = NULL;
  dt_ctx ctx;
  int rc = sbio__dt_ctx_init(&ctx, inst, call, NULL, err);
  char name[80], *body = NULL;
  sandbox_name(inst, req->session_id, name, sizeof name);
  if (rc == SBIO_OK) rc = sbio__dt_create_body(&inst->settings, req, name, &body, err);
  if (rc != SBIO_OK) {
    sbio__dt_ctx_done(&ctx);
    return rc;
  }
  dt_op op = {"creating a Daytona sandbox", SBIO_E_CREATE, SBIO_E_CREATE, SBIO_E_CREATE_TIMEOUT};
  dt_record rec;
  int ambiguous = 0;
  rc = sbio__dt_api_create(&ctx, body, &op, &rec, &ambiguous, err);
  /* The body carries the secrets; do not leave them in freed memory. */
  memset(body, 0, strlen(body));
  free(body);
  dt_sandbox *sb = NULL;
  if (rc != SBIO_OK) {
    if (ambiguous) sbio__dt_cleanup(inst, call, NULL, name);
  } else {
    rc = finish(&ctx, &rec, &sb, err);
    if (rc != SBIO_OK) sbio__dt_cleanup(inst, call, rec.id, name);
    sbio__dt_record_free(&rec);
  }
  sbio__dt_ctx_done(&ctx);
  if (rc != SBIO_OK) return rc;
  sbio__dt_fill_info(info, sb->id);
  *sandbox = sb;
  return SBIO_OK;
}
