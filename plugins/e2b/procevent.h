/* SPDX-License-Identifier: MIT */
/* The messages of a process.Process/Start stream, decoded: the start event
 * (pid), output chunks (base64 stdout/stderr, handed to the exec's output
 * callback as they come), keepalives (ignored), the end event (exit code;
 * absent means 0) and the end-of-stream envelope ({} or a Connect error). */
#ifndef SBIO_E2B_PROCEVENT_H
#define SBIO_E2B_PROCEVENT_H

#include <sandboxio/backend.h>
#include <stdint.h>

typedef struct e2b_proc_events {
  sbio_bk_output_fn output;
  void *output_user;
  uint32_t pid;
  int started;
  int ended;         /* an end event arrived */
  int exit_code;     /* from the end event: exitCode, 0 when absent */
  char status[64];   /* "exit status 1", "signal: killed" */
  char error[256];   /* EndEvent.error, when envd set it */
  int eos;           /* the end-of-stream envelope arrived */
  char eos_code[48]; /* its Connect error code, "" for success */
  char eos_message[320];
  int bad; /* a message was not what the protocol says */
  char bad_what[160];
  uint64_t keepalives;
} e2b_proc_events;

/* An e2b_env_fn: decodes one envelope into ev. Non-zero stops the stream
 * (a malformed message). */
int sbio__e2b_proc_on_envelope(void *ev, unsigned flags, const unsigned char *msg, size_t len);
/* The shell-style status of an ended process: its exit code, or 128 + the
 * signal number when a signal ended it (137 for SIGKILL). */
int sbio__e2b_proc_exit_status(const e2b_proc_events *ev);

#endif
