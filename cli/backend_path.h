/* SPDX-License-Identifier: MIT */
/* --backend-path on the command line. The library ignores relative search
 * directories, as it must for SBIO_BACKEND_PATH and the configuration
 * (they would mean whatever the current directory happens to be); but a
 * directory typed on the command line is an explicit choice, and
 * `--backend-path build/backends` plainly means the one the user is
 * looking at. So relative entries are made absolute here, against the
 * current directory, before the library sees them. */
#ifndef SBIO_CLI_BACKEND_PATH_H
#define SBIO_CLI_BACKEND_PATH_H

#include <sandboxio/sandboxio.h>

/* sbio_host_options_set_backend_path with every relative entry of the
 * colon-separated `dirs` made absolute. Empty entries are passed on (the
 * library warns about them). SBIO_E_INTERNAL when the current directory
 * cannot be read or memory runs out. */
sbio_code cli_set_backend_path(sbio_host_options *opts, const char *dirs);

#endif
