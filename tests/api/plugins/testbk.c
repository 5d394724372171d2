/* SPDX-License-Identifier: MIT */
/* A configurable minimal backend for the API tests, compiled in variants:
 *   TESTBK_VAGUE  - declares no verified mechanism (UNKNOWN)
 *   TESTBK_LIAR   - plans "runsc" (GVISOR) but reports "runc" after create
 *   TESTBK_HTTP   - claims MICROVM with an http:// source (UNKNOWN)
 * It keeps one counter file per operation in $TESTBK_DIR so tests can see
 * which operations ran (plan, create, connect, kill, release). Its connect
 * attaches to any id starting "tb-" (as if another process had created it
 * at the provider), reporting the TESTBK_OBSERVED mechanism; other ids are
 * unknown. */
#include <sandboxio/backend.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void note(const char *op) {
  const char *dir = getenv("TESTBK_DIR");
  if (!dir) return;
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, op);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ssize_t n = write(fd, "x", 1);
    (void)n;
    close(fd);
  }
}

static int t_open(const sbio_host_services *host, const char *settings, void **instance, sbio_bk_error *err) {
  (void)host, (void)settings, (void)err;
  *instance = NULL;
  return 0;
}
static void t_close(void *instance) {
  (void)instance;
}

static int t_plan(void *instance, const sbio_bk_create_req *req, char *mech, size_t size, sbio_bk_error *err) {
  (void)instance, (void)req, (void)err;
  note("plan");
  snprintf(mech, size, "%s", TESTBK_PLANNED);
  return 0;
}

static int t_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                    sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  (void)instance, (void)req, (void)call, (void)err;
  note("create");
  *sandbox = malloc(1);
  snprintf(info->id, sizeof info->id, "tb-1");
  snprintf(info->mechanism, sizeof info->mechanism, "%s", TESTBK_OBSERVED);
  return 0;
}

static int t_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                     sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  (void)instance, (void)call;
  note("connect");
  if (strncmp(id, "tb-", 3) != 0) return sbio_bk_error_set(err, SBIO_E_CONNECT, NULL, "no sandbox %.64s", id);
  *sandbox = malloc(1);
  snprintf(info->id, sizeof info->id, "%.100s", id);
  snprintf(info->mechanism, sizeof info->mechanism, "%s", TESTBK_OBSERVED);
  return 0;
}

static int t_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                  sbio_bk_error *err) {
  (void)sandbox, (void)call, (void)err;
  const char *text = req->shell ? req->shell : req->argv[req->argc - 1];
  req->output(req->output_user, 1, text, strlen(text));
  *exit_code = 0;
  return 0;
}

static int t_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  (void)sandbox, (void)call, (void)err;
  note("kill");
  return 0;
}
static void t_release(void *sandbox) {
  note("release");
  free(sandbox);
}

SBIO_BACKEND(TESTBK_NAME, "0.0.1", "API test backend",
             SBIO_CAP("run_command") "," SBIO_CAP("network_policy") "," SBIO_CAP("connect"), TESTBK_MECHANISMS,
             .open = t_open, .close = t_close, .plan = t_plan, .create = t_create, .connect = t_connect, .exec = t_exec,
             .kill = t_kill, .release = t_release)
