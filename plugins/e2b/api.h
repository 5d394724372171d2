/* SPDX-License-Identifier: MIT */
/* The control plane (https://api.<domain>): create, get, kill, list,
 * connect and set the timeout of sandboxes, as in E2B's openapi.yml, over
 * the SDK's client (inst->api). The API key is read from the environment
 * at each call (a rotated key is picked up), registered for redaction, and
 * goes only into the X-API-Key header. */
#ifndef SBIO_E2B_API_H
#define SBIO_E2B_API_H

#include "e2b.h"

#include <cjson/cJSON.h>

/* POST /sandboxes. Retried only when E2B refused it with 429 (after its
 * Retry-After, within the deadline: nothing was created) or it provably
 * never left; never once it may have created something. 201 -> *sandbox
 * (the Sandbox JSON, caller deletes). */
int sbio__e2b_api_create(e2b_instance *inst, const sbio_bk_call *call, const char *body, cJSON **sandbox,
                         sbio_bk_error *err);
/* GET /sandboxes/{id}. *found = 0 (and SBIO_OK) on 404. */
int sbio__e2b_api_get(e2b_instance *inst, const sbio_bk_call *call, const char *id, cJSON **detail, int *found,
                      sbio_bk_error *err);
/* DELETE /sandboxes/{id}. *existed = 0 (and SBIO_OK) on 404: already gone. */
int sbio__e2b_api_kill(e2b_instance *inst, const sbio_bk_call *call, const char *id, int *existed, sbio_bk_error *err);
/* POST /sandboxes/{id}/timeout: the sandbox expires `seconds` from now. */
int sbio__e2b_api_set_timeout(e2b_instance *inst, const sbio_bk_call *call, const char *id, int seconds,
                              sbio_bk_error *err);
/* POST /sandboxes/{id}/connect (resumes a paused one). *found = 0 on 404. */
int sbio__e2b_api_connect(e2b_instance *inst, const sbio_bk_call *call, const char *id, int timeout_s, cJSON **sandbox,
                          int *found, sbio_bk_error *err);
/* One page of GET /v2/sandboxes?metadata=..&state=running,paused.
 * metadata_query is "k=v&k2=v2" with keys and values already escaped (or
 * NULL); next_token NULL for the first page. *items is the JSON array;
 * next receives X-Next-Token ("" on the last page). */
int sbio__e2b_api_list_page(e2b_instance *inst, const sbio_bk_call *call, const char *metadata_query,
                            const char *next_token, cJSON **items, char *next, size_t next_size, sbio_bk_error *err);

#endif
