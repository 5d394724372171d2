/* SPDX-License-Identifier: MIT */
/* sbio-qemu-agent: the guest's /init (PID 1) and the guest end of the
 * agent protocol (../proto.h). Statically linked; runs nothing but what
 * the host asks, one request at a time, and powers the guest off at the
 * deadline given on the kernel command line (sbio.deadline_ms=), whether or
 * not the host is still there. */
#ifndef SBIO_QEMU_AGENT_H
#define SBIO_QEMU_AGENT_H

#include "proto.h"

#include <stddef.h>
#include <stdint.h>

#define AG_WORK_DIR "/work"

/* Sends one finished frame on the port; exits the guest on failure. */
void ag_send(qm_wr *w);
/* ERR for request `id`: code QM_E_*, message from errno or text. */
void ag_send_err(uint32_t id, uint32_t code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ag_send_done(uint32_t id);
uint32_t ag_errno_code(int e);

/* agent_ops.c: file requests, each answered completely before returning
 * (the host waits for them; they never block on a command). */
void ag_file_request(const qm_header *h, const uint8_t *payload);

#endif
