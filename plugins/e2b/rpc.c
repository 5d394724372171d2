/* SPDX-License-Identifier: MIT */
#include "rpc.h"

#include "errmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbio__e2b_envd_client(e2b_sandbox *sb, const char *envd_url, const char *token, sbio_bk_error *err) {
  e2b_instance *inst = sb->inst;
  char id_line[160], token_line[1100] = "";
  snprintf(id_line, sizeof id_line, "E2b-Sandbox-Id: %s", sb->id);
  const char *headers[3] = {id_line, "E2b-Sandbox-Port: " E2B_ENVD_PORT};
  size_t n_headers = 2;
  /* Before envd 0.4.0 there is no template default user: name E2B's. */
  if (!sbio__e2b_version_at_least(sb->envd_version, E2B_ENVD_DEFAULT_USER))
    headers[n_headers++] = "Authorization: Basic dXNlcjo="; /* base64("user:") */
  const char *secret[1] = {token_line};
  if (token && token[0]) {
    if (strlen(token) >= sizeof token_line - 20 || sbio_sdk_secrets_add(inst->secrets, token) != 0)
      return sbio_sdk_error(err, SBIO_E_CONNECT, NULL, "e2b: the access token of sandbox %s is unusable", sb->id);
    snprintf(token_line, sizeof token_line, "X-Access-Token: %s", token);
  }
  static const long retry_statuses[] = {500, 503, 504};
  sbio_sdk_http_options o = sbio__e2b_client_options(inst);
  o.base_url = envd_url;
  o.headers = headers;
  o.n_headers = n_headers;
  o.secret_headers = secret;
  o.n_secret_headers = token_line[0] ? 1 : 0;
  o.retry_statuses = retry_statuses;
  o.n_retry_statuses = sizeof retry_statuses / sizeof retry_statuses[0];
  int rc = sbio_sdk_http_new(&o, &sb->envd, err);
  memset(token_line, 0, sizeof token_line);
  return rc;
}

static int map_connect_error(const e2b_sandbox *sb, const sbio_sdk_http_response *resp, const char *ccode,
                             const char *what, int not_found_code, int fail_code, sbio_bk_error *err) {
  char msg[320];
  sbio__e2b_body_message(sb->inst, resp, msg, sizeof msg);
  int code = fail_code;
  if (strcmp(ccode, "not_found") == 0)
    code = not_found_code;
  else if (strcmp(ccode, "unauthenticated") == 0 || strcmp(ccode, "permission_denied") == 0)
    code = SBIO_E_AUTH;
  return sbio_sdk_error_answer(err, code, resp->status, NULL, "e2b: could not %s in sandbox %s: %s (%s)", what, sb->id,
                               msg, ccode);
}

int sbio__e2b_rpc(e2b_sandbox *sb, const sbio_bk_call *call, const char *method, const cJSON *msg, int idempotent,
                  const char *what, int not_found_code, int fail_code, cJSON **out, char *code, size_t code_size,
                  sbio_bk_error *err) {
  *out = NULL;
  if (code && code_size) code[0] = '\0';
  char *body = cJSON_PrintUnformatted(msg);
  if (!body) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "e2b: out of memory");
  const char *headers[] = {E2B_CONNECT_HEADER};
  sbio_sdk_http_request req = {.method = "POST",
                               .path = method,
                               .headers = headers,
                               .n_headers = 1,
                               .body = body,
                               .body_len = strlen(body),
                               .retry = idempotent ? SBIO_SDK_RETRY_IDEMPOTENT : SBIO_SDK_RETRY_AUTO};
  sbio_sdk_http_response resp;
  int sent = sbio_sdk_http_send(sb->envd, &req, call, &resp);
  free(body);
  int rc = SBIO_OK;
  if (sent != 0) {
    rc = sbio_sdk_http_fail(sb->envd, &resp, sbio_sdk_op_of_code(fail_code), what, err);
  } else if (resp.status == 200) {
    *out = resp.body ? cJSON_ParseWithLength(resp.body, resp.len) : NULL;
    if (!cJSON_IsObject(*out)) {
      cJSON_Delete(*out);
      *out = NULL;
      rc = sbio_sdk_error(err, fail_code, NULL, "e2b: envd's answer to %s is not a JSON object", method);
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
  sbio_sdk_http_response_free(&resp);
  return rc;
}
