/* SPDX-License-Identifier: MIT */
/* A create request checked and turned into Daytona's CreateSandbox body. */
#ifndef SBIO_DAYTONA_REQUEST_H
#define SBIO_DAYTONA_REQUEST_H

#include "settings.h"

/* Labels this backend puts on every sandbox it creates; `sbio reap` finds
 * them by the first. Caller labels may not use the prefix. */
#define DT_LABEL_PREFIX "sandboxio."
#define DT_LABEL_MANAGED "sandboxio.managed"
#define DT_LABEL_SESSION "sandboxio.session"
#define DT_LABEL_TIMEOUT "sandboxio.timeout"

/* What plan checks before anything exists: resources (a snapshot fixes
 * them on Daytona), label keys, environment names, the allow-list. */
int sbio__dt_check_request(const dt_settings *s, const sbio_bk_create_req *req, sbio_bk_error *err);

/* The JSON body of POST /sandbox (malloc'd), for sandbox name `name`:
 * snapshot, env (secrets included), labels (caller's plus the managed
 * markers), network policy, and auto-stop/auto-delete so that an abandoned
 * sandbox goes away on its own. */
int sbio__dt_create_body(const dt_settings *s, const sbio_bk_create_req *req, const char *name, char **body,
                         sbio_bk_error *err);

/* 1 for a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*). */
int sbio__dt_env_name_ok(const char *name);

#endif
