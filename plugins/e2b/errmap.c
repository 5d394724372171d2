/* SPDX-License-Identifier: MIT */
/* What E2B answered, in the catalogue's terms (errmap.h). */
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

void sbio__e2b_body_message(const e2b_instance *inst, const sbio_sdk_http_response *resp, char *buf, size_t size) {
  buf[0] = '\0';
  if (!resp->body || !resp->len) return;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *msg = root ? cJSON_GetObjectItemCaseSensitive(root, "message") : NULL;
  if (cJSON_IsString(msg) && msg->valuestring) {
    sbio_sdk_quote_provider(&inst->host, inst->secrets, msg->valuestring, strlen(msg->valuestring), buf,
                            size < 300 ? size : 300);
  } else {
    sbio_sdk_quote_provider(&inst->host, inst->secrets, resp->body, resp->len, buf, size < 200 ? size : 200);
  }
  cJSON_Delete(root);
}

void sbio__e2b_connect_code(const sbio_sdk_http_response *resp, char *buf, size_t size) {
  buf[0] = '\0';
  if (!resp->body || !resp->len) return;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *code = root ? cJSON_GetObjectItemCaseSensitive(root, "code") : NULL;
  if (cJSON_IsString(code) && code->valuestring) clean_copy(buf, size, code->valuestring, strlen(code->valuestring));
  cJSON_Delete(root);
}

int sbio__e2b_fail_api(const e2b_instance *inst, sbio_bk_error *err, const sbio_sdk_http_response *resp,
                       const char *what, int fail_code) {
  char msg[320];
  sbio__e2b_body_message(inst, resp, msg, sizeof msg);
  const char *var = inst->settings.api_key_env;
  long st = resp->status;
  if (st == 401 || st == 403) {
    char hint[200];
    snprintf(hint, sizeof hint, "set %s to a valid E2B API key (https://e2b.dev/dashboard?tab=keys)", var);
    return sbio_sdk_error_answer(err, SBIO_E_AUTH, st, hint,
                                 "e2b: the API key in %s was rejected trying to %s (HTTP %ld: %s)", var, what, st, msg);
  }
  if (st == 429) {
    char after[64] = "", tries[40] = "";
    sbio_sdk_http_header(resp, "Retry-After", after, sizeof after);
    if (resp->attempts > 1) snprintf(tries, sizeof tries, " (after %d attempts)", resp->attempts);
    return sbio_sdk_error_answer(err, SBIO_E_RATE_LIMIT, st, "wait and try again, or raise your E2B limits",
                                 "e2b: rate limited trying to %s (HTTP 429%s%s: %s)%s", what,
                                 after[0] ? ", Retry-After " : "", after, msg, tries);
  }
  return sbio_sdk_error_answer(err, fail_code, st, NULL, "e2b: could not %s (HTTP %ld: %s)", what, st, msg);
}

static int about_missing_sandbox(const char *msg) {
  return strcasestr(msg, "sandbox") &&
         (strcasestr(msg, "not found") || strcasestr(msg, "doesn't exist") || strcasestr(msg, "not running"));
}

int sbio__e2b_fail_envd(const e2b_sandbox *sb, sbio_bk_error *err, const sbio_sdk_http_response *resp, const char *what,
                        int not_found_code, int fail_code) {
  char msg[320];
  sbio__e2b_body_message(sb->inst, resp, msg, sizeof msg);
  long st = resp->status;
  if (st == 502 || ((st == 404 || st == 410) && about_missing_sandbox(msg)))
    return sbio_sdk_error_answer(err, SBIO_E_GONE, st, "its lifetime may have ended; create a new sandbox",
                                 "e2b: sandbox %s is gone (HTTP %ld: %s)", sb->id, st, msg);
  if (st == 401 || st == 403)
    return sbio_sdk_error_answer(err, SBIO_E_AUTH, st, "reconnect to the sandbox to refresh its access token",
                                 "e2b: envd of sandbox %s refused the access to %s (HTTP %ld: %s)", sb->id, what, st,
                                 msg);
  if (st == 429)
    return sbio_sdk_error_answer(err, SBIO_E_RATE_LIMIT, st, "wait and try again",
                                 "e2b: rate limited trying to %s (HTTP 429: %s)", what, msg);
  if (st == 507)
    return sbio_sdk_error_answer(err, SBIO_E_RESOURCE_LIMIT, st,
                                 "free space in the sandbox or use a template with a larger disk",
                                 "e2b: out of disk space in sandbox %s trying to %s (HTTP 507: %s)", sb->id, what, msg);
  if (st == 404) return sbio_sdk_error_answer(err, not_found_code, st, NULL, "e2b: could not %s: %s", what, msg);
  return sbio_sdk_error_answer(err, fail_code, st, NULL, "e2b: could not %s (HTTP %ld: %s)", what, st, msg);
}
