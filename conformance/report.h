/* SPDX-License-Identifier: MIT */
/* The JSON report (--report FILE.json); schema in docs/conformance.md. */
#ifndef SBIO_KIT_REPORT_H
#define SBIO_KIT_REPORT_H

#include "kit.h"

/* 0 on success; -1 with a message on stderr. */
int kit_report_write(const kit_ctx *ctx, const char *path);

#endif
