/* SPDX-License-Identifier: MIT */
/* A single HTTP attempt (http_once.c); the retry policy around it is retry.c. */
#ifndef SBIO_DAYTONA_HTTP_ONCE_H
#define SBIO_DAYTONA_HTTP_ONCE_H

#include "http.h"

/* One attempt. On DT_HTTP_TRANSPORT, *cap_timeout says it was the
 * per-request cap (not the call's deadline) that ran out. */
dt_http_outcome sbio__dt_http_once(dt_ctx *ctx, const dt_http_req *req, dt_http_resp *resp, int *cap_timeout);

#endif
