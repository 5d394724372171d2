/* SPDX-License-Identifier: MIT */
/* Where this installation of the library keeps its configuration.
 *
 * The rule (docs/configuration.md, "Where the configuration is read"):
 * the configuration directory is SYSCONFDIR/sandboxio, SYSCONFDIR being the
 * one of the prefix the library is installed under, found at run time from
 * the library's own path (PREFIX/LIBDIR/libsandboxio.so.0):
 *   prefix /usr (or /)   ->  /etc
 *   prefix /opt/NAME     ->  /etc/opt/NAME
 *   any other prefix P   ->  P/etc
 * as GNUInstallDirs and the install rules that place the backends' drop-ins
 * decide it, so an install made with `cmake --install --prefix P`, or moved,
 * reads the drop-ins that came with it. A build tree (its library in
 * BUILD/lib) counts as the prefix BUILD. A SYSCONFDIR a packager set
 * absolute (-DCMAKE_INSTALL_SYSCONFDIR=/etc) is used as is; a library whose
 * path says nothing (linked statically) uses the one of the prefix it was
 * configured for. */
#ifndef SBIO_INSTALL_LAYOUT_H
#define SBIO_INSTALL_LAYOUT_H

#include <stddef.h>

/* SYSCONFDIR (without "/sandboxio"), NUL-terminated in out. */
void sbio__install_sysconfdir(char *out, size_t size);

/* The rule itself, for a library directory: what the above computes, with
 * `libdir` the library's configured LIBDIR relative to the prefix and
 * `sysconfdir` CMAKE_INSTALL_SYSCONFDIR (relative, or absolute to keep).
 * Returns -1 when lib_dir is under no prefix (out is left unset). */
int sbio__sysconfdir_for(const char *lib_dir, const char *libdir, const char *sysconfdir, char *out, size_t size);

#endif
