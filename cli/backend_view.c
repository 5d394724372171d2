/* SPDX-License-Identifier: MIT */
/* Backend presentation helpers; see backend_view.h. */
#include "backend_view.h"

#include "output.h"

#include <stdio.h>
#include <string.h>

long cli_backend_deciding_mechanism(const sbio_backend_info *b) {
  size_t n = sbio_backend_info_mechanism_count(b);
  sbio_tier tier = sbio_backend_info_tier(b);
  for (size_t i = 0; i < n; i++) {
    if (sbio_mechanism_tier(b, i) == tier) return (long)i;
  }
  return n > 0 ? 0 : -1;
}

static void append(char *buf, size_t size, size_t *used, const char *text) {
  if (*used >= size) return;
  int n = snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", text);
  if (n > 0) *used += (size_t)n;
  if (*used >= size) *used = size;
}

/* The name of capability bit `bit`, or "bit N" (written into buf) for a
 * bit this library has no name for: a newer backend's flag still shows. */
static const char *cap_label(unsigned bit, char *buf, size_t size) {
  const char *name = sbio_capability_name((sbio_caps)1 << bit);
  if (name) return name;
  snprintf(buf, size, "bit %u", bit);
  return buf;
}

void cli_caps_text(sbio_caps caps, char *buf, size_t size) {
  size_t used = 0;
  if (size == 0) return;
  buf[0] = '\0';
  for (unsigned bit = 0; bit < 64; bit++) {
    sbio_caps flag = (sbio_caps)1 << bit;
    if (!(caps & flag)) continue;
    char unknown[16];
    const char *name = cap_label(bit, unknown, sizeof unknown);
    append(buf, size, &used, name);
  }
}

void cli_backend_names(const sbio_host *host, char *buf, size_t size) {
  size_t used = 0;
  if (size == 0) return;
  buf[0] = '\0';
  for (size_t i = 0; i < sbio_host_backend_count(host); i++) {
    const sbio_backend_info *b = sbio_host_backend_at(host, i);
    if (sbio_backend_info_status(b) == SBIO_BACKEND_SHADOWED) continue;
    append(buf, size, &used, sbio_backend_info_name(b));
  }
}

static int add_caps(cJSON *obj, sbio_caps caps) {
  cJSON *arr = cJSON_AddArrayToObject(obj, "capabilities");
  if (!arr) return -1;
  for (unsigned bit = 0; bit < 64; bit++) {
    sbio_caps flag = (sbio_caps)1 << bit;
    if (!(caps & flag)) continue;
    char unknown[16];
    const char *name = cap_label(bit, unknown, sizeof unknown);
    cJSON *s = cJSON_CreateString(name);
    if (!s || !cJSON_AddItemToArray(arr, s)) {
      cJSON_Delete(s);
      return -1;
    }
  }
  return 0;
}

static cJSON *mechanism_json(const sbio_backend_info *b, size_t i, int detailed) {
  cJSON *m = cJSON_CreateObject();
  if (!m) return NULL;
  int ok = cJSON_AddStringToObject(m, "name", sbio_mechanism_name(b, i)) &&
           cJSON_AddStringToObject(m, "tier", cli_tier_text(sbio_mechanism_tier(b, i))) &&
           cJSON_AddStringToObject(m, "claimed_tier", cli_tier_text(sbio_mechanism_claimed_tier(b, i))) &&
           cli_json_add_string_or_null(m, "source_url", sbio_mechanism_source_url(b, i)) &&
           cli_json_add_string_or_null(m, "verified_on", sbio_mechanism_verified_on(b, i)) &&
           cJSON_AddBoolToObject(m, "stale", sbio_mechanism_stale(b, i) != 0);
  if (ok && detailed) {
    int age = sbio_mechanism_age_days(b, i);
    ok = (age >= 0 ? cJSON_AddNumberToObject(m, "age_days", age) != NULL
                   : cJSON_AddNullToObject(m, "age_days") != NULL) &&
         cli_json_add_string_or_null(m, "quote", sbio_mechanism_quote(b, i)) &&
         cli_json_add_string_or_null(m, "reason", sbio_mechanism_reason(b, i));
  }
  if (!ok) {
    cJSON_Delete(m);
    return NULL;
  }
  return m;
}

cJSON *cli_backend_json(const sbio_backend_info *b, int detailed) {
  cJSON *o = cJSON_CreateObject();
  if (!o) return NULL;
  sbio_backend_status status = sbio_backend_info_status(b);
  const char *status_name = sbio_backend_status_name(status);
  long deciding = cli_backend_deciding_mechanism(b);
  int ok = cJSON_AddStringToObject(o, "name", sbio_backend_info_name(b)) &&
           cJSON_AddStringToObject(o, "status", status_name ? status_name : "?") &&
           cJSON_AddBoolToObject(o, "enabled", sbio_backend_info_enabled(b) != 0) &&
           cJSON_AddStringToObject(o, "tier", cli_tier_text(sbio_backend_info_tier(b))) &&
           cJSON_AddStringToObject(o, "claimed_tier", cli_tier_text(sbio_backend_info_claimed_tier(b))) &&
           cli_json_add_string_or_null(o, "verified_on",
                                       deciding >= 0 ? sbio_mechanism_verified_on(b, (size_t)deciding) : NULL) &&
           cli_json_add_string_or_null(o, "source_url",
                                       deciding >= 0 ? sbio_mechanism_source_url(b, (size_t)deciding) : NULL) &&
           cli_json_add_string_or_null(o, "version", sbio_backend_info_version(b)) &&
           cJSON_AddStringToObject(o, "path", sbio_backend_info_path(b)) &&
           cli_json_add_string_or_null(o, "reason", sbio_backend_info_reason(b));
  if (ok && detailed) {
    cJSON *pins = NULL;
    ok = cli_json_add_string_or_null(o, "sha256", sbio_backend_info_sha256(b)) &&
         cli_json_add_string_or_null(o, "summary", sbio_backend_info_summary(b)) &&
         (pins = cJSON_AddObjectToObject(o, "pins")) != NULL &&
         cli_json_add_string_or_null(
             pins, "expect_tier",
             sbio_backend_info_has_expect_tier(b) ? cli_tier_text(sbio_backend_info_expect_tier(b)) : NULL) &&
         add_caps(o, sbio_backend_info_capabilities(b)) == 0;
  }
  cJSON *mechs = ok ? cJSON_AddArrayToObject(o, "mechanisms") : NULL;
  for (size_t i = 0; mechs && i < sbio_backend_info_mechanism_count(b); i++) {
    cJSON *m = mechanism_json(b, i, detailed);
    if (!m || !cJSON_AddItemToArray(mechs, m)) {
      cJSON_Delete(m);
      mechs = NULL;
    }
  }
  if (!mechs) {
    cJSON_Delete(o);
    return NULL;
  }
  return o;
}
