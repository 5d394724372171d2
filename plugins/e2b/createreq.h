/* SPDX-License-Identifier: MIT */
/* The create request: checks made before anything exists, the NewSandbox
 * body, and the metadata labels sandboxio puts on what it creates. */
#ifndef SBIO_E2B_CREATEREQ_H
#define SBIO_E2B_CREATEREQ_H

#include "e2b.h"

/* The NewSandbox JSON (malloc'd; NULL on OOM): template, lifetime, secure
 * envd, caller labels plus the managed/session markers, env and secrets,
 * and the egress policy. */
char *sbio__e2b_create_body(const e2b_instance *inst, const sbio_bk_create_req *req);
/* The lifetime E2B gets for a timeout: whole seconds, rounded up, >= 1. */
int sbio__e2b_lifetime_s(double timeout_s);
/* The /v2/sandboxes metadata filter for managed sandboxes with these
 * labels: "sandboxio_managed=true&k=v..." with keys and values escaped.
 * malloc'd; NULL on OOM. */
char *sbio__e2b_metadata_query(const sbio_bk_kv *labels, size_t n_labels);
const char *sbio__e2b_label_managed(void);
const char *sbio__e2b_label_session(void);

#endif
