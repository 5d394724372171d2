/* SPDX-License-Identifier: MIT */
/* Daytona's answers mapped onto the error catalogue, with messages that say
 * what was being attempted. */
#ifndef SBIO_DAYTONA_ERRMAP_H
#define SBIO_DAYTONA_ERRMAP_H

#include "ctx.h"

/* What an operation was doing, and which catalogue codes its failures get. */
typedef struct dt_op {
  const char *what;   /* "creating a sandbox" */
  int fail_code;      /* unreachable, refused or broken: e.g. SBIO_E_CREATE */
  int not_found_code; /* a 404: SBIO_E_GONE, SBIO_E_PATH_NOT_FOUND, ... */
  int timeout_code;   /* the deadline passed: e.g. SBIO_E_CREATE_TIMEOUT */
} dt_op;

/* Fills `err` for a request that did not succeed (no answer, or a status
 * outside 2xx) and returns its code. */
int sbio__dt_fail(const dt_ctx *ctx, const dt_op *op, const sbio_sdk_http_response *resp, sbio_bk_error *err);

/* 1 when the request got an answer with a 2xx status. */
int sbio__dt_ok(const sbio_sdk_http_response *resp);

/* The provider's own message from an error body (either shape: the API's
 * {statusCode, error, message} or the toolbox's {statusCode, message, code}),
 * printable characters only, at most size-1 bytes; "" when the body has
 * none (a proxy's HTML page, an empty body). */
void sbio__dt_provider_message(const dt_instance *inst, const sbio_sdk_http_response *resp, char *out, size_t size);

/* "Not Found" for 404; "" for a status it does not know. */
const char *sbio__dt_status_text(long status);

#endif
