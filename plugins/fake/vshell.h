/* SPDX-License-Identifier: MIT */
/* The virtual shell: what the fake "runs" when no script matches. Commands
 * are a small set of builtins (vcmds.h) acting on the sandbox's in-memory
 * filesystem and environment; nothing ever executes on the host.
 *
 * Argv mode dispatches argv[0] with the arguments as given (nothing is
 * expanded: ["echo", "$X"] prints "$X"). Script mode (a shell string, or
 * `sh -c`) reads the script with shlex.h and runs its commands like sh:
 * `;` and newlines continue after a failure, && and || short-circuit, and
 * `exit N` ends the script. */
#ifndef SBIO_FAKE_VSHELL_H
#define SBIO_FAKE_VSHELL_H

#include "box.h"
#include "fenv.h"
#include "vclock.h"
#include "vout.h"

#include <sandboxio/backend.h>
#include <stddef.h>

/* `sh -c` inside `sh -c` ... deeper than this is refused, not recursed. */
#define FAKE_VSH_MAX_DEPTH 16

/* The exec's stdin, shared by every command of one exec: the first command
 * that reads it consumes it. */
typedef struct fake_stdin {
  const unsigned char *data;
  size_t len;
  int used;
} fake_stdin;

typedef struct fake_vsh {
  fake_outctx out;
  fake_box *box;
  const sbio_bk_call *call;
  double time_scale;
  fake_env env; /* owned: sandbox env, overlaid by the exec's, then assignments */
  char *cwd;    /* owned, normalised */
  fake_stdin *in;
  int depth;
  int status;     /* $? */
  int exiting;    /* `exit` ran: the current script ends */
  fake_wake stop; /* not DONE: killed, cancelled or past the deadline; everything ends */
  char status_text[16];
} fake_vsh;

/* Runs one command line given as words; returns its exit status. */
int sbio__fake_vsh_run_argv(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
/* Runs a script in `sh` itself (assignments and `cd` persist in it). */
int sbio__fake_vsh_run_script(fake_vsh *sh, const fake_io *io, const char *script);
/* Runs a script in a copy of `sh` (as `sh -c` does): its variables, cwd and
 * `exit` stay inside; a kill or deadline propagates out. */
int sbio__fake_vsh_subshell(fake_vsh *sh, const fake_io *io, const char *script);
/* 1 when the exec must end now (and records why in sh->stop). */
int sbio__fake_vsh_should_stop(fake_vsh *sh);
/* Frees env and cwd. */
void sbio__fake_vsh_free(fake_vsh *sh);

#endif
