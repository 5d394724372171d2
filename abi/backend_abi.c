/* SPDX-License-Identifier: MIT */
/* The backend ABI (sdk/include/sandboxio/backend.h) as a shared object that
 * libabigail can read: no library exports these types (a backend exports
 * only its entry point, the core consumes the table), so this file exports
 * one function per struct of the ABI, taking it, and one taking the entry
 * point's type. Every type a backend and the core exchange is reachable from
 * them; scripts/abi.sh compares what abidw reads here with the baseline
 * abi/sandboxio-backend-abi-MAJOR.MINOR.abi. Built, never installed. */
#include <sandboxio/backend.h>

#define ABI_PROBE SBIO_BACKEND_EXPORT

ABI_PROBE void sbio_abi_entry(sbio_backend_entry_fn entry);
ABI_PROBE void sbio_abi_entry(sbio_backend_entry_fn entry) {
  (void)entry;
}

/* One per struct, so a struct no operation refers to yet still counts. */
#define ABI_TYPE(T)                                                                                                    \
  ABI_PROBE void sbio_abi_##T(const T *value);                                                                         \
  ABI_PROBE void sbio_abi_##T(const T *value) {                                                                        \
    (void)value;                                                                                                       \
  }
ABI_TYPE(sbio_backend_ops)
ABI_TYPE(sbio_host_services)
ABI_TYPE(sbio_bk_call)
ABI_TYPE(sbio_bk_error)
ABI_TYPE(sbio_bk_kv)
ABI_TYPE(sbio_bk_create_req)
ABI_TYPE(sbio_bk_sandbox_info)
ABI_TYPE(sbio_bk_exec_req)
ABI_TYPE(sbio_bk_dirent)
ABI_TYPE(sbio_bk_managed)
ABI_TYPE(sbio_bk_run_req)
