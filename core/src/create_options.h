/* SPDX-License-Identifier: MIT */
#ifndef SBIO_CREATE_OPTIONS_H
#define SBIO_CREATE_OPTIONS_H

#include "strlist.h"

#include <sandboxio/sandboxio.h>

struct sbio_create_options {
  int require_set;
  sbio_tier require;
  char *template_name;
  sbio__kvlist env, secrets, labels;
  double cpu;
  int64_t memory_mb, disk_mb;
  char *gpu;
  sbio_egress egress;
  sbio__strlist allow;
  int timeout_set;
  double timeout_s;
  sbio_caps required_caps; /* what the caller declared it will use */
  char invalid[160]; /* first refused setting; a create with it fails */
};

#endif
