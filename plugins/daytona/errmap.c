/* SPDX-License-Identifier: MIT */
/* Error mapping. The provider's message is quoted when it sent one; when it
 * did not (a bare 502 from a proxy in front of Daytona) the message still
 * says which status came back and what was being attempted, so the reader
 * is never left with "Bad Gateway" alone. */
#include "errmap.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

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

static void clean_copy(const char *in, char *out, size_t size) {
  size_t o = 0;
  for (const unsigned char *p = (const unsigned char *)in; *p && o + 1 < size; p++)
    out[o++] = (*p < 0x20 || *p == 0x7f) ? ' ' : (char)*p;
  out[o] = '\0';
}

void sbio__dt_provider_message(const dt_http_resp *resp, char *out, size_t size) {
  out[0] = '\0';
  if (!resp->body || !resp->len) return;
  cJSON *doc = cJSON_ParseWithLength(resp->body, resp->len);
  const cJSON *msg = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "message") : NULL;
  if (cJSON_IsString(msg)) {
    clean_copy(msg->valuestring, out, size);
  } else if (cJSON_IsArray(msg)) { /* class-validator lists every problem */
    size_t used = 0;
    const cJSON *item;
    cJSON_ArrayForEach(item, msg) {
      if (!cJSON_IsString(item) || used + 3 >= size) continue;
      if (used) used += (size_t)snprintf(out + used, size - used, ", ");
      clean_copy(item->valuestring, out + used, size - used);
      used += strlen(out + used);
    }
  }
  cJSON_Delete(doc);
}

static int set(sbio_bk_error *err, int code, long status, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int set(sbio_bk_error *err, int code, long status, const char *hint, const char *fmt, ...) {
  va_list ap;
  err->code = code;
  err->provider_status = (int)status;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : "");
  return code;
}

static int fail_outcome(const dt_ctx *ctx, const dt_op *op, dt_http_outcome out, const dt_http_resp *resp,
                        sbio_bk_error *err) {
  switch (out) {
  case DT_HTTP_DEADLINE:
    return set(err, op->timeout_code, 0, "raise the timeout if Daytona needs longer",
               "%s did not finish before its deadline", op->what);
  case DT_HTTP_CANCELLED:
    return set(err, op->fail_code, 0, NULL, "%s was cancelled", op->what);
  case DT_HTTP_TOO_BIG:
    return set(err, op->fail_code, resp->status, NULL, "Daytona's answer while %s was larger than this backend accepts",
               op->what);
  case DT_HTTP_NOMEM:
    return set(err, SBIO_E_INTERNAL, 0, NULL, "out of memory while %s", op->what);
  case DT_HTTP_SINK_STOPPED:
    return set(err, SBIO_E_RESOURCE_LIMIT, 0, NULL, "%s was stopped by the caller (too much data)", op->what);
  case DT_HTTP_RATE_LIMITED: {
    char after[80] = "";
    if (resp->has_retry_after) snprintf(after, sizeof after, "; it asked to wait %g s", resp->retry_after_s);
    return set(err, SBIO_E_RATE_LIMIT, 429, "retry later or lower the request rate; Daytona limits requests per key",
               "Daytona is throttling requests (429 Too Many Requests) while %s, after %d attempts%s", op->what,
               resp->attempts, after);
  }
  case DT_HTTP_TRANSPORT:
  default:
    return set(err, op->fail_code, 0, "check the network and the API URL (settings.api_url or DAYTONA_API_URL)",
               "could not reach Daytona while %s (after %d attempts): %s", op->what, resp->attempts,
               ctx->detail[0] ? ctx->detail : "transport error");
  }
}

int sbio__dt_fail(const dt_ctx *ctx, const dt_op *op, dt_http_outcome out, const dt_http_resp *resp,
                  sbio_bk_error *err) {
  if (out != DT_HTTP_OK) return fail_outcome(ctx, op, out, resp, err);
  long st = resp->status;
  char said[300], tail[340] = "", attempts[40] = "";
  sbio__dt_provider_message(resp, said, sizeof said);
  if (said[0]) snprintf(tail, sizeof tail, ": %s", said);
  if (resp->attempts > 1) snprintf(attempts, sizeof attempts, " (after %d attempts)", resp->attempts);
  const char *text = sbio__dt_status_text(st);
  const char *key_env = ctx->inst->settings.api_key_env;
  char hint[256];

  if (st == 401) {
    snprintf(hint, sizeof hint, "check the key in %s; Daytona's dashboard creates keys", key_env);
    return set(err, SBIO_E_AUTH, st, hint, "Daytona rejected the API key from %s (401 Unauthorized) while %s%s",
               key_env, op->what, tail);
  }
  if (st == 403) {
    snprintf(hint, sizeof hint, "the key in %s lacks a permission this needs, or belongs to another organization",
             key_env);
    return set(err, SBIO_E_AUTH, st, hint, "Daytona denied access (403 Forbidden) while %s%s", op->what, tail);
  }
  if (st == 404)
    return set(err, op->not_found_code, st, NULL, "Daytona found nothing (404 Not Found) while %s%s", op->what, tail);
  if (st == 408)
    return set(err, op->timeout_code, st, "raise the timeout if the command needs longer",
               "Daytona stopped waiting (408 Request Timeout) while %s%s", op->what, tail);
  if (st == 429)
    return set(err, SBIO_E_RATE_LIMIT, st, "retry later or lower the request rate",
               "Daytona is throttling requests (429 Too Many Requests) while %s%s", op->what, tail);
  if (st >= 500 && !said[0])
    return set(err, op->fail_code, st,
               "usually transient (a proxy or load balancer in front of Daytona answered); try again",
               "Daytona answered %ld%s%s with no details while %s%s", st, text[0] ? " " : "", text, op->what, attempts);
  if (st >= 500)
    return set(err, op->fail_code, st, "usually transient; try again", "Daytona failed while %s (%ld %s)%s%s", op->what,
               st, text, tail, attempts);
  return set(err, op->fail_code, st, NULL, "Daytona refused %s (%ld%s%s)%s", op->what, st, text[0] ? " " : "", text,
             tail);
}
