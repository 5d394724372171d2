/* SPDX-License-Identifier: MIT */
/* Operations that must come together. A table may leave any operation NULL
 * ("not supported"), but some combinations make a promise the backend
 * could not keep: a sandbox it creates, or attaches to, that nothing could
 * ever destroy; a capability its metadata declares (which the admission
 * gate trusts before any code runs) without the operation that delivers
 * it. The loader refuses such a table, and the conformance kit checks the
 * same rules with this same code. Pure: it reads the table, calls nothing. */
#ifndef SBIO_OPS_CONTRACT_H
#define SBIO_OPS_CONTRACT_H

#include <sandboxio/backend.h>
#include <stddef.h>

/* Every reason below starts with this, so a reader (the kit, a test) can
 * tell this refusal from the others. */
#define SBIO__OPS_CONTRACT_PREFIX "incomplete operations table: "

/* Checks `ops` against the capabilities its metadata declares and the
 * number of mechanisms it declares. Returns 0, or -1 with one fixed
 * sentence in `reason`, e.g.
 *   "incomplete operations table: create without kill (a sandbox it
 *    creates could never be destroyed)". */
int sbio__ops_contract_check(const sbio_backend_ops *ops, sbio_caps declared, size_t n_mechanisms, char *reason,
                             size_t reason_size);

#endif
