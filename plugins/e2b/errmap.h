/* SPDX-License-Identifier: MIT */
/* E2B failures -> the error catalogue. Transport failures (no answer, the
 * deadline, a cancellation) are the SDK's (sbio_sdk_http_fail); what E2B
 * answered is mapped here, because E2B says more than a status: its
 * proxy's 502 means the sandbox is gone, 507 a full disk, a Connect code
 * what went wrong. Messages carry E2B's own message (cut, control
 * characters removed) and the HTTP status, never a key or a token. */
#ifndef SBIO_E2B_ERRMAP_H
#define SBIO_E2B_ERRMAP_H

#include "e2b.h"

/* The "message" of a JSON error body ({"code":..,"message":..}), cleaned;
 * the raw body start when it is not JSON; "" when empty. Redacted with
 * the instance's and the host's secrets before it is cut, so that a key
 * the cut falls inside goes whole. */
void sbio__e2b_body_message(const e2b_instance *inst, const sbio_sdk_http_response *resp, char *buf, size_t size);
/* The Connect error code of a JSON error body ("not_found"), or "" (E2B's
 * proxy and envd's REST answer integer codes). */
void sbio__e2b_connect_code(const sbio_sdk_http_response *resp, char *buf, size_t size);

/* A control-plane answer that is not a success: 401/403 SBX_E1501 naming
 * the key's variable, 429 SBX_E1502 (with the Retry-After E2B gave), the
 * rest fail_code. */
int sbio__e2b_fail_api(const e2b_instance *inst, sbio_bk_error *err, const sbio_sdk_http_response *resp,
                       const char *what, int fail_code);
/* An envd answer (through E2B's proxy) that is not a success: 502 (and a
 * 404/410 about the sandbox) SBX_E1204, 401 SBX_E1501, 429 SBX_E1502, 507
 * SBX_E1402, other 404 not_found_code, the rest fail_code. */
int sbio__e2b_fail_envd(const e2b_sandbox *sb, sbio_bk_error *err, const sbio_sdk_http_response *resp, const char *what,
                        int not_found_code, int fail_code);

#endif
