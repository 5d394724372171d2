/* SPDX-License-Identifier: MIT */
#include "report.h"

#include "registry.h"
#include "runner.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *status_word(kit_status s) {
  switch (s) {
  case KIT_PASS:
    return "pass";
  case KIT_WARN:
    return "warn";
  case KIT_SKIP:
    return "skip";
  case KIT_FAIL:
    return "fail";
  case KIT_NOT_RUN:
    return "not_run";
  }
  return "unknown";
}

static cJSON *caps_array(sbio_caps caps) {
  cJSON *arr = cJSON_CreateArray();
  for (size_t bit = 0; arr && bit < 64; bit++) {
    sbio_caps flag = (sbio_caps)1 << bit;
    const char *name = (caps & flag) ? sbio_capability_name(flag) : NULL;
    if (name) cJSON_AddItemToArray(arr, cJSON_CreateString(name));
  }
  return arr;
}

static void add_str_or_null(cJSON *obj, const char *key, const char *value) {
  if (value && value[0])
    cJSON_AddStringToObject(obj, key, value);
  else
    cJSON_AddNullToObject(obj, key);
}

static cJSON *backend_object(const kit_ctx *ctx) {
  cJSON *b = cJSON_CreateObject();
  if (!b) return NULL;
  const sbio_backend_info *info = ctx->info;
  cJSON_AddStringToObject(b, "name", ctx->backend);
  add_str_or_null(b, "path", info ? sbio_backend_info_path(info) : NULL);
  add_str_or_null(b, "version", info ? sbio_backend_info_version(info) : NULL);
  add_str_or_null(b, "status", info ? sbio_backend_status_name(sbio_backend_info_status(info)) : NULL);
  cJSON_AddBoolToObject(b, "usable", ctx->usable);
  add_str_or_null(b, "unusable_reason", ctx->usable ? NULL : ctx->unusable);
  add_str_or_null(b, "tier", info ? sbio_tier_name(ctx->tier) : NULL);
  cJSON_AddItemToObject(b, "capabilities", caps_array(ctx->caps));
  cJSON *mechs = cJSON_AddArrayToObject(b, "mechanisms");
  for (size_t i = 0; info && mechs && i < sbio_backend_info_mechanism_count(info); i++) {
    cJSON *m = cJSON_CreateObject();
    if (!m) break;
    cJSON_AddStringToObject(m, "name", sbio_mechanism_name(info, i));
    cJSON_AddStringToObject(m, "tier", sbio_tier_name(sbio_mechanism_tier(info, i)));
    cJSON_AddStringToObject(m, "claimed_tier", sbio_tier_name(sbio_mechanism_claimed_tier(info, i)));
    add_str_or_null(m, "source_url", sbio_mechanism_source_url(info, i));
    add_str_or_null(m, "verified_on", sbio_mechanism_verified_on(info, i));
    cJSON_AddItemToArray(mechs, m);
  }
  return b;
}

static cJSON *reference_array(const char *refs) {
  cJSON *arr = cJSON_CreateArray();
  for (const char *p = refs; arr && p && *p;) {
    char *end = NULL;
    long n = strtol(p, &end, 10);
    if (end == p) break;
    cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)n));
    p = *end == ',' ? end + 1 : end;
  }
  return arr;
}

static cJSON *build(const kit_ctx *ctx) {
  cJSON *root = cJSON_CreateObject();
  if (!root) return NULL;
  cJSON_AddStringToObject(root, "schema", KIT_REPORT_SCHEMA);
  cJSON_AddStringToObject(root, "kit_version", KIT_VERSION);
  cJSON_AddStringToObject(root, "library_version", sbio_version());
  cJSON_AddStringToObject(root, "uri", ctx->opt.uri);
  cJSON_AddStringToObject(root, "run_id", ctx->run_id);
  cJSON_AddItemToObject(root, "backend", backend_object(ctx));
  size_t counts[KIT_NOT_RUN + 1] = {0};
  cJSON *cases = cJSON_CreateArray();
  char group[64];
  for (size_t i = 0; cases && i < ctx->n_results; i++) {
    const kit_result *r = &ctx->results[i];
    counts[r->status]++;
    cJSON *c = cJSON_CreateObject();
    if (!c) break;
    cJSON_AddStringToObject(c, "name", r->def->name);
    cJSON_AddStringToObject(c, "group", kit_case_group(r->def, group, sizeof group));
    cJSON_AddItemToObject(c, "reference", reference_array(r->def->refs));
    cJSON_AddStringToObject(c, "status", status_word(r->status));
    cJSON_AddStringToObject(c, "reason", r->reason ? r->reason : "");
    cJSON_AddNumberToObject(c, "duration_ms", (double)(long long)(r->seconds * 1000));
    cJSON_AddItemToArray(cases, c);
  }
  cJSON *summary = cJSON_AddObjectToObject(root, "summary");
  for (int s = KIT_PASS; s <= KIT_NOT_RUN; s++) cJSON_AddNumberToObject(summary, status_word(s), (double)counts[s]);
  cJSON_AddNumberToObject(summary, "total", (double)ctx->n_results);
  cJSON_AddBoolToObject(root, "ok", counts[KIT_FAIL] == 0 && counts[KIT_NOT_RUN] == 0);
  cJSON_AddNumberToObject(root, "reaped", ctx->reaped);
  cJSON_AddItemToObject(root, "cases", cases);
  return root;
}

int kit_report_write(const kit_ctx *ctx, const char *path) {
  cJSON *root = build(ctx);
  char *text = root ? cJSON_Print(root) : NULL;
  cJSON_Delete(root);
  if (!text) {
    fprintf(stderr, "sbio-conformance: out of memory building the report\n");
    return -1;
  }
  FILE *f = fopen(path, "w");
  int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
  int saved = errno;
  if (f && fclose(f) != 0 && ok) {
    ok = 0;
    saved = errno;
  }
  free(text);
  if (!ok) {
    fprintf(stderr, "sbio-conformance: cannot write the report %s: %s\n", path, strerror(saved));
    return -1;
  }
  return 0;
}
