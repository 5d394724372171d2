/* SPDX-License-Identifier: MIT */
/* Exec helpers shared by exec.c and exec_kill.c. */
#ifndef SBIO_DOCKER_EXEC_H
#define SBIO_DOCKER_EXEC_H

#include "api.h"

/* The environment variable that marks every process of one exec, so its
 * deadline can kill exactly them (and what they spawned). */
#define DK_EXEC_TOKEN_VAR "SBIO_EXEC_ID"

typedef struct dk_exec_state {
  int found;   /* the engine still knows the exec (404 -> 0) */
  int running; /* its process is alive */
  int has_exit;
  int exit_code;
  long pid; /* 0: no process ever ran (the runtime could not start it); -1 unknown */
} dk_exec_state;

/* POST /containers/{id}/exec with `body`; the exec id into out (65 bytes).
 * 0, or -1 with resp describing the failure. */
int sbio__dk_exec_create(dk_instance *inst, const char *container, const char *body, const sbio_bk_call *call,
                         char *out, size_t size, sbio_sdk_http_response *resp);
/* GET /exec/{id}/json. 0, or -1 with resp describing a transport failure. */
int sbio__dk_exec_inspect(dk_instance *inst, const char *exec_id, const sbio_bk_call *call, dk_exec_state *st,
                          sbio_sdk_http_response *resp);
/* State of the container: 1 running, 0 not running or gone, -1 unknown
 * (engine unreachable); its exit code into *exit_code when stopped. */
int sbio__dk_container_running(dk_instance *inst, const char *container, const sbio_bk_call *call, int *exit_code);

/* After a deadline: kills every process of the exec and checks that none is
 * left, with budgets of its own (exec_call's deadline has passed; only its
 * host is used). 0 when it is gone; `how` says what was done (for the
 * message). */
int sbio__dk_exec_kill(dk_sandbox *sb, const char *exec_id, const char *token, const sbio_bk_call *exec_call, char *how,
                       size_t how_size);

#endif
