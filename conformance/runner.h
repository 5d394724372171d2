/* SPDX-License-Identifier: MIT */
/* Runs the selected cases in order, each on a thread of its own under a
 * hard time limit, prints one line per case as it finishes, and records
 * the results in the context. */
#ifndef SBIO_KIT_RUNNER_H
#define SBIO_KIT_RUNNER_H

#include "kit.h"

void kit_run_all(kit_ctx *ctx);
/* "PASS", "FAIL", ... */
const char *kit_status_name(kit_status s);

#endif
