/* SPDX-License-Identifier: MIT */
/* The rules of ops_contract.h. Each is one sentence, part of the user
 * interface (`sbio inspect`, the loader battery and the kit match them):
 * change them only deliberately, and in docs/backend-abi.md too. */
#include "ops_contract.h"

#include <stdio.h>
#include <string.h>

typedef void (*any_op)(void);

/* An operation of the table by name and place. Every operation is a
 * function pointer, and POSIX gives them all one representation. */
typedef struct op_ref {
  const char *name;
  size_t offset;
} op_ref;
#define OP(field)                                                                                                      \
  { #field, offsetof(sbio_backend_ops, field) }
_Static_assert(sizeof(((sbio_backend_ops *)0)->exec) == sizeof(any_op), "operations are function pointers");

/* SBIO_OPS_HAS by offset: within the size the backend declared, non-NULL. */
static int has(const sbio_backend_ops *ops, const op_ref *op) {
  any_op fn;
  if (ops->size < op->offset + sizeof fn) return 0;
  memcpy(&fn, (const char *)ops + op->offset, sizeof fn);
  return fn != NULL;
}

/* A declared capability and the operations that deliver it. */
typedef struct cap_ops {
  sbio_caps cap;
  op_ref ops[5];
} cap_ops;

static const cap_ops delivered_by[] = {
    {SBIO_CAP_RUN_COMMAND, {OP(exec)}},
    {SBIO_CAP_STDIN, {OP(exec)}},
    {SBIO_CAP_STREAMING, {OP(exec)}},
    {SBIO_CAP_SEPARATE_STDERR, {OP(exec)}},
    {SBIO_CAP_FILESYSTEM, {OP(file_read), OP(file_write), OP(file_list), OP(file_mkdir), OP(file_remove)}},
    {SBIO_CAP_UPLOAD_DOWNLOAD, {OP(file_read), OP(file_write)}},
    {SBIO_CAP_CONNECT, {OP(connect)}},
    {SBIO_CAP_MANAGED, {OP(list_managed), OP(kill_managed)}},
};

static int refuse(char *reason, size_t size, const char *what) {
  if (reason && size) snprintf(reason, size, SBIO__OPS_CONTRACT_PREFIX "%s", what);
  return -1;
}

int sbio__ops_contract_check(const sbio_backend_ops *ops, sbio_caps declared, size_t n_mechanisms, char *reason,
                             size_t reason_size) {
  if (SBIO_OPS_HAS(ops, create) && !SBIO_OPS_HAS(ops, kill))
    return refuse(reason, reason_size, "create without kill (a sandbox it creates could never be destroyed)");
  if (SBIO_OPS_HAS(ops, connect) && !SBIO_OPS_HAS(ops, kill))
    return refuse(reason, reason_size, "connect without kill (a sandbox it attaches to could never be destroyed)");
  if (SBIO_OPS_HAS(ops, create) && !SBIO_OPS_HAS(ops, plan) && n_mechanisms > 1) {
    char what[256];
    snprintf(what, sizeof what,
             "create without plan while declaring %zu mechanisms (which one a create would use must be known before "
             "anything exists)",
             n_mechanisms);
    return refuse(reason, reason_size, what);
  }
  for (size_t i = 0; i < sizeof delivered_by / sizeof delivered_by[0]; i++) {
    const cap_ops *c = &delivered_by[i];
    if (!(declared & c->cap)) continue;
    char missing[128] = "";
    size_t used = 0;
    for (size_t k = 0; k < sizeof c->ops / sizeof c->ops[0] && c->ops[k].name; k++) {
      if (has(ops, &c->ops[k])) continue;
      int n = snprintf(missing + used, sizeof missing - used, "%s%s", used ? ", " : "", c->ops[k].name);
      if (n > 0 && (size_t)n < sizeof missing - used) used += (size_t)n;
    }
    if (!used) continue;
    char what[256];
    snprintf(what, sizeof what, "capability %s declared without %s", sbio_capability_name(c->cap), missing);
    return refuse(reason, reason_size, what);
  }
  /* A feature is a promise about an operation (unknown bits, from a newer
   * SDK, are not this core's to judge). */
  if ((SBIO_OPS_FEATURES(ops) & SBIO_BK_FEATURE_EXEC_CANCEL) && !SBIO_OPS_HAS(ops, exec))
    return refuse(reason, reason_size, "feature exec_cancel declared without exec");
  return 0;
}
