/* SPDX-License-Identifier: MIT */
/* Loading a backend's code: the only place a plugin file is dlopen'ed.
 * The registry (registry.h) found the file, read its note without running
 * it, judged its trust and pins; the loader runs it, only when it is used
 * (or listed with --load), after checking once more that it is the file
 * that was judged and that it can be mapped at all. */
#ifndef SBIO_LOADER_H
#define SBIO_LOADER_H

#include "registry.h"

/* Loads an AVAILABLE backend and validates its entry point, in this order:
 *   - the file is re-read: still a regular file, the same SHA-256 as at
 *     scan ("file changed since it was scanned"), its ELF headers, note
 *     and loadable segments inside the file (a truncated file would crash
 *     the dynamic loader with SIGBUS, so it never reaches dlopen);
 *   - dlopen (libltdl, through dl.h), then the entry symbol;
 *   - the table: non-NULL, abi_major matches, size >= the v1.0 table, name
 *     equals the file name, metadata_json identical to the note;
 *   - the operations that must come together (ops_contract.h).
 * On failure the status becomes REFUSED with the reason, the object is
 * unloaded, and SBIO_E_BACKEND_UNAVAILABLE is returned. LOADED: no-op.
 * DISABLED/REFUSED/SHADOWED: SBIO_E_BACKEND_UNAVAILABLE with the reason.
 * The caller holds the registry's lock. */
sbio_code sbio__loader_load(struct sbio_backend_info *b, sbio_error *err);

/* SBIO_E_BACKEND_UNAVAILABLE explaining why b cannot be used (disabled,
 * shadowed, refused: with its reason and a hint). */
sbio_code sbio__loader_unavailable(const struct sbio_backend_info *b, sbio_error *err);

#endif
