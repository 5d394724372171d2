/* SPDX-License-Identifier: MIT */
#include "curl_load.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef SBIO_CURL_SONAME
#define SBIO_CURL_SONAME "libcurl.so.4"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static sbio__curl_api api;
static int loaded;
static char failure[256];

/* dlsym returns an object pointer; POSIX guarantees it converts to a
 * function pointer, which ISO C does not say, hence the memcpy. */
static int bind_symbol(void *lib, const char *name, void *slot, size_t slot_size) {
  void *sym = dlsym(lib, name);
  if (!sym) {
    snprintf(failure, sizeof failure, "%s has no %s", SBIO_CURL_SONAME, name);
    return -1;
  }
  memcpy(slot, &sym, slot_size);
  return 0;
}

#define BIND(lib, field, name) bind_symbol(lib, name, &api.field, sizeof api.field)

static void load(void) {
  /* RTLD_LOCAL: libcurl's symbols stay out of the global scope, so they
   * never satisfy a later library's references by accident. */
  void *lib = dlopen(SBIO_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    snprintf(failure, sizeof failure, "cannot load %s: %s", SBIO_CURL_SONAME, why ? why : "unknown error");
    return;
  }
  if (BIND(lib, global_init, "curl_global_init") || BIND(lib, easy_init, "curl_easy_init") ||
      BIND(lib, easy_setopt, "curl_easy_setopt") || BIND(lib, easy_perform, "curl_easy_perform") ||
      BIND(lib, easy_getinfo, "curl_easy_getinfo") || BIND(lib, easy_cleanup, "curl_easy_cleanup") ||
      BIND(lib, easy_strerror, "curl_easy_strerror") || BIND(lib, slist_append, "curl_slist_append") ||
      BIND(lib, slist_free_all, "curl_slist_free_all"))
    return; /* the library stays loaded: something else may use it */
  CURLcode rc = api.global_init(CURL_GLOBAL_DEFAULT);
  if (rc != CURLE_OK) {
    snprintf(failure, sizeof failure, "curl_global_init failed: %s", api.easy_strerror(rc));
    return;
  }
  loaded = 1;
}

const sbio__curl_api *sbio__curl(char *why, size_t why_size) {
  pthread_once(&once, load);
  if (loaded) return &api;
  if (why && why_size) snprintf(why, why_size, "%s", failure);
  return NULL;
}
