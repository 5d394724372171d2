/* SPDX-License-Identifier: MIT */
/* Catalogue codes for backends: validation and construction. */
#include <sandboxio/sdk/error.h>

#include <stdarg.h>
#include <stdio.h>

/* The failure codes of the catalogue as of backend ABI 1.3 (types.h). */
static const int catalogue[] = {
    SBIO_E_CONFIG,         SBIO_E_BACKEND_NOT_FOUND, SBIO_E_BACKEND_UNAVAILABLE, SBIO_E_CAPABILITY,
    SBIO_E_CREATE,         SBIO_E_CONNECT,           SBIO_E_CREATE_TIMEOUT,      SBIO_E_GONE,
    SBIO_E_EXEC,           SBIO_E_EXEC_TIMEOUT,      SBIO_E_NETWORK_POLICY,      SBIO_E_RESOURCE_LIMIT,
    SBIO_E_AUTH,           SBIO_E_RATE_LIMIT,        SBIO_E_AUDIT_SINK,          SBIO_E_FS,
    SBIO_E_PATH_NOT_FOUND, SBIO_E_INTERNAL,          SBIO_E_INVALID_ARGUMENT,    SBIO_E_CANCELLED,
};

int sbio_sdk_code_valid(int code) {
  for (size_t i = 0; i < sizeof catalogue / sizeof catalogue[0]; i++)
    if (catalogue[i] == code) return 1;
  return 0;
}

__attribute__((format(printf, 4, 0))) static void fill(sbio_bk_error *err, int code, const char *hint, const char *fmt,
                                                       va_list ap) {
  if (!err) return;
  err->provider_status = 0;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : "");
  if (sbio_sdk_code_valid(code)) {
    err->code = code;
    return;
  }
  /* Keep the backend's message and say what went wrong with the code. */
  char original[sizeof err->message];
  snprintf(original, sizeof original, "%s", err->message);
  snprintf(err->message, sizeof err->message, "backend used code %d, which is not in the catalogue: %.440s", code,
           original);
  err->code = SBIO_E_INTERNAL;
}

int sbio_sdk_error(sbio_bk_error *err, int code, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fill(err, code, hint, fmt, ap);
  va_end(ap);
  return sbio_sdk_code_valid(code) ? code : SBIO_E_INTERNAL;
}

int sbio_sdk_error_status(sbio_bk_error *err, long status, sbio_sdk_op op, const char *hint, const char *fmt, ...) {
  int code = sbio_sdk_status_code(status, op);
  if (code == SBIO_OK) code = sbio_sdk_op_code(op); /* called for a failure, whatever the status */
  va_list ap;
  va_start(ap, fmt);
  fill(err, code, hint, fmt, ap);
  va_end(ap);
  if (err) err->provider_status = status > 0 && status < 1000 ? (int)status : 0;
  return code;
}

int sbio_sdk_error_answer(sbio_bk_error *err, int code, long status, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fill(err, code, hint, fmt, ap);
  va_end(ap);
  if (err) err->provider_status = status > 0 && status < 1000 ? (int)status : 0;
  return sbio_sdk_code_valid(code) ? code : SBIO_E_INTERNAL;
}
