/* SPDX-License-Identifier: MIT */
/* No orphan left: after every case has closed its sandboxes, the backend
 * lists none carrying this run's label. Whatever it does list is removed
 * here, so a failing run still leaves nothing behind. */
#include "cases.h"

#include <stdio.h>
#include <string.h>

void kit_cleanup_no_orphans(kit_case *c) {
  kit_ctx *ctx = c->ctx;
  const char *labels[] = {ctx->run_label, NULL};
  sbio_managed_list *l = NULL;
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_managed_list_get(ctx->host, ctx->backend, labels, &l, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "listing the sandboxes of this run failed: %s", kit_err_text(c, rc, err));
    return;
  }
  size_t n = sbio_managed_list_count(l);
  char ids[1024] = "";
  size_t used = 0;
  for (size_t i = 0; i < n; i++) {
    const char *id = sbio_managed_list_id(l, i);
    int w = snprintf(ids + used, sizeof ids - used, "%s%s (%s)", used ? ", " : "", id, sbio_managed_list_state(l, i));
    if (w > 0 && (size_t)w < sizeof ids - used) used += (size_t)w;
    int killed = 0;
    if (sbio_managed_kill(ctx->host, ctx->backend, id, &killed, err) == SBIO_OK && killed) ctx->reaped++;
  }
  sbio_managed_list_free(l);
  if (n)
    kit_fail(c,
             "%zu sandbox(es) of this run (label %s) are still held by the provider after every handle was "
             "closed: %s",
             n, ctx->run_label, ids);
  else
    kit_note(c, "none listed with %s", ctx->run_label);
}
