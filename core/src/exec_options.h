/* SPDX-License-Identifier: MIT */
#ifndef SBIO_EXEC_OPTIONS_H
#define SBIO_EXEC_OPTIONS_H

#include "strlist.h"

#include <sandboxio/sandboxio.h>

struct sbio_exec_options {
  sbio__kvlist env;
  char *cwd;
  int has_stdin;
  unsigned char *stdin_data;
  size_t stdin_len;
  int timeout_set;
  double timeout_s;
  sbio_output_fn output_fn;
  void *output_user;
  size_t output_cap;
  sbio_cancel *cancel; /* borrowed; NULL: the exec cannot be cancelled alone */
  char invalid[160];   /* first refused setting; an exec with it fails */
};

#endif
