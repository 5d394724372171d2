/* SPDX-License-Identifier: MIT */
/* Sandbox lifecycle: create, connect, kill, release, and the managed-sandbox
 * listing `sbio reap` uses. */
#include "fake.h"

#include "vclock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int bad_args(sbio_bk_error *err, const char *op) {
  return sbio_bk_error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "fake %s: missing argument or call context", op);
}

/* Fills what the core's info struct has room for. */
static void fill_info(sbio_bk_sandbox_info *info, const char *id) {
  if (info->size >= offsetof(sbio_bk_sandbox_info, id) + sizeof info->id) snprintf(info->id, sizeof info->id, "%s", id);
  if (info->size >= offsetof(sbio_bk_sandbox_info, mechanism) + sizeof info->mechanism)
    snprintf(info->mechanism, sizeof info->mechanism, "%s", FAKE_MECHANISM);
}

static fake_handle *new_handle(fake_instance *inst, fake_box *box) {
  fake_handle *h = malloc(sizeof *h);
  if (!h) return NULL;
  sbio__fake_instance_ref(inst);
  h->inst = inst;
  h->box = box;
  return h;
}

/* The simulated failures a create can meet before anything exists. */
static int simulated_create(fake_instance *inst, const sbio_bk_call *call, sbio_bk_error *err) {
  const fake_simulate *sim = &inst->settings.sim;
  if (sim->auth_missing)
    return sbio_bk_error_set(err, SBIO_E_AUTH, "export SBIO_FAKE_TOKEN=...",
                             "fake backend credentials missing: SBIO_FAKE_TOKEN is not set (simulated)");
  if (sim->create_takes > 0) {
    int64_t start = sbio_bk_now_ns(call);
    fake_wake w = sbio__fake_vsleep(call, inst->settings.time_scale, sim->create_takes, NULL);
    if (w == FAKE_WAKE_DEADLINE)
      return sbio_bk_error_set(err, SBIO_E_CREATE_TIMEOUT, "raise the create timeout",
                               "create did not finish within its %g s deadline; nothing was created",
                               sbio__fake_deadline_span_s(call, start));
    if (w != FAKE_WAKE_DONE)
      return sbio_bk_error_set(err, SBIO_E_CREATE, NULL, "create was cancelled; nothing was created");
  }
  if (sim->create_fails)
    return sbio_bk_error_set(err, SBIO_E_CREATE, NULL, "fake create failed: %s", sim->create_fails);
  return SBIO_OK;
}

int sbio__fake_op_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                         sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  fake_instance *inst = instance;
  if (!inst || !req || !sandbox || !info || !fake_call_usable(call)) return bad_args(err, "create");
  *sandbox = NULL;
  int rc = sbio__fake_check_request(req, err);
  if (rc == SBIO_OK) rc = simulated_create(inst, call, err);
  if (rc != SBIO_OK) {
    sbio__fake_instance_log(inst, "create", "failed", NULL);
    return rc;
  }
  char id[32];
  sbio__fake_instance_next_id(inst, id, sizeof id);
  fake_box *box = sbio__fake_box_new(id, req);
  fake_handle *h = box ? new_handle(inst, box) : NULL;
  if (!h) {
    sbio__fake_box_unref(box);
    sbio__fake_instance_log(inst, "create", "failed", NULL);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory creating a fake sandbox");
  }
  sbio__fake_instance_add(inst, box);
  sbio__fake_instance_log(inst, "create", id, NULL);
  fill_info(info, id);
  *sandbox = h;
  return SBIO_OK;
}

int sbio__fake_op_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                          sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  fake_instance *inst = instance;
  if (!inst || !id || !sandbox || !info || !fake_call_usable(call)) return bad_args(err, "connect");
  *sandbox = NULL;
  sbio__fake_instance_log(inst, "connect", id, NULL);
  if (inst->settings.sim.connect_fails)
    return sbio_bk_error_set(err, SBIO_E_CONNECT, NULL, "fake connect failed: %s", inst->settings.sim.connect_fails);
  fake_box *box = sbio__fake_instance_find(inst, id);
  if (!box)
    return sbio_bk_error_set(err, SBIO_E_CONNECT,
                             "fake sandboxes live only inside the backend instance that created them",
                             "no live fake sandbox with id %.128s", id);
  fake_handle *h = new_handle(inst, box);
  if (!h) {
    sbio__fake_box_unref(box);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory connecting to a fake sandbox");
  }
  fill_info(info, box->id);
  *sandbox = h;
  return SBIO_OK;
}

int sbio__fake_op_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  fake_handle *h = sandbox;
  if (!h || !fake_call_usable(call)) return bad_args(err, "kill");
  const fake_simulate *sim = &h->inst->settings.sim;
  sbio__fake_instance_log(h->inst, "kill", h->box->id, NULL);
  if (sbio__fake_box_is_killed(h->box)) return SBIO_OK; /* idempotent */
  if (sim->kill_fails)
    return sbio_bk_error_set(err, SBIO_E_CONNECT, FAKE_REAP_HINT, "could not kill fake sandbox %s: %s", h->box->id,
                             sim->kill_fails);
  if (sim->kill_hangs) {
    sbio__fake_vsleep(call, h->inst->settings.time_scale, INFINITY, NULL);
    return sbio_bk_error_set(err, SBIO_E_CONNECT, FAKE_REAP_HINT,
                             "kill did not complete before its deadline (fake sandbox %s)", h->box->id);
  }
  /* Mark first: an exec on another thread sees it within one 10 ms slice. */
  sbio__fake_box_mark_killed(h->box);
  sbio__fake_box_unref(sbio__fake_instance_take(h->inst, h->box, NULL));
  return SBIO_OK;
}

void sbio__fake_op_release(void *sandbox) {
  fake_handle *h = sandbox;
  if (!h) return;
  sbio__fake_box_unref(h->box);
  sbio__fake_instance_unref(h->inst);
  free(h);
}

/* Every (key, value) of the filter is among the sandbox's labels. */
static int labels_match(const fake_box *box, const sbio_bk_kv *labels, size_t n) {
  for (size_t i = 0; labels && i < n; i++) {
    if (!labels[i].key) continue;
    const char *v = sbio__fake_env_get(&box->labels, labels[i].key);
    if (!v || strcmp(v, labels[i].value ? labels[i].value : "") != 0) return 0;
  }
  return 1;
}

int sbio__fake_op_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                               sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  fake_instance *inst = instance;
  if (!inst || !entry || !fake_call_usable(call)) return bad_args(err, "list_managed");
  sbio__fake_instance_log(inst, "list_managed", NULL, NULL);
  fake_box **boxes;
  size_t n;
  if (sbio__fake_instance_snapshot(inst, &boxes, &n) != 0)
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory listing fake sandboxes");
  /* The callback runs without the instance lock: it may call kill_managed. */
  for (size_t i = 0; i < n; i++) {
    if (labels_match(boxes[i], labels, n_labels) && !sbio__fake_box_is_killed(boxes[i])) {
      sbio_bk_managed m = {.size = sizeof m,
                           .id = boxes[i]->id,
                           .state = "running",
                           .created_at = boxes[i]->created_at,
                           .labels = boxes[i]->label_kv,
                           .n_labels = boxes[i]->labels.n};
      entry(user, &m);
    }
    sbio__fake_box_unref(boxes[i]);
  }
  free(boxes);
  return SBIO_OK;
}

int sbio__fake_op_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed,
                               sbio_bk_error *err) {
  fake_instance *inst = instance;
  if (!inst || !id || !killed || !fake_call_usable(call)) return bad_args(err, "kill_managed");
  sbio__fake_instance_log(inst, "kill_managed", id, NULL);
  /* The operator's backstop: not subject to simulate.kill_fails/kill_hangs,
   * so a test can show `reap` finishing what a failed teardown left. */
  fake_box *box = sbio__fake_instance_take(inst, NULL, id);
  *killed = box != NULL;
  if (box) {
    sbio__fake_box_mark_killed(box);
    sbio__fake_box_unref(box);
  }
  return SBIO_OK;
}
