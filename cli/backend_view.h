/* SPDX-License-Identifier: MIT */
/* How a backend is shown, shared by `backends` and `inspect` so both
 * always say the same thing about it. */
#ifndef SBIO_CLI_BACKEND_VIEW_H
#define SBIO_CLI_BACKEND_VIEW_H

#include <cjson/cJSON.h>
#include <sandboxio/sandboxio.h>
#include <stddef.h>

/* The mechanism that decides the backend's tier: the first whose effective
 * tier equals the backend's (the weakest). -1 when it has none. */
long cli_backend_deciding_mechanism(const sbio_backend_info *b);

/* The backend as a JSON object. `detailed` adds what `inspect` shows
 * (sha256, summary, pins, capabilities, quotes, ages, reasons). NULL on
 * out of memory. */
cJSON *cli_backend_json(const sbio_backend_info *b, int detailed);

/* Capability names joined with ", " into buf (unknown bits as "bit N"). */
void cli_caps_text(sbio_caps caps, char *buf, size_t size);

/* The names of the active backends, comma separated ("" when none). */
void cli_backend_names(const sbio_host *host, char *buf, size_t size);

#endif
