/* SPDX-License-Identifier: MIT */
/* A test backend that reports progress during create, the way a backend
 * reports an image pull: the step "pull TEMPLATE" goes 0 of unknown, then
 * 250, 500, 750 and 1000 of 1000. Template "bad-numbers" first reports
 * impossible numbers, which the host must drop. Exec echoes its argv. */
#include <sandboxio/backend.h>

#include <stdlib.h>
#include <string.h>

static int p_open(const sbio_host_services *host, const char *settings, void **instance, sbio_bk_error *err) {
  (void)settings, (void)err;
  *instance = (void *)host;
  return 0;
}
static void p_close(void *instance) {
  (void)instance;
}

static int p_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                    sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  const sbio_host_services *host = instance;
  const char *image = req->template_name && req->template_name[0] ? req->template_name : "test-image";
  char what[300];
  snprintf(what, sizeof what, "pull %s", image);
  /* A host older than ABI 1.2 has no progress service. */
  if (SBIO_HOST_HAS(host, progress)) {
    if (!strcmp(image, "bad-numbers")) {
      host->progress(host->host_data, what, -1, 1000);
      host->progress(host->host_data, what, 5, -7);
      host->progress(host->host_data, NULL, 5, 10);
    }
    host->progress(host->host_data, what, 0, -1);
    for (int64_t done = 250; done <= 1000; done += 250) host->progress(host->host_data, what, done, 1000);
  }
  (void)call;
  if (!(*sandbox = malloc(1)))
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "progress test backend: out of memory");
  snprintf(info->id, sizeof info->id, "pg-1");
  snprintf(info->mechanism, sizeof info->mechanism, "runc");
  return 0;
}

static int p_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                  sbio_bk_error *err) {
  (void)sandbox, (void)call, (void)err;
  for (size_t i = 0; req->argv && i < req->argc; i++) {
    req->output(req->output_user, 1, req->argv[i], strlen(req->argv[i]));
    req->output(req->output_user, 1, i + 1 < req->argc ? " " : "\n", 1);
  }
  *exit_code = 0;
  return 0;
}

static int p_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  (void)sandbox, (void)call, (void)err;
  return 0;
}
static void p_release(void *sandbox) {
  free(sandbox);
}

SBIO_BACKEND("progress", "0.0.1", "Progress test backend", SBIO_CAP("run_command") "," SBIO_CAP("network_policy"),
             SBIO_MECHANISM("runc", "container", "https://docs.docker.com/engine/security/", "2026-11-01",
                            "Containers share the kernel."),
             .open = p_open, .close = p_close, .create = p_create, .exec = p_exec, .kill = p_kill, .release = p_release)
