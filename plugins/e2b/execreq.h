/* SPDX-License-Identifier: MIT */
/* Request bodies of the process service: Start, SendSignal, SendInput and
 * CloseStdin, in proto3 JSON. */
#ifndef SBIO_E2B_EXECREQ_H
#define SBIO_E2B_EXECREQ_H

#include "e2b.h"

#include <stdint.h>

/* StartRequest JSON for an exec (malloc'd); NULL with err set. */
char *sbio__e2b_start_request(const e2b_sandbox *sb, const sbio_bk_exec_req *req, int with_stdin, sbio_bk_error *err);
/* SendSignalRequest: {"process":{"pid":N},"signal":"SIGNAL_SIGKILL"}. */
char *sbio__e2b_signal_request(uint32_t pid, const char *signal_name);
/* SendInputRequest with base64 stdin; with b64 NULL, a CloseStdinRequest. */
char *sbio__e2b_input_request(uint32_t pid, const char *b64);

#endif
