/* SPDX-License-Identifier: MIT */
/* The control-plane calls the backend makes (paths relative to the API
 * base, e.g. https://app.daytona.io/api). */
#ifndef SBIO_DAYTONA_REST_H
#define SBIO_DAYTONA_REST_H

#include "errmap.h"
#include "record.h"

/* POST /sandbox. On failure *ambiguous says the sandbox may exist anyway
 * (no answer, or a 5xx): the caller then looks it up by name. */
int sbio__dt_api_create(dt_ctx *ctx, const char *body, const dt_op *op, dt_record *out, int *ambiguous,
                        sbio_bk_error *err);
/* GET /sandbox/{idOrName}. A 404 is not an error: *found = 0. */
int sbio__dt_api_get(dt_ctx *ctx, const char *id_or_name, const dt_op *op, dt_record *out, int *found,
                     sbio_bk_error *err);
/* DELETE /sandbox/{idOrName}. A 404 is not an error: *existed = 0. */
int sbio__dt_api_delete(dt_ctx *ctx, const char *id_or_name, const dt_op *op, int *existed, sbio_bk_error *err);

typedef void (*dt_record_fn)(void *user, const dt_record *r);
/* GET /sandbox filtered by labels (a JSON object), one page. Accepts both
 * list shapes: {"items": [...], "nextCursor": ...} (v0.190) and the plain
 * array of older deployments. *next is the next cursor (malloc'd) or NULL. */
int sbio__dt_api_list_page(dt_ctx *ctx, const char *labels_json, const char *cursor, const dt_op *op, dt_record_fn fn,
                           void *user, char **next, sbio_bk_error *err);

/* GET /sandbox/{id}/toolbox-proxy-url -> url; and GET /config ->
 * proxyToolboxUrl. *found = 0 when the server does not have it (404, or
 * the field is absent). */
int sbio__dt_api_toolbox_url(dt_ctx *ctx, const char *id, const dt_op *op, char *out, size_t size, int *found,
                             sbio_bk_error *err);
int sbio__dt_api_config_toolbox(dt_ctx *ctx, const dt_op *op, char *out, size_t size, int *found, sbio_bk_error *err);

#endif
