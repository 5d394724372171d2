/* SPDX-License-Identifier: MIT */
/* The report as one JSON document (layout in docs/cli.md). Every string
 * from the network was made safe (valid UTF-8, no controls) before it got
 * here; metadata strings were validated by the library. */
#include "report.h"

#include "errors.h"
#include "exitcode.h"
#include "output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds a number, or null when value < 0. */
static cJSON *add_count_or_null(cJSON *obj, const char *key, long value) {
  return value < 0 ? cJSON_AddNullToObject(obj, key) : cJSON_AddNumberToObject(obj, key, (double)value);
}

static cJSON *add_closest(cJSON *obj, const src_result *r) {
  if (!r->closest) return cJSON_AddNullToObject(obj, "closest");
  cJSON *c = cJSON_AddObjectToObject(obj, "closest");
  if (!c || !cJSON_AddStringToObject(c, "text", r->closest) ||
      !cJSON_AddNumberToObject(c, "matched_words", (double)r->matched_words) ||
      !cJSON_AddNumberToObject(c, "quote_words", (double)r->quote_words))
    return NULL;
  return c;
}

static cJSON *mechanism_json(const sbio_backend_info *b, size_t i, const src_result *r) {
  cJSON *m = cJSON_CreateObject();
  if (!m) return NULL;
  int ok = cJSON_AddStringToObject(m, "name", sbio_mechanism_name(b, i)) &&
           cJSON_AddStringToObject(m, "claimed_tier", cli_tier_text(sbio_mechanism_claimed_tier(b, i))) &&
           cJSON_AddStringToObject(m, "tier", cli_tier_text(sbio_mechanism_tier(b, i))) &&
           cli_json_add_string_or_null(m, "source_url", sbio_mechanism_source_url(b, i)) &&
           cli_json_add_string_or_null(m, "verified_on", sbio_mechanism_verified_on(b, i)) &&
           add_count_or_null(m, "age_days", sbio_mechanism_age_days(b, i)) &&
           cJSON_AddBoolToObject(m, "stale", sbio_mechanism_stale(b, i)) &&
           cli_json_add_string_or_null(m, "quote", sbio_mechanism_quote(b, i)) &&
           cJSON_AddStringToObject(m, "verdict", src_verdict_name(r->verdict)) &&
           cli_json_add_string_or_null(m, "detail", r->detail) &&
           cli_json_add_string_or_null(m, "failure", r->failure) &&
           add_count_or_null(m, "http_status", r->status > 0 ? r->status : -1) &&
           cli_json_add_string_or_null(m, "page_url", r->page_url);
  cJSON *redirects = ok ? cJSON_AddArrayToObject(m, "redirects") : NULL;
  ok = redirects != NULL;
  for (size_t k = 0; ok && k < r->n_redirects; k++) {
    cJSON *s = cJSON_CreateString(r->redirects[k]);
    ok = s && cJSON_AddItemToArray(redirects, s);
    if (!ok) cJSON_Delete(s);
  }
  ok = ok && cli_json_add_string_or_null(m, "moved_to", r->moved_to);
  if (ok && r->verdict == SRC_MOVED && r->found_there >= 0)
    ok = cJSON_AddBoolToObject(m, "quote_found_there", r->found_there) != NULL;
  else if (ok)
    ok = cJSON_AddNullToObject(m, "quote_found_there") != NULL;
  ok = ok && add_closest(m, r);
  if (!ok) {
    cJSON_Delete(m);
    return NULL;
  }
  return m;
}

static cJSON *backend_json(const src_backend_report *br) {
  const sbio_backend_info *b = br->info;
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  const char *reason = br->readable ? NULL : sbio_backend_info_reason(b);
  int ok = cJSON_AddStringToObject(o, "name", sbio_backend_info_name(b)) &&
           cJSON_AddStringToObject(o, "path", sbio_backend_info_path(b)) &&
           cJSON_AddStringToObject(o, "status", sbio_backend_status_name(sbio_backend_info_status(b))) &&
           cJSON_AddStringToObject(o, "tier", cli_tier_text(sbio_backend_info_tier(b))) &&
           cJSON_AddStringToObject(o, "claimed_tier", cli_tier_text(sbio_backend_info_claimed_tier(b))) &&
           cJSON_AddBoolToObject(o, "checked", br->readable) && cli_json_add_string_or_null(o, "reason", reason);
  cJSON *mechs = ok ? cJSON_AddArrayToObject(o, "mechanisms") : NULL;
  ok = mechs != NULL;
  for (size_t i = 0; ok && i < br->n_results; i++) {
    cJSON *m = mechanism_json(b, i, &br->results[i]);
    ok = m && cJSON_AddItemToArray(mechs, m);
    if (!ok) cJSON_Delete(m);
  }
  if (!ok) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}

int src_report_print_json(const src_report *r) {
  cJSON *doc = cli_json_doc(r->exit_code == CLI_EXIT_OK);
  cJSON *summary = doc ? cJSON_AddObjectToObject(doc, "summary") : NULL;
  int ok = summary != NULL;
  for (int v = 0; ok && v < SRC_VERDICT_COUNT; v++)
    ok = cJSON_AddNumberToObject(summary, src_verdict_name((src_verdict)v), (double)r->counts[v]) != NULL;
  ok = ok && cJSON_AddNumberToObject(summary, "not_checked", (double)r->unreadable);
  ok = ok && cJSON_AddNumberToObject(doc, "exit_code", r->exit_code);
  cJSON *backends = ok ? cJSON_AddArrayToObject(doc, "backends") : NULL;
  ok = backends != NULL;
  for (size_t i = 0; ok && i < r->n_backends; i++) {
    cJSON *b = backend_json(&r->backends[i]);
    ok = b && cJSON_AddItemToArray(backends, b);
    if (!ok) cJSON_Delete(b);
  }
  if (!ok) {
    cJSON_Delete(doc);
    return cli_error_oom(1);
  }
  return cli_json_emit(doc);
}
