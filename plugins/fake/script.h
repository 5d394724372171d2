/* SPDX-License-Identifier: MIT */
/* Scripted results: settings "scripts" let a test decide what a command
 * "does" (output, exit code, a delay, a hang until the deadline, or an
 * error) instead of the virtual shell. The first script whose `match` is a
 * substring of the command text wins. */
#ifndef SBIO_FAKE_SCRIPT_H
#define SBIO_FAKE_SCRIPT_H

#include <sandboxio/backend.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct fake_script {
  char *match;      /* substring of the space-joined argv or the shell string */
  char *out;        /* stdout, delivered a line per chunk */
  char *err;        /* stderr, after stdout, a line per chunk */
  int exit_code;    /* 0..255 */
  double delay;     /* virtual seconds slept before anything else */
  int hang;         /* run until the deadline (or a kill) */
  int error_code;   /* an sbio_code the exec fails with, 0 for none */
  char *error_name; /* its settings spelling, for the message */
} fake_script;

/* The sbio_code named by a script's "error" value, 0 when unknown. */
int sbio__fake_script_error_code(const char *name);
/* The names accepted, for messages: "network_policy, exec, ...". */
const char *sbio__fake_script_error_names(void);

const fake_script *sbio__fake_script_find(const fake_script *scripts, size_t n, const char *text);

/* Plays a script as an exec. Returns SBIO_OK with *exit_code (137 if the
 * sandbox was killed meanwhile) or an error in `err`. */
int sbio__fake_script_play(const fake_script *s, const sbio_bk_exec_req *req, const sbio_bk_call *call,
                           double time_scale, atomic_int *killed, int *exit_code, sbio_bk_error *err);

void sbio__fake_script_free(fake_script *s);

#endif
