/* SPDX-License-Identifier: MIT */
/* The command line of sbio-conformance. */
#ifndef SBIO_KIT_ARGS_H
#define SBIO_KIT_ARGS_H

#include "kit.h"

#include <stdio.h>

/* Fills opt from argv; 0 on success, -1 after printing a usage error.
 * *exit_now is set for --help and --version, which print and are done. */
int kit_args_parse(int argc, char **argv, kit_options *opt, int *exit_now);
void kit_usage(FILE *out);

#endif
