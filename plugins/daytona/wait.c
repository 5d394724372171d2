/* SPDX-License-Identifier: MIT */
/* State polling, as Daytona's own SDK waits (waitUntilStarted) but with
 * the failure states the SDK only checks on its build-log path treated as
 * final too: "build_failed" never turns into "started". */
#include "wait.h"

#include <string.h>

int sbio__dt_state_transitional(const char *state) {
  static const char *const states[] = {"creating",          "starting",         "pending_build",
                                       "building_snapshot", "pulling_snapshot", "restoring",
                                       "resuming",          "unknown",          ""};
  for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
    if (strcmp(state, states[i]) == 0) return 1;
  return 0;
}

static int failed(const dt_op *op, const dt_record *rec, sbio_bk_error *err) {
  const char *s = rec->state;
  if (strcmp(s, "error") == 0 || strcmp(s, "build_failed") == 0)
    return sbio_sdk_error(err, op->fail_code,
                          strcmp(s, "build_failed") == 0 ? "check the snapshot or image the sandbox builds from" : NULL,
                          "Daytona sandbox %s failed while %s (state %s): %s", rec->id, op->what, s,
                          rec->error_reason[0] ? rec->error_reason : "Daytona gave no reason");
  return sbio_sdk_error(err, op->fail_code, NULL, "Daytona sandbox %s went to state %s while %s", rec->id, s, op->what);
}

static int too_late(const dt_op *op, const dt_record *rec, sbio_bk_error *err) {
  return sbio_sdk_error(err, op->timeout_code, "raise the create timeout if the snapshot needs longer",
                        "Daytona sandbox %s was still in state %s when the deadline of %s passed", rec->id, rec->state,
                        op->what);
}

int sbio__dt_wait_started(dt_ctx *ctx, dt_record *rec, const dt_op *op, sbio_bk_error *err) {
  const dt_settings *s = &ctx->inst->settings;
  double interval = s->poll_initial_ms / 1000.0;
  for (;;) {
    if (strcmp(rec->state, "started") == 0) return SBIO_OK;
    if (!sbio__dt_state_transitional(rec->state)) return failed(op, rec, err);
    double left = sbio__dt_remaining_s(ctx);
    if (left > 0 && sbio__dt_sleep(ctx, interval < left ? interval : left))
      return sbio_sdk_error(err, op->fail_code, NULL, "%s was cancelled", op->what);
    if (sbio__dt_remaining_s(ctx) <= 0) return too_late(op, rec, err);
    interval *= 1.5;
    if (interval > s->poll_max_ms / 1000.0) interval = s->poll_max_ms / 1000.0;
    dt_record next;
    int found = 0;
    int rc = sbio__dt_api_get(ctx, rec->id, op, &next, &found, err);
    if (rc == op->timeout_code) return too_late(op, rec, err); /* the poll itself ran into the deadline */
    if (rc != SBIO_OK) return rc;
    if (!found)
      return sbio_sdk_error(err, op->fail_code, NULL, "Daytona sandbox %s disappeared while %s", rec->id, op->what);
    sbio__dt_record_free(rec);
    *rec = next;
  }
}
