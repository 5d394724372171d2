/* SPDX-License-Identifier: MIT */
#include "rpc.h"

#include "errmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct curl_slist *sbio__e2b_envd_headers(const e2b_sandbox *sb, const char *content_type) {
  struct curl_slist *h = sbio__e2b_header(NULL, "E2b-Sandbox-Id", sb->id);
  if (h) h = sbio__e2b_header(h, "E2b-Sandbox-Port", E2B_ENVD_PORT);
  if (h) h = sbio__e2b_header(h, "Expect", "");
  if (h && sb->envd_token) h = sbio__e2b_header(h, "X-Access-Token", sb->envd_token);
  /* Before envd 0.4.0 there is no template default user: name E2B's. */
  if (h && !sbio__e2b_version_at_least(sb->envd_version, E2B_ENVD_DEFAULT_USER))
    h = sbio__e2b_header(h, "Authorization", "Basic dXNlcjo="); /* base64("user:") */
  if (h && content_type) h = sbio__e2b_header(h, "Content-Type", content_type);
  return h;
}

char *sbio__e2b_envd_url(const e2b_sandbox *sb, const char *suffix) {
  size_t n = strlen(sb->envd_url) + strlen(suffix) + 2;
  char *url = malloc(n);
  if (url) snprintf(url, n, "%s/%s", sb->envd_url, suffix[0] == '/' ? suffix + 1 : suffix);
  return url;
}

int64_t sbio__e2b_envd_deadline(const e2b_sandbox *sb, const sbio_bk_call *call) {
  int64_t cap = sbio_bk_now_ns(call) + (int64_t)(sb->inst->settings.request_timeout_s * 1e9);
  return call->deadline_ns < cap ? call->deadline_ns : cap;
}

static int map_connect_error(const e2b_sandbox *sb, const e2b_resp *resp, const char *ccode, const char *what,
                             int not_found_code, int fail_code, sbio_bk_error *err) {
  char msg[320];
  sbio__e2b_body_message(resp, msg, sizeof msg);
  if (err) err->provider_status = (int)resp->status;
  int code = fail_code;
  if (strcmp(ccode, "not_found") == 0)
    code = not_found_code;
  else if (strcmp(ccode, "unauthenticated") == 0 || strcmp(ccode, "permission_denied") == 0)
    code = SBIO_E_AUTH;
  return sbio_bk_error_set(err, code, NULL, "e2b: could not %s in sandbox %s: %s (%s)", what, sb->id, msg, ccode);
}

int sbio__e2b_rpc(e2b_sandbox *sb, const sbio_bk_call *call, const char *method, const cJSON *msg, int idempotent,
                  const char *what, int not_found_code, int fail_code, cJSON **out, char *code, size_t code_size,
                  sbio_bk_error *err) {
  *out = NULL;
  if (code && code_size) code[0] = '\0';
  char *body = cJSON_PrintUnformatted(msg);
  char *url = sbio__e2b_envd_url(sb, method);
  struct curl_slist *h = sbio__e2b_envd_headers(sb, "application/json");
  if (h) h = sbio__e2b_header(h, "Connect-Protocol-Version", "1");
  if (!body || !url || !h) {
    free(body);
    free(url);
    sbio__e2b_headers_free(h);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  e2b_req req = {.method = "POST",
                 .url = url,
                 .headers = h,
                 .body = body,
                 .body_len = strlen(body),
                 .deadline_ns = sbio__e2b_envd_deadline(sb, call)};
  e2b_resp resp;
  int sent = sbio__e2b_http_retry(sb->inst, call, &req, idempotent, E2B_ENVD, &resp, NULL);
  sbio__e2b_headers_free(h);
  free(url);
  free(body);
  int rc = SBIO_OK;
  if (sent != 0) {
    rc = sbio__e2b_fail_transport(err, &resp, what, fail_code, fail_code);
  } else if (resp.status == 200) {
    *out = resp.body ? cJSON_ParseWithLength(resp.body, resp.len) : NULL;
    if (!cJSON_IsObject(*out)) {
      cJSON_Delete(*out);
      *out = NULL;
      rc = sbio_bk_error_set(err, fail_code, NULL, "e2b: envd's answer to %s is not a JSON object", method);
    }
  } else {
    char ccode[48];
    sbio__e2b_connect_code(&resp, ccode, sizeof ccode);
    if (code && code_size) snprintf(code, code_size, "%s", ccode);
    if (ccode[0])
      rc = map_connect_error(sb, &resp, ccode, what, not_found_code, fail_code, err);
    else
      rc = sbio__e2b_fail_envd(sb, err, &resp, what, not_found_code, fail_code);
  }
  sbio__e2b_resp_free(&resp);
  return rc;
}
