/* SPDX-License-Identifier: MIT */
/* Image references: the characters an engine accepts, and no userinfo
 * (the one '@' allowed begins a digest). A refusal says what is wrong and
 * where, never the reference itself, which may carry a password. */
#ifndef SBIO_DOCKER_IMAGEREF_H
#define SBIO_DOCKER_IMAGEREF_H

#include <sandboxio/backend.h>

/* SBIO_E_CONFIG unless `image` is a plausible image reference. */
int sbio__dk_image_check(const char *image, sbio_bk_error *err);

#endif
