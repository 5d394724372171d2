/* SPDX-License-Identifier: MIT */
/* SDK: errors with catalogue codes.
 *
 * A backend maps every provider failure to a code of the public catalogue
 * (sbio_code); it never invents one. These helpers pick the code for the
 * common cases and fill sbio_bk_error the way the core expects. */
#ifndef SANDBOXIO_SDK_ERROR_H
#define SANDBOXIO_SDK_ERROR_H

#include <sandboxio/backend.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The family of a failing operation: it decides what a provider status
 * means (a 404 on exec means the sandbox is gone, on a file read that the
 * path is missing) and which code a failure gets when nothing more
 * specific applies. */
typedef enum sbio_sdk_op {
  SBIO_SDK_OP_CREATE = 1, /* plan, create               -> SBIO_E_CREATE  (timeout: SBIO_E_CREATE_TIMEOUT) */
  SBIO_SDK_OP_CONNECT,    /* connect, kill, managed, probe -> SBIO_E_CONNECT */
  SBIO_SDK_OP_EXEC,       /* exec                       -> SBIO_E_EXEC    (timeout: SBIO_E_EXEC_TIMEOUT) */
  SBIO_SDK_OP_FILE        /* file_*                     -> SBIO_E_FS */
} sbio_sdk_op;

/* The generic failure code of an operation family (SBIO_E_INTERNAL for a
 * value that is not one). */
int sbio_sdk_op_code(sbio_sdk_op op);
/* The code for "the deadline passed": SBIO_E_CREATE_TIMEOUT for create,
 * SBIO_E_EXEC_TIMEOUT for exec, the generic code otherwise. */
int sbio_sdk_op_timeout_code(sbio_sdk_op op);
/* The family a backend's failure code belongs to, the inverse of the two
 * above: SBIO_E_CREATE and SBIO_E_CREATE_TIMEOUT are CREATE, SBIO_E_EXEC
 * and SBIO_E_EXEC_TIMEOUT are EXEC, SBIO_E_FS and SBIO_E_PATH_NOT_FOUND are
 * FILE, any other code is CONNECT. For a backend that carries the code an
 * operation fails with and wants sbio_sdk_error_status() or
 * sbio_sdk_http_fail() to read the status for that operation. */
sbio_sdk_op sbio_sdk_op_of_code(int code);

/* The catalogue code for a provider's HTTP status:
 *
 *   status     CREATE          CONNECT   EXEC             FILE
 *   < 400      SBIO_OK         SBIO_OK   SBIO_OK          SBIO_OK
 *   401, 403   AUTH            AUTH      AUTH             AUTH
 *   404        CREATE          CONNECT   GONE             PATH_NOT_FOUND
 *   408        CREATE_TIMEOUT  CONNECT   EXEC_TIMEOUT     FS
 *   409        CREATE          CONNECT   EXEC             FS
 *   410        CREATE          CONNECT   GONE             GONE
 *   429        RATE_LIMIT      RATE_LIMIT RATE_LIMIT      RATE_LIMIT
 *   other 4xx, 5xx, 0 (no answer): the family's generic code
 *
 * This is the usual meaning; a provider that says more (Docker's 409 "is
 * not running" means the sandbox is gone) should be mapped by the backend
 * before falling back to this. */
int sbio_sdk_status_code(long status, sbio_sdk_op op);

/* Non-zero when `code` is a failure code of the catalogue this SDK knows. */
int sbio_sdk_code_valid(int code);

/* Fills err (when non-NULL) and returns the code, like sbio_bk_error_set,
 * but a code outside the catalogue becomes SBIO_E_INTERNAL with the
 * number in the message, so a slip is visible in the backend's own tests
 * rather than rewritten by the core later. provider_status is reset to 0.
 * `hint` may be NULL (the core then supplies the catalogue's default). */
int sbio_sdk_error(sbio_bk_error *err, int code, const char *hint, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Same for a provider answer: the code from sbio_sdk_status_code(), and
 * provider_status set to `status`. */
int sbio_sdk_error_status(sbio_bk_error *err, long status, sbio_sdk_op op, const char *hint, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* For a provider answer the backend maps itself (E2B's proxy answering
 * 502 for a sandbox that is gone): `code` as chosen, provider_status set to
 * `status`. */
int sbio_sdk_error_answer(sbio_bk_error *err, int code, long status, const char *hint, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
