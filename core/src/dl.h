/* SPDX-License-Identifier: MIT */
/* The only place libltdl is used. Every lt_* call happens under one mutex
 * and lt_dlerror() is copied into the caller's buffer at once, because
 * libltdl's error state is global. Only absolute paths are accepted. */
#ifndef SBIO_DL_H
#define SBIO_DL_H

#include <stddef.h>

typedef struct sbio__dl sbio__dl;

/* Returns 0 and a handle, or -1 with a diagnostic ("not an absolute path",
 * or libltdl's message). */
int sbio__dl_open(const char *abs_path, sbio__dl **out, char *diag, size_t diag_size);
/* Returns 0 and the symbol's address, or -1 with a diagnostic. */
int sbio__dl_sym(sbio__dl *h, const char *symbol, void **out, char *diag, size_t diag_size);
void sbio__dl_close(sbio__dl *h);

#endif
