/* SPDX-License-Identifier: MIT */
/* Before any case runs: open the library host (with the kit's log and
 * audit capture), find the URI's backend, read its plugin file, load it,
 * and note what it declares. */
#ifndef SBIO_KIT_PREPARE_H
#define SBIO_KIT_PREPARE_H

#include "kit.h"

/* 0 on success; -1 (message printed) when the host cannot be opened. An
 * unusable backend is not an error here: the static cases report it. */
int kit_prepare(kit_ctx *ctx);
/* Removes every managed sandbox still carrying this run's label. */
void kit_reap_run(kit_ctx *ctx);
void kit_finish(kit_ctx *ctx);

#endif
