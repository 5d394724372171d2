/* SPDX-License-Identifier: MIT */
/* The toolbox: where a sandbox's daemon is reached, and paths inside it. */
#ifndef SBIO_DAYTONA_TOOLBOX_H
#define SBIO_DAYTONA_TOOLBOX_H

#include "rest.h"

/* The toolbox base URL for sandbox `rec` ({proxy}/{id}), from, in order:
 * the record's toolboxProxyUrl (API since 2026-02-26), GET
 * /sandbox/{id}/toolbox-proxy-url, GET /config's proxyToolboxUrl, and the
 * API's deprecated {api}/toolbox/{id}/toolbox route. A URL that may not
 * carry the key (sbio_sdk_url_check: https, or plain http to this machine)
 * is refused. */
int sbio__dt_toolbox_resolve(dt_ctx *ctx, const dt_record *rec, const dt_op *op, char *out, size_t size,
                             sbio_bk_error *err);

/* {endpoint}[?path=<escaped path>[&extra]], relative to the sandbox's
 * toolbox client (malloc'd). */
char *sbio__dt_toolbox_path(const char *endpoint, const char *path, const char *extra);

/* An absolute, normalised path inside the sandbox: relative paths resolve
 * against the daemon's work directory (GET /work-dir, asked once), "." and
 * ".." segments are folded (".." stops at "/"). */
int sbio__dt_abs_path(dt_ctx *ctx, dt_sandbox *sb, const char *path, char *out, size_t size, sbio_bk_error *err);

/* Folds "." / ".." / "//" of an absolute path in place (at most 4095
 * bytes; a longer one is left as it is). */
void sbio__dt_normalise(char *path);

/* After a toolbox 404 or 409, which may mean "no such path" or "no such
 * sandbox": asks the API. When sandbox `id` is gone (deleted, or no longer
 * running) fills `err` with SBIO_E_GONE and returns it; otherwise (or when
 * the API cannot tell) returns SBIO_OK. */
int sbio__dt_toolbox_gone(dt_ctx *ctx, const char *id, const char *what, sbio_bk_error *err);

#endif
