/* SPDX-License-Identifier: MIT */
/* The only user of libltdl (see dl.h).
 *
 * libltdl keeps global state: its init count, its handle list and, above
 * all, one "last error" string. Two threads loading backends at once would
 * read each other's errors, so every lt_* call below runs under one mutex
 * and lt_dlerror() is copied out before the mutex is released.
 *
 * Initialisation is reference-counted by open handles: lt_dlinit() when the
 * first handle opens, lt_dlexit() when the last one closes, so a process
 * that has closed every host leaves nothing of libltdl allocated (this keeps
 * leak checkers quiet and is harmless: libltdl counts its own inits too, so
 * another user of libltdl in the process is not disturbed).
 *
 * Only absolute paths are accepted. libltdl searches LTDL_LIBRARY_PATH, the
 * user search path and the system path only for names without a directory,
 * and appends extensions only when asked (lt_dladvise_ext). We never ask,
 * and we refuse relative names ourselves, so the file opened is exactly the
 * one the registry checked. RTLD_LOCAL (lt_dladvise_local) keeps a backend's
 * symbols from satisfying another backend's references. */
#include "dl.h"

#include <dlfcn.h>
#include <ltdl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct sbio__dl {
  lt_dlhandle handle;
};

static pthread_mutex_t dl_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t dl_open_handles; /* guarded by dl_lock */

static void set_diag(char *diag, size_t diag_size, const char *text) {
  if (diag && diag_size > 0) snprintf(diag, diag_size, "%s", text ? text : "unknown libltdl error");
}

/* Must be called with dl_lock held, right after the failing lt_* call. */
static void take_lt_error(char *diag, size_t diag_size, const char *fallback) {
  const char *msg = lt_dlerror();
  set_diag(diag, diag_size, msg ? msg : fallback);
}

/* libltdl tries each of its loaders in turn and keeps only the last error:
 * after its dlopen loader fails with the useful message (a missing
 * dependency, an undefined symbol), the preloaded-module loader fails too
 * and replaces it with "file not found". To say why, the dlopen is repeated
 * directly, still under the lock; it fails the same way and dlerror() tells.
 * Should it succeed after all, it is closed again and libltdl's message
 * stands. Called with dl_lock held. */
static void explain_open_failure(const char *abs_path, char *diag, size_t diag_size) {
  dlerror();
  void *h = dlopen(abs_path, RTLD_LAZY | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    return;
  }
  const char *why = dlerror();
  if (why) set_diag(diag, diag_size, why);
}

int sbio__dl_open(const char *abs_path, sbio__dl **out, char *diag, size_t diag_size) {
  if (out) *out = NULL;
  if (!out || !abs_path || abs_path[0] != '/') {
    set_diag(diag, diag_size, "not an absolute path");
    return -1;
  }
  sbio__dl *dl = calloc(1, sizeof *dl);
  if (!dl) {
    set_diag(diag, diag_size, "out of memory");
    return -1;
  }

  pthread_mutex_lock(&dl_lock);
  if (dl_open_handles == 0 && lt_dlinit() != 0) {
    take_lt_error(diag, diag_size, "libltdl initialisation failed");
    pthread_mutex_unlock(&dl_lock);
    free(dl);
    return -1;
  }

  lt_dladvise advise;
  int rc = -1;
  if (lt_dladvise_init(&advise) != 0) {
    take_lt_error(diag, diag_size, "libltdl advise initialisation failed");
  } else {
    if (lt_dladvise_local(&advise) != 0) {
      take_lt_error(diag, diag_size, "libltdl could not request local symbol binding");
    } else {
      dl->handle = lt_dlopenadvise(abs_path, advise);
      if (dl->handle) {
        rc = 0;
      } else {
        take_lt_error(diag, diag_size, "libltdl could not open the file");
        explain_open_failure(abs_path, diag, diag_size);
      }
    }
    lt_dladvise_destroy(&advise);
  }

  if (rc == 0) {
    dl_open_handles++;
  } else if (dl_open_handles == 0) {
    lt_dlexit();
  }
  pthread_mutex_unlock(&dl_lock);

  if (rc != 0) {
    free(dl);
    return -1;
  }
  *out = dl;
  return 0;
}

/* lt_dlsym looks for "<module>_LTX_<symbol>" before "<symbol>" (libtool's
 * convention for preloadable modules). The SDK's export map exports only
 * sbio_backend_entry_v1, so for a backend built with it the first lookup
 * simply misses; the table found is validated by the registry either way. */
int sbio__dl_sym(sbio__dl *h, const char *symbol, void **out, char *diag, size_t diag_size) {
  if (out) *out = NULL;
  if (!h || !symbol || !out) {
    set_diag(diag, diag_size, "invalid arguments");
    return -1;
  }
  pthread_mutex_lock(&dl_lock);
  lt_dlerror(); /* clear a stale error so a NULL-valued symbol is not misreported */
  void *addr = lt_dlsym(h->handle, symbol);
  if (!addr) take_lt_error(diag, diag_size, "symbol not found");
  pthread_mutex_unlock(&dl_lock);
  if (!addr) return -1;
  *out = addr;
  return 0;
}

void sbio__dl_close(sbio__dl *h) {
  if (!h) return;
  pthread_mutex_lock(&dl_lock);
  lt_dlclose(h->handle);
  lt_dlerror(); /* a failed close has nobody to report to; do not leak it into the next caller */
  if (dl_open_handles > 0 && --dl_open_handles == 0) lt_dlexit();
  pthread_mutex_unlock(&dl_lock);
  free(h);
}
