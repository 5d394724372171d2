/* SPDX-License-Identifier: MIT */
/* sbio-backend-fake: an in-memory stand-in for a sandbox provider, for
 * tests. It executes nothing and isolates nothing. It reports the
 * mechanism "none" at tier CONTAINER only so that tests exercise the core's
 * tier logic; docs/backends/fake.md says so, and is the source its
 * metadata cites. */
#include "fake.h"

#include <stdlib.h>

static int fake_open(const sbio_host_services *host, const char *settings_json, void **instance, sbio_bk_error *err) {
  if (!instance)
    return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "fake open: no place to store the instance");
  fake_instance *inst = NULL;
  int rc = sbio__fake_instance_open(host, settings_json, &inst, err);
  *instance = inst;
  return rc;
}

static void fake_close(void *instance) {
  sbio__fake_instance_close(instance);
}

int sbio__fake_check_request(const sbio_bk_create_req *req, sbio_bk_error *err) {
  if (req->gpu && req->gpu[0])
    return sbio_bk_error_set(err, SBIO_E_CAPABILITY, "drop the GPU request or use a backend that offers GPUs",
                             "the fake backend has no GPUs (requested '%.100s')", req->gpu);
  return SBIO_OK;
}

int sbio__fake_check_alive(const fake_handle *h, sbio_bk_error *err) {
  if (sbio__fake_box_is_killed(h->box))
    return sbio_bk_error_set(err, SBIO_E_GONE, "it was killed; create a new sandbox", "sandbox %s no longer exists",
                             h->box->id);
  return SBIO_OK;
}

static int fake_plan(void *instance, const sbio_bk_create_req *req, char *mechanism, size_t mechanism_size,
                     sbio_bk_error *err) {
  fake_instance *inst = instance;
  if (!inst || !req || !mechanism || mechanism_size < sizeof FAKE_MECHANISM)
    return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "fake plan: missing argument");
  sbio__fake_instance_log(inst, "plan", NULL, NULL);
  int rc = sbio__fake_check_request(req, err);
  if (rc != SBIO_OK) return rc;
  snprintf(mechanism, mechanism_size, "%s", FAKE_MECHANISM);
  return SBIO_OK;
}

// clang-format off
#define FAKE_CAPS                                                                 \
  SBIO_CAP("run_command") "," SBIO_CAP("streaming") "," SBIO_CAP("filesystem") "," \
  SBIO_CAP("upload_download") "," SBIO_CAP("network_policy") ","                   \
  SBIO_CAP("network_allowlist") "," SBIO_CAP("stdin") ","                          \
  SBIO_CAP("separate_stderr") "," SBIO_CAP("managed") "," SBIO_CAP("connect")
// clang-format on

/* The sentence is the one docs/backends/fake.md states verbatim. */
#define FAKE_MECHANISMS                                                                                                \
  SBIO_MECHANISM("none", "container", "https://docs.sandboxio.dev/backends/fake", "2026-11-29",                        \
                 "The fake backend executes nothing and isolates nothing; it reports CONTAINER so tests exercise "     \
                 "the tier logic.")

/* Its simulated credential is declared like a real one (ABI 1.4). */
SBIO_BACKEND_WITH_CREDENTIALS("fake", "0.1.0", "In-memory fake for tests: executes nothing, isolates nothing",
                              FAKE_CAPS, FAKE_MECHANISMS, SBIO_CREDENTIALS(SBIO_CRED("SBIO_FAKE_TOKEN"), ""),
                              .open = fake_open, .close = fake_close, .plan = fake_plan, .create = sbio__fake_op_create,
                              .connect = sbio__fake_op_connect, .exec = sbio__fake_op_exec,
                              .file_read = sbio__fake_op_file_read, .file_write = sbio__fake_op_file_write,
                              .file_list = sbio__fake_op_file_list, .file_mkdir = sbio__fake_op_file_mkdir,
                              .file_remove = sbio__fake_op_file_remove, .kill = sbio__fake_op_kill,
                              .release = sbio__fake_op_release, .list_managed = sbio__fake_op_list_managed,
                              .kill_managed = sbio__fake_op_kill_managed, .features = SBIO_BK_FEATURE_EXEC_CANCEL)
