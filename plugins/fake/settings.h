/* SPDX-License-Identifier: MIT */
/* The fake backend's settings: the `settings` object of its config entry,
 * as JSON. Unknown keys and wrong types are refused with the key named, as
 * everywhere in sandboxio: a typo must never be silently ignored.
 *
 *   {"time_scale": 0.01,
 *    "scripts": [{"match": "...", "stdout": "...", "stderr": "...", "exit_code": 0,
 *                 "delay": 0, "hang": false, "error": "network_policy"}],
 *    "simulate": {"create_fails": "...", "create_takes": 5, "kill_fails": "...",
 *                 "kill_hangs": true, "auth_missing": true, "connect_fails": "..."},
 *    "call_log": "/abs/path"}
 */
#ifndef SBIO_FAKE_SETTINGS_H
#define SBIO_FAKE_SETTINGS_H

#include "script.h"

#include <sandboxio/backend.h>
#include <stddef.h>

#define FAKE_DEFAULT_TIME_SCALE 0.01

typedef struct fake_simulate {
  char *create_fails;  /* create fails (SBIO_E_CREATE) with this cause */
  double create_takes; /* virtual seconds a create takes (0: instant) */
  char *kill_fails;    /* kill fails (SBIO_E_CONNECT) with this cause */
  int kill_hangs;      /* kill blocks until its deadline */
  int auth_missing;    /* create fails with SBIO_E_AUTH */
  char *connect_fails; /* connect fails (SBIO_E_CONNECT) with this cause */
} fake_simulate;

typedef struct fake_settings {
  double time_scale; /* real seconds per virtual second */
  fake_script *scripts;
  size_t n_scripts;
  fake_simulate sim;
  char *call_log; /* NULL: none */
} fake_settings;

/* NULL json means "{}". On failure returns SBIO_E_CONFIG (or
 * SBIO_E_INTERNAL on OOM) with `err` filled and *out freed. */
int sbio__fake_settings_parse(const char *json, fake_settings *out, sbio_bk_error *err);
void sbio__fake_settings_free(fake_settings *s);

#endif
