/* SPDX-License-Identifier: MIT */
/* What the backend learns from the engine once per instance: the API
 * version to speak (negotiated from /_ping) and the runtimes (/info). */
#ifndef SBIO_DOCKER_ENGINE_H
#define SBIO_DOCKER_ENGINE_H

#include "dk.h"

/* Negotiates the API version on first use. `code` is the catalogue code a
 * failure gets in the calling operation (an unreachable engine while
 * creating is SBIO_E_CREATE). */
int sbio__dk_engine_ready(dk_instance *inst, const sbio_bk_call *call, int code, sbio_bk_error *err);

/* The engine's default runtime (from /info, cached). */
int sbio__dk_engine_default_runtime(dk_instance *inst, const sbio_bk_call *call, int code, char *out, size_t size,
                                    sbio_bk_error *err);

/* The mechanism a registered runtime is: "runc" or "runsc" when the
 * runtime's binary (or shim type) is one of them, else the runtime's own
 * name, which the core reports as UNKNOWN. Uses /info when it is cached or
 * can be fetched within the call; without it, the name itself. */
void sbio__dk_engine_mechanism(dk_instance *inst, const char *runtime, const sbio_bk_call *call, char *out,
                               size_t size);

/* Numeric comparison of "1.9" and "1.10": <0, 0, >0. */
int sbio__dk_version_cmp(const char *a, const char *b);

#endif
