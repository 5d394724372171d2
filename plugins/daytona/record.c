/* SPDX-License-Identifier: MIT */
/* Sandbox records. Every field is optional except the id: older API
 * versions lack some (toolboxProxyUrl before 2026-02-26), list items lack
 * others (env), and a record must still be usable. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void copy_string(const cJSON *obj, const char *key, char *out, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  out[0] = '\0';
  if (cJSON_IsString(v) && strlen(v->valuestring) < size) snprintf(out, size, "%s", v->valuestring);
}

static int copy_labels(const cJSON *obj, dt_record *out) {
  const cJSON *labels = cJSON_GetObjectItemCaseSensitive(obj, "labels");
  if (!cJSON_IsObject(labels)) return 0;
  size_t n = 0;
  for (const cJSON *l = labels->child; l; l = l->next) n += cJSON_IsString(l) ? 1 : 0;
  if (!n) return 0;
  out->labels = calloc(n, sizeof *out->labels);
  if (!out->labels) return -1;
  for (const cJSON *l = labels->child; l; l = l->next) {
    if (!cJSON_IsString(l)) continue;
    char *k = strdup(l->string), *v = strdup(l->valuestring);
    if (!k || !v) {
      free(k);
      free(v);
      return -1;
    }
    out->labels[out->n_labels].key = k;
    out->labels[out->n_labels].value = v;
    out->n_labels++;
  }
  return 0;
}

int sbio__dt_record_parse(const cJSON *obj, dt_record *out, int *oom) {
  memset(out, 0, sizeof *out);
  out->created_at = -1;
  if (oom) *oom = 0;
  const cJSON *id = cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, "id") : NULL;
  if (!cJSON_IsString(id) || !id->valuestring[0] || strlen(id->valuestring) >= sizeof out->id) return -1;
  /* Escaped, the id is one path segment, except "." and "..", which the
   * HTTP client resolves: /sandbox/.. would be a request to another route. */
  if (strcmp(id->valuestring, ".") == 0 || strcmp(id->valuestring, "..") == 0) return -1;
  snprintf(out->id, sizeof out->id, "%s", id->valuestring);
  copy_string(obj, "name", out->name, sizeof out->name);
  copy_string(obj, "state", out->state, sizeof out->state);
  copy_string(obj, "desiredState", out->desired_state, sizeof out->desired_state);
  copy_string(obj, "errorReason", out->error_reason, sizeof out->error_reason);
  copy_string(obj, "toolboxProxyUrl", out->toolbox_url, sizeof out->toolbox_url);
  copy_string(obj, "sandboxClass", out->sandbox_class, sizeof out->sandbox_class);
  const cJSON *created = cJSON_GetObjectItemCaseSensitive(obj, "createdAt");
  if (cJSON_IsString(created)) out->created_at = sbio__dt_parse_time(created->valuestring);
  if (copy_labels(obj, out) != 0) {
    sbio__dt_record_free(out);
    if (oom) *oom = 1;
    return -1;
  }
  return 0;
}

void sbio__dt_record_free(dt_record *r) {
  for (size_t i = 0; i < r->n_labels; i++) {
    free((char *)r->labels[i].key);
    free((char *)r->labels[i].value);
  }
  free(r->labels);
  r->labels = NULL;
  r->n_labels = 0;
}

const char *sbio__dt_record_label(const dt_record *r, const char *key) {
  for (size_t i = 0; i < r->n_labels; i++)
    if (strcmp(r->labels[i].key, key) == 0) return r->labels[i].value;
  return NULL;
}

int64_t sbio__dt_parse_time(const char *text) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *p = text ? strptime(text, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
  if (!p) return -1;
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++) {
    }
  long offset = 0;
  if (*p == 'Z' || *p == 'z') {
    p++;
  } else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
    int hh, mm;
    if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2 || hh > 23 || mm > 59) return -1;
    offset = (*p == '+' ? 1 : -1) * (hh * 3600L + mm * 60L);
    p += 6;
  } else {
    return -1;
  }
  if (*p) return -1;
  return (int64_t)timegm(&tm) - offset;
}
