/* SPDX-License-Identifier: MIT */
/* Where this installation keeps its configuration; see install_layout.h. */
#include "install_layout.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sandboxio/sandboxio.h>

/* From the configuration of the build (core/CMakeLists.txt). */
#ifndef SBIO_INSTALL_LIBDIR
#define SBIO_INSTALL_LIBDIR "lib"
#endif
#ifndef SBIO_INSTALL_SYSCONFDIR
#define SBIO_INSTALL_SYSCONFDIR "etc"
#endif
#ifndef SBIO_SYSCONFDIR
#define SBIO_SYSCONFDIR "/etc"
#endif
/* The build tree's library directory, relative to the build directory. */
#define BUILD_TREE_LIBDIR "lib"

/* If `dir` ends with the path components of `suffix`, the length of what
 * comes before them ("/usr" for "/usr/lib/x86_64-linux-gnu" and
 * "lib/x86_64-linux-gnu"); -1 otherwise. */
static long prefix_length(const char *dir, const char *suffix) {
  size_t d = strlen(dir), s = strlen(suffix);
  while (s > 0 && suffix[s - 1] == '/') s--;
  while (d > 1 && dir[d - 1] == '/') d--;
  if (s == 0 || suffix[0] == '/' || s >= d) return -1;
  if (strncmp(dir + d - s, suffix, s) != 0 || dir[d - s - 1] != '/') return -1;
  return (long)(d - s - 1);
}

int sbio__sysconfdir_for(const char *lib_dir, const char *libdir, const char *sysconfdir, char *out, size_t size) {
  long n = prefix_length(lib_dir, libdir);
  if (n < 0) n = prefix_length(lib_dir, BUILD_TREE_LIBDIR);
  if (n < 0) return -1;
  char prefix[PATH_MAX];
  if ((size_t)n >= sizeof prefix) return -1;
  memcpy(prefix, lib_dir, (size_t)n);
  prefix[n] = '\0';
  int w;
  if (sysconfdir[0] == '/')
    w = snprintf(out, size, "%s", sysconfdir);
  else if (prefix[0] == '\0' || strcmp(prefix, "/usr") == 0)
    w = snprintf(out, size, "/%s", sysconfdir); /* /etc, as GNUInstallDirs */
  else if (strncmp(prefix, "/opt/", 5) == 0 && prefix[5] != '\0')
    w = snprintf(out, size, "/%s%s", sysconfdir, prefix); /* /etc/opt/NAME */
  else
    w = snprintf(out, size, "%s/%s", prefix, sysconfdir);
  return (w > 0 && (size_t)w < size) ? 0 : -1;
}

void sbio__install_sysconfdir(char *out, size_t size) {
  Dl_info info;
  if (dladdr((void *)sbio_version, &info) && info.dli_fname && info.dli_fname[0] == '/') {
    /* The directory as it really is: the loader may have found the library
     * as /usr/bin/../lib/... (an $ORIGIN run path) or through /lib, a link
     * to /usr/lib. */
    char copy[PATH_MAX], dir[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", info.dli_fname);
    if (realpath(dirname(copy), dir) &&
        sbio__sysconfdir_for(dir, SBIO_INSTALL_LIBDIR, SBIO_INSTALL_SYSCONFDIR, out, size) == 0)
      return;
  }
  snprintf(out, size, "%s", SBIO_SYSCONFDIR);
}
