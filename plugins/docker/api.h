/* SPDX-License-Identifier: MIT */
/* The engine's HTTP API through the SDK's client: the client made for the
 * resolved endpoint (unix socket, or TCP with the TLS files of
 * DOCKER_CERT_PATH; never through the user's proxy), and the paths of the
 * negotiated API version ("/v1.41/containers/json"). Nothing here talks
 * HTTP itself. */
#ifndef SBIO_DOCKER_API_H
#define SBIO_DOCKER_API_H

#include "dk.h"

#include <sandboxio/sdk/http_stream.h>

#define DK_API_PATH_MAX (4096 * 3 + 512) /* an archive path escaped, and its query */

/* inst->http for inst->endpoint. */
int sbio__dk_client_new(dk_instance *inst, sbio_bk_error *err);

/* "/v<api><path>" into buf; NULL when it does not fit. */
const char *sbio__dk_api_path(const dk_instance *inst, const char *path, char *buf, size_t size);

/* A request at the negotiated version, with a JSON body when `json` is
 * not NULL (a POST without one still says application/json: the engine
 * refuses a form content type). 0 when the engine answered (any status),
 * -1 otherwise; resp is always set (free it with
 * sbio_sdk_http_response_free). */
int sbio__dk_send(dk_instance *inst, const char *method, const char *path, const char *json, const sbio_bk_call *call,
                  sbio_sdk_http_response *resp);
/* The same for a prepared request (sinks, uploads): req->path is relative
 * to the API version and is replaced while sending. */
int sbio__dk_request(dk_instance *inst, const sbio_sdk_http_request *req, const sbio_bk_call *call,
                     sbio_sdk_http_response *resp);

/* POST `path` (at the negotiated version) with `json` and "Upgrade: tcp"
 * on a fresh connection: the exec attach. See sbio_sdk_http_upgrade. */
int sbio__dk_upgrade(dk_instance *inst, const char *path, const char *json, const sbio_bk_call *call,
                     sbio_sdk_http_conn **conn, sbio_sdk_http_response *resp);

#endif
