/* SPDX-License-Identifier: MIT */
/* Managed sandboxes for `sbio reap`: listed by the managed label (and the
 * caller's label filter), page after page, whichever list shape the server
 * speaks. The filter is applied again on this side, so a server that
 * ignores the labels query (or an older one) cannot make reap see, or
 * delete, a sandbox that is not sandboxio's. */
#include "ops.h"

#include "request.h"
#include "rest.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAGES 10000

typedef struct {
  const sbio_bk_kv *filter;
  size_t n_filter;
  sbio_bk_managed_fn entry;
  void *user;
  int oom;
} lister;

static const char *reap_state(const char *state) {
  if (strcmp(state, "started") == 0) return "running";
  if (strcmp(state, "paused") == 0) return "paused";
  return "stopped"; /* held by Daytona but not running: stopped, error, archived, starting... */
}

static int matches(const lister *l, const dt_record *r) {
  const char *m = sbio__dt_record_label(r, DT_LABEL_MANAGED);
  if (!m || strcmp(m, "true") != 0) return 0;
  for (size_t i = 0; i < l->n_filter; i++) {
    const char *v = sbio__dt_record_label(r, l->filter[i].key);
    if (!v || strcmp(v, l->filter[i].value ? l->filter[i].value : "") != 0) return 0;
  }
  return strcmp(r->state, "destroyed") != 0 && strcmp(r->state, "destroying") != 0;
}

static void on_record(void *user, const dt_record *r) {
  lister *l = user;
  if (!matches(l, r)) return;
  /* Labels handed back are the caller's own, without the markers. */
  sbio_bk_kv *kv = r->n_labels ? calloc(r->n_labels, sizeof *kv) : NULL;
  if (r->n_labels && !kv) {
    l->oom = 1;
    return;
  }
  size_t n = 0;
  for (size_t i = 0; i < r->n_labels; i++)
    if (strncmp(r->labels[i].key, DT_LABEL_PREFIX, strlen(DT_LABEL_PREFIX)) != 0) kv[n++] = r->labels[i];
  sbio_bk_managed m = {.size = sizeof m,
                       .id = r->id,
                       .state = reap_state(r->state),
                       .created_at = r->created_at,
                       .labels = kv,
                       .n_labels = n};
  l->entry(l->user, &m);
  free(kv);
}

static char *filter_json(const sbio_bk_kv *labels, size_t n) {
  cJSON *o = cJSON_CreateObject();
  int bad = !o || !cJSON_AddStringToObject(o, DT_LABEL_MANAGED, "true");
  for (size_t i = 0; !bad && i < n; i++)
    if (labels[i].key && !cJSON_GetObjectItemCaseSensitive(o, labels[i].key))
      bad = !cJSON_AddStringToObject(o, labels[i].key, labels[i].value ? labels[i].value : "");
  char *text = bad ? NULL : cJSON_PrintUnformatted(o);
  cJSON_Delete(o);
  return text;
}

int sbio__dt_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                             sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  dt_instance *inst = instance;
  if (!inst || !call || !entry || (n_labels && !labels))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona list_managed: missing argument");
  dt_ctx ctx;
  int rc = sbio__dt_ctx_init(&ctx, inst, call, NULL, err);
  if (rc != SBIO_OK) return rc;
  char *filter = filter_json(labels, n_labels);
  if (!filter) {
    sbio__dt_ctx_done(&ctx);
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  dt_op op = {"listing Daytona sandboxes", SBIO_E_CONNECT, SBIO_E_CONNECT, SBIO_E_CONNECT};
  lister l = {labels, n_labels, entry, user, 0};
  char *cursor = NULL;
  for (int page = 0; rc == SBIO_OK; page++) {
    char *next = NULL;
    rc = sbio__dt_api_list_page(&ctx, filter, cursor, &op, on_record, &l, &next, err);
    if (rc == SBIO_OK && l.oom) rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory listing sandboxes");
    if (rc == SBIO_OK && next && ((cursor && strcmp(next, cursor) == 0) || page + 1 >= MAX_PAGES))
      rc = sbio_sdk_error(err, SBIO_E_CONNECT, NULL,
                          "Daytona's sandbox list does not end (cursor repeated or more than %d pages)", MAX_PAGES);
    free(cursor);
    cursor = next;
    if (!cursor) break;
  }
  free(cursor);
  free(filter);
  sbio__dt_ctx_done(&ctx);
  return rc;
}

int sbio__dt_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed,
                             sbio_bk_error *err) {
  dt_instance *inst = instance;
  if (!inst || !id || !*id || !call || !killed)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "daytona kill_managed: missing argument");
  *killed = 0;
  char what[200];
  snprintf(what, sizeof what, "deleting sandbox %.128s", id);
  dt_op op = {what, SBIO_E_CONNECT, SBIO_E_CONNECT, SBIO_E_CONNECT};
  dt_ctx ctx;
  dt_record rec;
  int found = 0, existed = 0;
  int rc = sbio__dt_ctx_init(&ctx, inst, call, NULL, err);
  if (rc == SBIO_OK) rc = sbio__dt_api_get(&ctx, id, &op, &rec, &found, err);
  if (rc == SBIO_OK && found) {
    /* Reap deletes only what sandboxio made, whatever id it is given. */
    const char *m = sbio__dt_record_label(&rec, DT_LABEL_MANAGED);
    if (!m || strcmp(m, "true") != 0)
      rc = sbio_sdk_error(err, SBIO_E_CONNECT, "reap removes only sandboxes sandboxio created",
                          "refusing to delete Daytona sandbox %s: it has no %s=true label", rec.id, DT_LABEL_MANAGED);
    else if (strcmp(rec.state, "destroyed") != 0 && strcmp(rec.state, "destroying") != 0)
      rc = sbio__dt_api_delete(&ctx, rec.id, &op, &existed, err);
    sbio__dt_record_free(&rec);
  }
  sbio__dt_ctx_done(&ctx);
  *killed = existed;
  return rc;
}
