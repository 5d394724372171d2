/* SPDX-License-Identifier: MIT */
/* Talking to envd, the agent inside the sandbox, through E2B's proxy: the
 * sandbox's SDK client (its routing and auth headers go with every
 * request) and unary Connect calls (POST <envd>/<package.Service>/<Method>,
 * JSON in, JSON out). */
#ifndef SBIO_E2B_RPC_H
#define SBIO_E2B_RPC_H

#include "e2b.h"

#include <cjson/cJSON.h>

/* The sandbox's envd client: base URL `envd_url`, the proxy's routing
 * headers, the access token (a secret header, and in inst->secrets), the
 * acting user for envd < 0.4.0. 502 is not worth repeating (the proxy
 * says the sandbox is gone). */
int sbio__e2b_envd_client(e2b_sandbox *sb, const char *envd_url, const char *token, sbio_bk_error *err);

/* The header every Connect request carries. */
#define E2B_CONNECT_HEADER "Connect-Protocol-Version: 1"

/* A unary call. On 200 *out is the answer (caller deletes) and SBIO_OK.
 * A Connect error answer maps through not_found_code (code "not_found"),
 * else fail_code, unless the caller passed `code` to receive the Connect
 * code ("already_exists", ...) in which case it is still an error. */
int sbio__e2b_rpc(e2b_sandbox *sb, const sbio_bk_call *call, const char *method, const cJSON *msg, int idempotent,
                  const char *what, int not_found_code, int fail_code, cJSON **out, char *code, size_t code_size,
                  sbio_bk_error *err);

#endif
