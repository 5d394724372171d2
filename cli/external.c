/* SPDX-License-Identifier: MIT */
/* Running a command shipped as its own executable; see dispatch.h.
 *
 * The executable is found relative to the running sbio (the path the
 * kernel gives for /proc/self/exe, symlinks resolved), never through PATH
 * or the current directory: the build tree (bin/ and libexec/sandboxio/)
 * and an installed tree have the same shape, so both work unconfigured. */
#include "dispatch.h"

#include "exitcode.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef SBIO_CLI_LIBEXEC_REL
#error "SBIO_CLI_LIBEXEC_REL (libexec directory relative to the sbio executable's) must be defined"
#endif

int cli_exec_external(const char *name, int argc, char **argv) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    fprintf(stderr, "sbio: error: cannot find the sbio executable to locate 'sbio-%s': %s\n", name, strerror(errno));
    return CLI_EXIT_INTERNAL;
  }
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (slash) *slash = '\0';
  char path[PATH_MAX];
  int w = snprintf(path, sizeof path, "%s/%s/sbio-%s", self, SBIO_CLI_LIBEXEC_REL, name);
  if (w < 0 || (size_t)w >= sizeof path) {
    fprintf(stderr, "sbio: error: the path of 'sbio-%s' is too long\n", name);
    return CLI_EXIT_INTERNAL;
  }
  (void)argc;
  char *saved = argv[0];
  argv[0] = path;
  execv(path, argv);
  int e = errno;
  argv[0] = saved;
  if (e == ENOENT) {
    fprintf(stderr,
            "sbio: error: the '%s' command is not installed (no %s); install the package that ships it, or build it "
            "from the source tree\n",
            name, path);
    return CLI_EXIT_UNAVAILABLE;
  }
  fprintf(stderr, "sbio: error: cannot run %s: %s\n", path, strerror(e));
  return CLI_EXIT_INTERNAL;
}
