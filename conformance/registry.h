/* SPDX-License-Identifier: MIT */
/* The case table: every case the kit knows, in the order it runs them, with
 * the capabilities that make each one applicable. */
#ifndef SBIO_KIT_REGISTRY_H
#define SBIO_KIT_REGISTRY_H

#include <sandboxio/sandboxio.h>
#include <stddef.h>

typedef struct kit_case kit_case;
typedef void (*kit_case_fn)(kit_case *c);

enum {
  KIT_STATIC = 1,  /* reads the plugin file; runs even when the backend is unusable */
  KIT_CREATES = 2, /* creates sandboxes: needs network_policy (every create does) */
};

typedef struct kit_case_def {
  const char *name;    /* "group.case", stable: reports and --only use it */
  const char *refs;    /* reference case numbers it ports ("21,22"); "" for C additions */
  const char *summary; /* what it proves, one line */
  sbio_caps needs;     /* runs only when all of these are declared */
  sbio_caps lacks;     /* runs only when none of these is declared */
  unsigned flags;
  kit_case_fn run;
} kit_case_def;

size_t kit_case_count(void);
const kit_case_def *kit_case_at(size_t i);
/* "exec" for "exec.timeout_raises" (into buf). */
const char *kit_case_group(const kit_case_def *d, char *buf, size_t size);
/* Whether --only selects the case: a comma-separated list of shell
 * patterns, each matched against the case name and its group. */
int kit_case_selected(const kit_case_def *d, const char *only);

#endif
