/* SPDX-License-Identifier: MIT */
/* Managed sandboxes for `sbio reap`: the ones sandboxio created (labelled
 * sandboxio_managed=true), found through the paginated /v2/sandboxes
 * listing filtered by metadata, and killed by id. */
#include "api.h"
#include "createreq.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PAGES 1000 /* 100 000 sandboxes: beyond that the token is looping */

/* "2026-11-29T10:11:12.123Z" (or with an offset) -> unix seconds; -1. */
static int64_t parse_time(const char *text) {
  if (!text) return -1;
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *rest = strptime(text, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest) return -1;
  int64_t t = (int64_t)timegm(&tm);
  while (*rest == '.' || (*rest >= '0' && *rest <= '9')) rest++;
  if (*rest == '+' || *rest == '-') {
    int hh = 0, mm = 0;
    if (sscanf(rest + 1, "%2d:%2d", &hh, &mm) == 2) t -= (*rest == '+' ? 1 : -1) * (int64_t)(hh * 3600 + mm * 60);
  }
  return t;
}

static int is_marker(const char *key) {
  return strcmp(key, sbio__e2b_label_managed()) == 0 || strcmp(key, sbio__e2b_label_session()) == 0;
}

static void report(const cJSON *item, sbio_bk_managed_fn entry, void *user) {
  const cJSON *id = cJSON_GetObjectItemCaseSensitive(item, "sandboxID");
  const cJSON *state = cJSON_GetObjectItemCaseSensitive(item, "state");
  const cJSON *started = cJSON_GetObjectItemCaseSensitive(item, "startedAt");
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(item, "metadata");
  if (!cJSON_IsString(id) || !id->valuestring) return;
  size_t n = 0, cap = (size_t)cJSON_GetArraySize(meta);
  sbio_bk_kv *labels = cap ? calloc(cap, sizeof *labels) : NULL;
  const cJSON *m;
  cJSON_ArrayForEach(m, meta) {
    /* Caller labels only; the markers are sandboxio's bookkeeping. */
    if (labels && n < cap && m->string && cJSON_IsString(m) && m->valuestring && !is_marker(m->string))
      labels[n++] = (sbio_bk_kv){m->string, m->valuestring};
  }
  sbio_bk_managed e = {.size = sizeof e,
                       .id = id->valuestring,
                       .state = cJSON_IsString(state) && state->valuestring ? state->valuestring : "running",
                       .created_at = parse_time(cJSON_IsString(started) ? started->valuestring : NULL),
                       .labels = labels,
                       .n_labels = n};
  entry(user, &e);
  free(labels);
}

int sbio__e2b_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                              sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  e2b_instance *inst = instance;
  if (!inst || !entry || !sbio__e2b_call_ok(call) || (n_labels && !labels))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b list: missing argument");
  char *query = sbio__e2b_metadata_query(labels, n_labels);
  if (!query) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  char token[1024] = "", next[1024];
  int rc = SBIO_OK;
  for (int page = 0; page < MAX_PAGES; page++) {
    cJSON *items = NULL;
    rc = sbio__e2b_api_list_page(inst, call, query, token[0] ? token : NULL, &items, next, sizeof next, err);
    if (rc != SBIO_OK) break;
    const cJSON *item;
    cJSON_ArrayForEach(item, items) report(item, entry, user);
    cJSON_Delete(items);
    if (!next[0]) break;
    /* A token that comes back as it was sent, or pages past any real
     * account: the listing loops. Stopping quietly would hand `sbio reap`
     * a partial list as if it were whole. */
    if (strcmp(next, token) == 0 || page + 1 >= MAX_PAGES) {
      rc = sbio_sdk_error(err, SBIO_E_CONNECT, "check E2B's status; the listing is not complete",
                          "e2b: the sandbox list (GET /v2/sandboxes) does not end (X-Next-Token repeated, or more "
                          "than %d pages)",
                          MAX_PAGES);
      break;
    }
    snprintf(token, sizeof token, "%s", next);
  }
  free(query);
  return rc;
}

int sbio__e2b_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed,
                              sbio_bk_error *err) {
  e2b_instance *inst = instance;
  if (!inst || !id || !killed || !sbio__e2b_call_ok(call))
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "e2b kill: missing argument");
  *killed = 0;
  for (const char *p = id; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')) || p - id > 126)
      return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "e2b: '%.64s' is not an E2B sandbox id", id);
  return sbio__e2b_api_kill(inst, call, id, killed, err);
}
