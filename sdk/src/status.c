/* SPDX-License-Identifier: MIT */
/* Operation families and what a provider's HTTP status means for each. */
#include <sandboxio/sdk/error.h>

int sbio_sdk_op_code(sbio_sdk_op op) {
  switch (op) {
  case SBIO_SDK_OP_CREATE:
    return SBIO_E_CREATE;
  case SBIO_SDK_OP_CONNECT:
    return SBIO_E_CONNECT;
  case SBIO_SDK_OP_EXEC:
    return SBIO_E_EXEC;
  case SBIO_SDK_OP_FILE:
    return SBIO_E_FS;
  }
  return SBIO_E_INTERNAL;
}

int sbio_sdk_op_timeout_code(sbio_sdk_op op) {
  switch (op) {
  case SBIO_SDK_OP_CREATE:
    return SBIO_E_CREATE_TIMEOUT;
  case SBIO_SDK_OP_EXEC:
    return SBIO_E_EXEC_TIMEOUT;
  default:
    return sbio_sdk_op_code(op);
  }
}

sbio_sdk_op sbio_sdk_op_of_code(int code) {
  switch (code) {
  case SBIO_E_CREATE:
  case SBIO_E_CREATE_TIMEOUT:
    return SBIO_SDK_OP_CREATE;
  case SBIO_E_EXEC:
  case SBIO_E_EXEC_TIMEOUT:
    return SBIO_SDK_OP_EXEC;
  case SBIO_E_FS:
  case SBIO_E_PATH_NOT_FOUND:
    return SBIO_SDK_OP_FILE;
  default:
    return SBIO_SDK_OP_CONNECT;
  }
}

int sbio_sdk_status_code(long status, sbio_sdk_op op) {
  int generic = sbio_sdk_op_code(op);
  if (status >= 100 && status < 400) return SBIO_OK;
  switch (status) {
  case 401:
  case 403:
    return SBIO_E_AUTH;
  case 429:
    return SBIO_E_RATE_LIMIT;
  case 404:
    /* Creating: what was asked for (a template) does not exist. Connecting:
     * no such sandbox. Otherwise the sandbox, or the path, is gone. */
    if (op == SBIO_SDK_OP_EXEC) return SBIO_E_GONE;
    if (op == SBIO_SDK_OP_FILE) return SBIO_E_PATH_NOT_FOUND;
    return generic;
  case 410:
    return op == SBIO_SDK_OP_EXEC || op == SBIO_SDK_OP_FILE ? SBIO_E_GONE : generic;
  case 408:
    return sbio_sdk_op_timeout_code(op);
  default:
    return generic; /* 409, other 4xx, 5xx, no answer */
  }
}
