/* SPDX-License-Identifier: MIT */
/* Images: is it there, and pulling it (policy missing|always|never). Pull
 * progress goes to the host's log as it arrives, one line per layer step,
 * and, summed over the layers as downloaded/total bytes, to the host's
 * progress service (ABI 1.2) as the step "pull IMAGE". */
#ifndef SBIO_DOCKER_PULL_H
#define SBIO_DOCKER_PULL_H

#include "dk.h"
#include "imageref.h"

/* *present = 1 when the engine has the image. */
int sbio__dk_image_present(dk_instance *inst, const char *image, const sbio_bk_call *call, int *present,
                           sbio_bk_error *err);
/* Pulls it; an error line in the progress stream fails the pull. */
int sbio__dk_image_pull(dk_instance *inst, const char *image, const sbio_bk_call *call, sbio_bk_error *err);

#endif
