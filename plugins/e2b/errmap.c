/* SPDX-License-Identifier: MIT */
#include "errmap.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Keeps printable ASCII and UTF-8 bytes; control characters become spaces
 * so a hostile body cannot forge log lines. */
static void clean_copy(char *buf, size_t size, const char *text, size_t len) {
  size_t j = 0;
  for (size_t i = 0; i < len && j + 1 < size; i++) {
    unsigned char ch = (unsigned char)text[i];
    buf[j++] = (ch < 0x20 || ch == 0x7f) ? ' ' : (char)ch;
  }
  buf[j] = '\0';
}

void sbio__e2b_body_message(const e2b_resp *resp, char *buf, size_t size) {
  buf[0] = '\0';
  if (!resp->body || !resp->len) return;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *msg = root ? cJSON_GetObjectItemCaseSensitive(root, "message") : NULL;
  if (cJSON_IsString(msg) && msg->valuestring) {
    clean_copy(buf, size < 300 ? size : 300, msg->valuestring, strlen(msg->valuestring));
  } else {
    clean_copy(buf, size < 200 ? size : 200, resp->body, resp->len);
  }
  cJSON_Delete(root);
}

void sbio__e2b_connect_code(const e2b_resp *resp, char *buf, size_t size) {
  buf[0] = '\0';
  if (!resp->body || !resp->len) return;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *code = root ? cJSON_GetObjectItemCaseSensitive(root, "code") : NULL;
  if (cJSON_IsString(code) && code->valuestring) clean_copy(buf, size, code->valuestring, strlen(code->valuestring));
  cJSON_Delete(root);
}

int sbio__e2b_fail_transport(sbio_bk_error *err, const e2b_resp *resp, const char *what, int timeout_code,
                             int fail_code) {
  int code = resp->timed_out ? timeout_code : fail_code;
  if (err) err->provider_status = (int)resp->status;
  if (resp->timed_out)
    return sbio_bk_error_set(err, code, "raise the timeout, or check the network path to E2B",
                             "e2b: could not %s before the deadline (%s)", what, resp->error);
  if (resp->cancelled) return sbio_bk_error_set(err, code, NULL, "e2b: %s was cancelled", what);
  return sbio_bk_error_set(err, code, "check the network path to E2B and the e2b backend's api_url/sandbox_url",
                           "e2b: could not %s: %s", what, resp->error[0] ? resp->error : "transfer failed");
}

int sbio__e2b_fail_api(const e2b_instance *inst, sbio_bk_error *err, const e2b_resp *resp, const char *what,
                       int fail_code) {
  char msg[320];
  sbio__e2b_body_message(resp, msg, sizeof msg);
  if (err) err->provider_status = (int)resp->status;
  const char *var = inst->settings.api_key_env;
  if (resp->status == 401 || resp->status == 403) {
    char hint[200];
    snprintf(hint, sizeof hint, "set %s to a valid E2B API key (https://e2b.dev/dashboard?tab=keys)", var);
    return sbio_bk_error_set(err, SBIO_E_AUTH, hint, "e2b: the API key in %s was rejected trying to %s (HTTP %ld: %s)",
                             var, what, resp->status, msg);
  }
  if (resp->status == 429)
    return sbio_bk_error_set(err, SBIO_E_RATE_LIMIT, "wait and try again, or raise your E2B limits",
                             "e2b: rate limited trying to %s (HTTP 429%s%s: %s)", what,
                             resp->retry_after[0] ? ", Retry-After " : "", resp->retry_after, msg);
  return sbio_bk_error_set(err, fail_code, NULL, "e2b: could not %s (HTTP %ld: %s)", what, resp->status, msg);
}

static int about_missing_sandbox(const char *msg) {
  return strcasestr(msg, "sandbox") &&
         (strcasestr(msg, "not found") || strcasestr(msg, "doesn't exist") || strcasestr(msg, "not running"));
}

int sbio__e2b_fail_envd(const e2b_sandbox *sb, sbio_bk_error *err, const e2b_resp *resp, const char *what,
                        int not_found_code, int fail_code) {
  char msg[320];
  sbio__e2b_body_message(resp, msg, sizeof msg);
  if (err) err->provider_status = (int)resp->status;
  long st = resp->status;
  if (st == 502 || ((st == 404 || st == 410) && about_missing_sandbox(msg)))
    return sbio_bk_error_set(err, SBIO_E_GONE, "its lifetime may have ended; create a new sandbox",
                             "e2b: sandbox %s is gone (HTTP %ld: %s)", sb->id, st, msg);
  if (st == 401 || st == 403)
    return sbio_bk_error_set(err, SBIO_E_AUTH, "reconnect to the sandbox to refresh its access token",
                             "e2b: envd of sandbox %s refused the access to %s (HTTP %ld: %s)", sb->id, what, st, msg);
  if (st == 429)
    return sbio_bk_error_set(err, SBIO_E_RATE_LIMIT, "wait and try again",
                             "e2b: rate limited trying to %s (HTTP 429: %s)", what, msg);
  if (st == 507)
    return sbio_bk_error_set(err, SBIO_E_RESOURCE_LIMIT,
                             "free space in the sandbox or use a template with a larger disk",
                             "e2b: out of disk space in sandbox %s trying to %s (HTTP 507: %s)", sb->id, what, msg);
  if (st == 404) return sbio_bk_error_set(err, not_found_code, NULL, "e2b: could not %s: %s", what, msg);
  return sbio_bk_error_set(err, fail_code, NULL, "e2b: could not %s (HTTP %ld: %s)", what, st, msg);
}
