/* SPDX-License-Identifier: MIT */
/* A failed request -> a catalogue error a user can act on, with the
 * provider's own words when it gave any, and without secrets. */
#include "http_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROVIDER_MESSAGE_MAX 240

static const char *string_member(const cJSON *obj, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) && v->valuestring && v->valuestring[0] ? v->valuestring : NULL;
}

/* The provider's explanation: "message", "error" (a string or an object
 * with a "message"), "detail" or "msg" of a JSON body, else the first line
 * of a text body; never a page of HTML. Redacted before it is cut (a key
 * the cut falls inside must still go whole): the secret headers' values,
 * the caller's secrets, the host's. */
static void provider_message(const sbio_sdk_http *c, const sbio_sdk_http_response *resp, char *buf, size_t size) {
  buf[0] = '\0';
  if (!resp->body || !resp->len) return;
  size_t cap = size < PROVIDER_MESSAGE_MAX + 1 ? size : PROVIDER_MESSAGE_MAX + 1;
  const char *text = NULL;
  size_t len = 0;
  cJSON *root = cJSON_ParseWithLength(resp->body, resp->len);
  if (root) {
    if (cJSON_IsObject(root)) {
      const cJSON *error = cJSON_GetObjectItemCaseSensitive(root, "error");
      text = string_member(root, "message");
      if (!text) text = cJSON_IsObject(error) ? string_member(error, "message") : string_member(root, "error");
      if (!text) text = string_member(root, "detail");
      if (!text) text = string_member(root, "msg");
    }
    len = text ? strlen(text) : 0;
  } else if (resp->body[0] != '<') {
    text = resp->body;
    len = strcspn(resp->body, "\r\n");
  }
  char *own = text && len ? strndup(text, len) : NULL;
  char *mine = own ? sbio__sdk_secrets_apply(c->own_secrets, own) : NULL;
  if (mine) sbio_sdk_quote_provider(c->host, c->secrets, mine, strlen(mine), buf, cap);
  if (own) sbio__sdk_wipe(own, strlen(own));
  if (mine) sbio__sdk_wipe(mine, strlen(mine));
  free(own);
  free(mine);
  cJSON_Delete(root);
  sbio__http_one_line(buf);
}

static const char *where(const sbio_sdk_http *c, char *buf, size_t size) {
  if (c->unix_socket)
    snprintf(buf, size, "%.200s (through %.200s)", c->base_url, c->unix_socket);
  else
    snprintf(buf, size, "%.400s", c->base_url);
  return buf;
}

static int answered(const sbio_sdk_http *c, const sbio_sdk_http_response *resp, sbio_sdk_op op, const char *what,
                    sbio_bk_error *err) {
  int code = sbio_sdk_status_code(resp->status, op);
  char said[PROVIDER_MESSAGE_MAX + 1], hint[256] = "", wait[32];
  provider_message(c, resp, said, sizeof said);
  if (code == SBIO_E_AUTH && c->credential_env)
    snprintf(hint, sizeof hint, "check %s: the provider refused the credential, or it lacks the permission",
             c->credential_env);
  else if (code == SBIO_E_RATE_LIMIT && sbio_sdk_http_header(resp, "Retry-After", wait, sizeof wait))
    snprintf(hint, sizeof hint, "the provider is throttling requests; retry later (it asked to wait: %s)", wait);
  else if (code == SBIO_E_RATE_LIMIT)
    snprintf(hint, sizeof hint, "the provider is throttling requests; retry later");
  return sbio_sdk_error_status(err, resp->status, op, hint[0] ? hint : NULL,
                               "%s: %s: the provider answered HTTP %ld%s%s", c->backend, what, resp->status,
                               said[0] ? ": " : "", said);
}

static int transport(const sbio_sdk_http *c, const sbio_sdk_http_response *resp, sbio_sdk_op op, const char *what,
                     sbio_bk_error *err) {
  char at[420];
  where(c, at, sizeof at);
  switch (resp->outcome) {
  case SBIO_SDK_HTTP_TIMEOUT:
    return sbio_sdk_error(err, sbio_sdk_op_timeout_code(op), "raise the timeout, or check the provider's status",
                          "%s: %s: no answer from %s before the deadline", c->backend, what, at);
  case SBIO_SDK_HTTP_SLOW:
    return sbio_sdk_error(err, sbio_sdk_op_code(op), "the provider is slow to answer: try again, or allow more time",
                          "%s: %s: %s from %s", c->backend, what, resp->error[0] ? resp->error : "no answer in time",
                          at);
  case SBIO_SDK_HTTP_CANCELLED:
    return sbio_sdk_error(err, sbio_sdk_op_code(op), NULL, "%s: %s: cancelled (the sandbox is being killed)",
                          c->backend, what);
  case SBIO_SDK_HTTP_UNREACHABLE:
    return sbio_sdk_error(err, sbio_sdk_op_code(op), "check the network, proxy and DNS, and the provider's status",
                          "%s: %s: cannot reach the provider at %s: %s", c->backend, what, at, resp->error);
  case SBIO_SDK_HTTP_TOO_LARGE:
    return sbio_sdk_error(err, sbio_sdk_op_code(op), NULL, "%s: %s: the provider's answer exceeded %zu bytes",
                          c->backend, what, c->body_limit);
  case SBIO_SDK_HTTP_STOPPED:
    return sbio_sdk_error(err, sbio_sdk_op_code(op), NULL, "%s: %s: the transfer was stopped before its end",
                          c->backend, what);
  case SBIO_SDK_HTTP_NOMEM:
    return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "%s: %s: out of memory", c->backend, what);
  default:
    return sbio_sdk_error(err, sbio_sdk_op_code(op), "check the provider's status",
                          "%s: %s: the connection to %s failed: %s", c->backend, what, at,
                          resp->error[0] ? resp->error : "unknown error");
  }
}

int sbio_sdk_http_fail(const sbio_sdk_http *c, const sbio_sdk_http_response *resp, sbio_sdk_op op, const char *what,
                       sbio_bk_error *err) {
  if (!what) what = "request";
  if (resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status >= 100 && resp->status < 400) return SBIO_OK;
  int code =
      resp->outcome == SBIO_SDK_HTTP_ANSWERED ? answered(c, resp, op, what, err) : transport(c, resp, op, what, err);
  if (!err) return code;
  if (resp->attempts > 1) {
    size_t used = strnlen(err->message, sizeof err->message - 1);
    snprintf(err->message + used, sizeof err->message - used, " (after %d attempts)", resp->attempts);
  }
  /* The backend's own secrets (secret headers), the caller's, the host's. */
  sbio_sdk_redact_error(NULL, c->own_secrets, err);
  sbio_sdk_redact_error(c->host, c->secrets, err);
  return code;
}
