/* SPDX-License-Identifier: MIT */
/* A sandbox as Daytona describes it (schemas Sandbox and SandboxListItem),
 * reduced to what the backend uses. */
#ifndef SBIO_DAYTONA_RECORD_H
#define SBIO_DAYTONA_RECORD_H

#include <cjson/cJSON.h>
#include <sandboxio/sdk.h>
#include <stdint.h>

typedef struct dt_record {
  char id[128];
  char name[256];
  char state[32]; /* SandboxState; "" when absent */
  char desired_state[32];
  char error_reason[256];
  char toolbox_url[1024]; /* toolboxProxyUrl; "" when absent (older API) */
  char sandbox_class[32];
  int64_t created_at; /* unix seconds; -1 unknown */
  sbio_bk_kv *labels; /* malloc'd keys and values */
  size_t n_labels;
} dt_record;

/* 0 on success; -1 when `obj` is not an object with a non-empty string
 * "id" that fits, or on out-of-memory (*oom set). */
int sbio__dt_record_parse(const cJSON *obj, dt_record *out, int *oom);
void sbio__dt_record_free(dt_record *r);
/* The value of a label, NULL when absent. */
const char *sbio__dt_record_label(const dt_record *r, const char *key);

/* RFC 3339 ("2026-11-29T09:25:32.773Z", "...+02:00") to unix seconds;
 * -1 when it does not parse. */
int64_t sbio__dt_parse_time(const char *text);

#endif
