/* SPDX-License-Identifier: MIT */
/* sbio doctor: the report is built once as the JSON document (doctor.c,
 * doctor_checks.c) and the human form is rendered from it
 * (doctor_render.c), so the two can never disagree. */
#ifndef SBIO_CLI_DOCTOR_H
#define SBIO_CLI_DOCTOR_H

#include <cjson/cJSON.h>
#include <sandboxio/sandboxio.h>

typedef struct doctor_state {
  cJSON *doc;
  cJSON *problems; /* [{backend|null, what, fix}] */
  cJSON *warnings; /* [{backend|null, what}] */
  int probe_all;   /* --probe: also ask cloud backends */
  int oom;
} doctor_state;

/* Appends a problem (a reason to exit non-zero) or a warning. `backend`
 * may be NULL. Sets st->oom on failure. */
void doctor_problem(doctor_state *st, const char *backend, const char *what, const char *fix);
void doctor_warning(doctor_state *st, const char *backend, const char *what);

/* Checks one backend (load, credentials, reachability, freshness) and
 * returns its JSON object; problems and warnings also go to st. Returns
 * NULL on out of memory. */
cJSON *doctor_check_backend(doctor_state *st, sbio_host *host, const sbio_backend_info *b);

/* The human form of the document, on stdout. */
void doctor_render(const cJSON *doc);

#endif
