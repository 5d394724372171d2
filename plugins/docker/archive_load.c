/* SPDX-License-Identifier: MIT */
#include "archive_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef DK_ARCHIVE_SONAME
#define DK_ARCHIVE_SONAME "libarchive.so.13"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static dk_archive_api api;
static int loaded;
static char failure[256];

/* dlsym gives an object pointer; POSIX guarantees it converts to a
 * function pointer, which ISO C does not say, hence the memcpy. */
static int bind_symbol(void *lib, const char *name, void *slot, size_t size) {
  void *sym = dlsym(lib, name);
  if (!sym) {
    snprintf(failure, sizeof failure, "%s has no %s", DK_ARCHIVE_SONAME, name);
    return -1;
  }
  memcpy(slot, &sym, size);
  return 0;
}

static void load(void) {
  /* RTLD_LOCAL: its symbols stay out of the process's global scope. */
  void *lib = dlopen(DK_ARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    snprintf(failure, sizeof failure, "cannot load %s: %s", DK_ARCHIVE_SONAME, why ? why : "unknown error");
    return;
  }
#define DK_ARCHIVE_BIND(name)                                                                                          \
  if (bind_symbol(lib, #name, &api.name, sizeof api.name) != 0) return;
  DK_ARCHIVE_FUNCTIONS(DK_ARCHIVE_BIND)
#undef DK_ARCHIVE_BIND
  loaded = 1;
}

const dk_archive_api *sbio__dk_archive(char *why, size_t why_size) {
  pthread_once(&once, load);
  if (loaded) return &api;
  if (why && why_size) snprintf(why, why_size, "%s", failure);
  return NULL;
}
