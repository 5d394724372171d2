/* SPDX-License-Identifier: MIT */
/* One exec's request, output collection and result (exec.c), shared by a
 * sandbox's exec and by sbio_run (run.c), which gives the same request to
 * a backend's one-shot operation. */
#ifndef SBIO_EXEC_JOB_H
#define SBIO_EXEC_JOB_H

#include "audit.h"
#include "host_internal.h"

typedef struct sbio__exec_job sbio__exec_job;

/* Checks the command and the options against what the backend declares
 * (`caps`; its operations may not be loaded yet) and prepares the request;
 * the timeout is the options' or `default_timeout_s`. The cancellation
 * token is not looked at. */
sbio_code sbio__exec_job_new(sbio_host *host, const struct sbio_backend_info *b, sbio_caps caps,
                             const char *const *argv, const char *script, const sbio_exec_options *opts,
                             double default_timeout_s, sbio__exec_job **out, sbio_error *err);
const sbio_bk_exec_req *sbio__exec_job_req(const sbio__exec_job *j);
double sbio__exec_job_timeout(const sbio__exec_job *j);
/* The exec event's command fields: argv, shell, bytes_in. */
void sbio__exec_job_event(const sbio__exec_job *j, sbio__event *ev);
/* Around the backend's call: the duration, and the event's exit_code (when
 * the command ran) and bytes_out. */
void sbio__exec_job_started(sbio__exec_job *j);
void sbio__exec_job_ended(sbio__exec_job *j, int exit_code, int ran, sbio__event *ev);
/* The result, now the caller's. */
sbio_exec_result *sbio__exec_job_take_result(sbio__exec_job *j);
void sbio__exec_job_free(sbio__exec_job *j);

#endif
