/* SPDX-License-Identifier: MIT */
/* Podman's Docker-compatible service. Its compat inspect answers
 * HostConfig.Runtime "oci" for every container, whatever runtime ran it,
 * so the mechanism cannot be read there; Podman's own (libpod) inspect
 * names it. */
#ifndef SBIO_DOCKER_PODMAN_H
#define SBIO_DOCKER_PODMAN_H

#include "dk.h"

#include <stddef.h>
#include <stdint.h>

/* When `runtime` is "oci", replaces it with the OCIRuntime that Podman's
 * libpod inspect of container `id` names; otherwise (or when that cannot
 * be had within the call: not Podman, or no answer) leaves it as it is,
 * which the core reports as UNKNOWN. */
void sbio__dk_podman_runtime(dk_instance *inst, const char *id, const sbio_bk_call *call, char *runtime, size_t size);

#endif
