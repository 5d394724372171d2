/* SPDX-License-Identifier: MIT */
/* Talking to envd, the agent inside the sandbox, through E2B's proxy: the
 * routing and auth headers every request carries, and unary Connect calls
 * (POST <envd>/<package.Service>/<Method>, JSON in, JSON out). */
#ifndef SBIO_E2B_RPC_H
#define SBIO_E2B_RPC_H

#include "http.h"
#include "retry.h"

#include <cjson/cJSON.h>

/* Headers for envd: the access token (when the sandbox has one), the
 * proxy's routing headers, the acting user for envd < 0.4.0, and
 * content_type when not NULL. NULL on OOM. */
struct curl_slist *sbio__e2b_envd_headers(const e2b_sandbox *sb, const char *content_type);
/* "<envd>/<suffix>"; malloc'd. */
char *sbio__e2b_envd_url(const e2b_sandbox *sb, const char *suffix);
/* The deadline of one envd request: the call's, capped by request_timeout. */
int64_t sbio__e2b_envd_deadline(const e2b_sandbox *sb, const sbio_bk_call *call);

/* A unary call. On 200 *out is the answer (caller deletes) and SBIO_OK.
 * A Connect error answer maps through not_found_code (code "not_found"),
 * else fail_code, unless the caller passed `code` to receive the Connect
 * code ("already_exists", ...) in which case it is still an error. */
int sbio__e2b_rpc(e2b_sandbox *sb, const sbio_bk_call *call, const char *method, const cJSON *msg, int idempotent,
                  const char *what, int not_found_code, int fail_code, cJSON **out, char *code, size_t code_size,
                  sbio_bk_error *err);

#endif
