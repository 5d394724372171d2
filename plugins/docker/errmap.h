/* SPDX-License-Identifier: MIT */
/* Engine answers and transport failures -> the error catalogue. The
 * engine's own message is always passed through, so the user sees what the
 * engine said (e.g. "No such image: x"); transport failures get hints that
 * name the engine's address and where it came from. */
#ifndef SBIO_DOCKER_ERRMAP_H
#define SBIO_DOCKER_ERRMAP_H

#include "dk.h"

/* The engine's message from an error body ({"message":...} or plain text),
 * cut to fit, "" when none. */
const char *sbio__dk_engine_message(const sbio_sdk_http_response *resp, char *buf, size_t size);

/* Fills err for a request that failed: a transport failure gets `code`
 * (timeout: `timeout_code`) with the engine address in the hint; an HTTP
 * error status gets the code the SDK gives that status in the operation
 * family of `code` (401/403 are SBIO_E_AUTH), the status and the engine's
 * message. `what` names the operation ("create the container"). Returns
 * the code set. */
int sbio__dk_fail(const dk_instance *inst, const sbio_sdk_http_response *resp, int code, int timeout_code,
                  const char *what, sbio_bk_error *err);

/* True for a 404 that means the container, not a path, is missing. */
int sbio__dk_no_such_container(const sbio_sdk_http_response *resp);
/* True when no answer came (transport failure, timeout, cancellation). */
int sbio__dk_no_answer(const sbio_sdk_http_response *resp);
/* True for the answers meaning the container does not exist (any more):
 * a 404, or Podman's 500 "... no such container" while it removes one. */
int sbio__dk_container_missing(const sbio_sdk_http_response *resp);
/* True for the answers meaning the container is gone: missing (above), or
 * 409 "is not running" / "is restarting" / "is paused" (all mean: no exec
 * possible), or Podman's 500 "container state improper". */
int sbio__dk_container_gone(const sbio_sdk_http_response *resp);

#endif
