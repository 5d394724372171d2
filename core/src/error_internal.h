/* SPDX-License-Identifier: MIT */
/* Internal error construction. Every module reports through these so the
 * catalogue code, the default hint and redaction stay in one place. */
#ifndef SBIO_ERROR_INTERNAL_H
#define SBIO_ERROR_INTERNAL_H

#include <sandboxio/backend.h>
#include <sandboxio/sandboxio.h>

/* Sets code, message (printf) and hint (NULL: the code's default hint).
 * Returns `code` so callers can `return sbio__error_set(...)`. Safe with a
 * NULL err. */
sbio_code sbio__error_set(sbio_error *err, sbio_code code, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void sbio__error_set_backend(sbio_error *err, const char *backend);
void sbio__error_set_sandbox_id(sbio_error *err, const char *id);
void sbio__error_set_provider_status(sbio_error *err, int status);
/* Prefixes the existing message: "context: message". */
void sbio__error_prefix(sbio_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copies a backend-reported error; an out-of-catalogue code becomes
 * SBIO_E_INTERNAL with the original number in the message. */
sbio_code sbio__error_from_backend(sbio_error *err, const sbio_bk_error *bk, const char *backend);
/* Replaces every secret the redactor knows in message and hint by "***". */
struct sbio__redactor;
void sbio__error_redact(sbio_error *err, struct sbio__redactor *r);
/* Default hint for a code ("" if none). */
const char *sbio__code_default_hint(sbio_code code);

#endif
