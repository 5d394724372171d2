/* SPDX-License-Identifier: MIT */
/* Error mapping. The provider's message is quoted when it sent one; when it
 * did not (a bare 502 from a proxy in front of Daytona) the message still
 * says which status came back and what was being attempted, so the reader
 * is never left with "Bad Gateway" alone. */
#include "errmap.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *sbio__dt_status_text(long status) {
  switch (status) {
  case 400:
    return "Bad Request";
  case 401:
    return "Unauthorized";
  case 403:
    return "Forbidden";
  case 404:
    return "Not Found";
  case 408:
    return "Request Timeout";
  case 409:
    return "Conflict";
  case 413:
    return "Payload Too Large";
  case 422:
    return "Unprocessable Entity";
  case 429:
    return "Too Many Requests";
  case 500:
    return "Internal Server Error";
  case 502:
    return "Bad Gateway";
  case 503:
    return "Service Unavailable";
  case 504:
    return "Gateway Timeout";
  default:
    return "";
  }
}

/* Redacted with the instance's and the host's secrets before it is cut:
 * a key the cut falls inside must go whole. */
void sbio__dt_provider_message(const dt_instance *inst, const sbio_sdk_http_response *resp, char *out, size_t size) {
  out[0] = '\0';
  if (!resp->body || !resp->len) return;
  cJSON *doc = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *msg = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "message") : NULL;
  if (cJSON_IsString(msg)) {
    sbio_sdk_quote_provider(&inst->host, inst->secrets, msg->valuestring, strlen(msg->valuestring), out, size);
  } else if (cJSON_IsArray(msg)) { /* class-validator lists every problem */
    size_t used = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, msg) {
      if (!cJSON_IsString(item) || used + 3 >= size) continue;
      if (used) used += (size_t)snprintf(out + used, size - used, ", ");
      sbio_sdk_quote_provider(&inst->host, inst->secrets, item->valuestring, strlen(item->valuestring), out + used,
                              size - used);
      used += strlen(out + used);
    }
  }
  cJSON_Delete(doc);
}

int sbio__dt_ok(const sbio_sdk_http_response *resp) {
  return resp->outcome == SBIO_SDK_HTTP_ANSWERED && resp->status >= 200 && resp->status < 300;
}

/* The wait a 429 asked for, as text ("; it asked to wait 30 s"), or "". */
static void asked_to_wait(const sbio_sdk_http_response *resp, char *out, size_t size) {
  char value[64];
  long ms =
      sbio_sdk_http_header(resp, "Retry-After", value, sizeof value) ? sbio_sdk_retry_after_ms(value, time(NULL)) : -1;
  out[0] = '\0';
  if (ms >= 0) snprintf(out, size, "; it asked to wait %g s", (double)ms / 1000.0);
}

static int fail_outcome(const dt_op *op, const sbio_sdk_http_response *resp, sbio_bk_error *err) {
  switch (resp->outcome) {
  case SBIO_SDK_HTTP_TIMEOUT:
    return sbio_sdk_error_answer(err, op->timeout_code, 0, "raise the timeout if Daytona needs longer",
                                 "%s did not finish before its deadline", op->what);
  case SBIO_SDK_HTTP_CANCELLED:
    return sbio_sdk_error_answer(err, op->fail_code, 0, NULL, "%s was cancelled", op->what);
  case SBIO_SDK_HTTP_TOO_LARGE:
    return sbio_sdk_error_answer(err, op->fail_code, resp->status, NULL,
                                 "Daytona's answer while %s was larger than this backend accepts", op->what);
  case SBIO_SDK_HTTP_NOMEM:
    return sbio_sdk_error_answer(err, SBIO_E_INTERNAL, 0, NULL, "out of memory while %s", op->what);
  case SBIO_SDK_HTTP_STOPPED:
    return sbio_sdk_error_answer(err, SBIO_E_RESOURCE_LIMIT, 0, NULL, "%s was stopped by the caller (too much data)",
                                 op->what);
  default: /* unreachable, broken, too slow */
    return sbio_sdk_error_answer(err, op->fail_code, 0,
                                 "check the network and the API URL (settings.api_url or DAYTONA_API_URL)",
                                 "could not reach Daytona while %s (after %d attempt%s): %s", op->what, resp->attempts,
                                 resp->attempts == 1 ? "" : "s", resp->error[0] ? resp->error : "transport error");
  }
}

int sbio__dt_fail(const dt_ctx *ctx, const dt_op *op, const sbio_sdk_http_response *resp, sbio_bk_error *err) {
  if (resp->outcome != SBIO_SDK_HTTP_ANSWERED) return fail_outcome(op, resp, err);
  long st = resp->status;
  char said[300], tail[340] = "", attempts[40] = "";
  sbio__dt_provider_message(ctx->inst, resp, said, sizeof said);
  if (said[0]) snprintf(tail, sizeof tail, ": %s", said);
  if (resp->attempts > 1) snprintf(attempts, sizeof attempts, " (after %d attempts)", resp->attempts);
  const char *text = sbio__dt_status_text(st);
  const char *key_env = ctx->inst->settings.api_key_env;
  char hint[256];

  if (st == 401) {
    snprintf(hint, sizeof hint, "check the key in %s; Daytona's dashboard creates keys", key_env);
    return sbio_sdk_error_answer(err, SBIO_E_AUTH, st, hint,
                                 "Daytona rejected the API key from %s (401 Unauthorized) while %s%s", key_env,
                                 op->what, tail);
  }
  if (st == 403) {
    snprintf(hint, sizeof hint, "the key in %s lacks a permission this needs, or belongs to another organization",
             key_env);
    return sbio_sdk_error_answer(err, SBIO_E_AUTH, st, hint, "Daytona denied access (403 Forbidden) while %s%s",
                                 op->what, tail);
  }
  if (st == 404)
    return sbio_sdk_error_answer(err, op->not_found_code, st, NULL, "Daytona found nothing (404 Not Found) while %s%s",
                                 op->what, tail);
  if (st == 408)
    return sbio_sdk_error_answer(err, op->timeout_code, st, "raise the timeout if the command needs longer",
                                 "Daytona stopped waiting (408 Request Timeout) while %s%s", op->what, tail);
  if (st == 429) {
    /* Retried by the SDK while attempts and the deadline allowed. */
    char wait[80];
    asked_to_wait(resp, wait, sizeof wait);
    return sbio_sdk_error_answer(
        err, SBIO_E_RATE_LIMIT, 429, "retry later or lower the request rate; Daytona limits requests per key",
        "Daytona is throttling requests (429 Too Many Requests) while %s, after %d attempt%s%s", op->what,
        resp->attempts, resp->attempts == 1 ? "" : "s", wait);
  }
  if (st >= 500 && !said[0])
    return sbio_sdk_error_answer(
        err, op->fail_code, st, "usually transient (a proxy or load balancer in front of Daytona answered); try again",
        "Daytona answered %ld%s%s with no details while %s%s", st, text[0] ? " " : "", text, op->what, attempts);
  if (st >= 500)
    return sbio_sdk_error_answer(err, op->fail_code, st, "usually transient; try again",
                                 "Daytona failed while %s (%ld %s)%s%s", op->what, st, text, tail, attempts);
  return sbio_sdk_error_answer(err, op->fail_code, st, NULL, "Daytona refused %s (%ld%s%s)%s", op->what, st,
                               text[0] ? " " : "", text, tail);
}
