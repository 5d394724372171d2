/* SPDX-License-Identifier: MIT */
/* sbio-backend-example: a complete, minimal sandboxio backend to copy.
 *
 * Its sandboxes are records kept in memory by the backend instance: create
 * adds one, kill removes it, connect re-attaches to one by id, and the
 * managed listing (`sbio reap`) shows them with their labels. Nothing runs
 * in them, so the backend declares no run_command or filesystem capability
 * and its one mechanism is UNVERIFIED (tier UNKNOWN): there is no isolation
 * to verify, and a backend never claims more than it can show. It can
 * honestly declare network_policy: nothing it runs can reach any network.
 *
 * To make it yours: rename "example" everywhere (the file name
 * sbio-backend-NAME.so must match), replace the records by calls to your
 * provider (see <sandboxio/sdk/http.h>), add the operations your provider
 * supports (exec, file_*) with their capabilities, and cite your provider's
 * documentation in SBIO_MECHANISM(...) so your tier can be verified.
 * docs/writing-a-backend.md in the sandboxio sources explains each rule. */
#include <sandboxio/backend.h>
#include <sandboxio/sdk.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXAMPLE "example"
#define MECHANISM "none"
#define SETTINGS_HINT "the example backend takes: id_prefix (text), max_sandboxes (1 to 100000)"
#define SESSION_LABEL "sandboxio.session"

typedef struct record {
  char id[64];
  int64_t created_at;
  sbio_bk_kv *labels; /* caller labels plus the session label; owned */
  size_t n_labels;
  struct record *next;
} record;

typedef struct instance {
  const sbio_host_services *host;
  char *id_prefix;
  int64_t max_sandboxes;
  /* Instance-level operations may run on several threads at once. */
  pthread_mutex_t lock;
  record *records;
  size_t n_records;
  unsigned long next_serial;
} instance;

/* A handle names a record; the record itself belongs to the instance, so
 * kill from another thread and release never race over its memory. */
typedef struct handle {
  instance *inst;
  char id[64];
} handle;

/* ------------------------------------------------------------- records */
static void record_free(record *r) {
  for (size_t i = 0; r && i < r->n_labels; i++) {
    free((char *)r->labels[i].key);
    free((char *)r->labels[i].value);
  }
  if (r) free(r->labels);
  free(r);
}

static int add_label(record *r, const char *key, const char *value) {
  char *k = strdup(key), *v = strdup(value ? value : "");
  if (!k || !v) {
    free(k);
    free(v);
    return -1;
  }
  r->labels[r->n_labels].key = k;
  r->labels[r->n_labels].value = v;
  r->n_labels++;
  return 0;
}

static record *record_new(const sbio_bk_create_req *req) {
  record *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->labels = calloc(req->n_labels + 1, sizeof *r->labels);
  int ok = r->labels != NULL;
  for (size_t i = 0; ok && i < req->n_labels; i++)
    if (req->labels[i].key) ok = add_label(r, req->labels[i].key, req->labels[i].value) == 0;
  /* The session label lets `sbio reap` find what a crashed process left. */
  if (ok && req->session_id) ok = add_label(r, SESSION_LABEL, req->session_id) == 0;
  r->created_at = (int64_t)time(NULL);
  if (!ok) {
    record_free(r);
    return NULL;
  }
  return r;
}

/* A deep copy, so it can be reported after the lock is released. */
static record *record_copy(const record *r) {
  record *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->labels = calloc(r->n_labels + 1, sizeof *c->labels);
  int ok = c->labels != NULL;
  for (size_t i = 0; ok && i < r->n_labels; i++) ok = add_label(c, r->labels[i].key, r->labels[i].value) == 0;
  memcpy(c->id, r->id, sizeof c->id);
  c->created_at = r->created_at;
  if (!ok) {
    record_free(c);
    return NULL;
  }
  return c;
}

/* Unlinks the record with this id; NULL if there is none. Lock held. */
static record *take_locked(instance *inst, const char *id) {
  for (record **p = &inst->records; *p; p = &(*p)->next)
    if (!strcmp((*p)->id, id)) {
      record *r = *p;
      *p = r->next;
      inst->n_records--;
      return r;
    }
  return NULL;
}

static int exists(instance *inst, const char *id) {
  pthread_mutex_lock(&inst->lock);
  int found = 0;
  for (const record *r = inst->records; r && !found; r = r->next) found = !strcmp(r->id, id);
  pthread_mutex_unlock(&inst->lock);
  return found;
}

/* ------------------------------------------------------------ instance */
static int read_settings(instance *inst, const char *json, sbio_bk_error *err) {
  sbio_sdk_settings *s = NULL;
  int rc = sbio_sdk_settings_parse(json, EXAMPLE, SETTINGS_HINT, &s, err);
  if (rc != SBIO_OK) return rc;
  rc = sbio_sdk_settings_string(s, "id_prefix", SBIO_SDK_NONEMPTY | SBIO_SDK_ONELINE, &inst->id_prefix, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_int(s, "max_sandboxes", 0, 1, 100000, &inst->max_sandboxes, err);
  if (rc == SBIO_OK) rc = sbio_sdk_settings_finish(s, err); /* a typo is an error, never ignored */
  sbio_sdk_settings_free(s);
  if (rc == SBIO_OK && strlen(inst->id_prefix) > 32)
    rc = sbio_sdk_error(err, SBIO_E_CONFIG, SETTINGS_HINT, "example settings: 'id_prefix' is longer than 32 bytes");
  return rc;
}

static void example_close(void *instance_) {
  instance *inst = instance_;
  if (!inst) return;
  /* Records still here were never killed: a real backend would leave them
   * to the provider's own expiry (create's timeout_s) and `sbio reap`. */
  while (inst->records) record_free(take_locked(inst, inst->records->id));
  pthread_mutex_destroy(&inst->lock);
  free(inst->id_prefix);
  free(inst);
}

static int example_open(const sbio_host_services *host, const char *settings_json, void **out, sbio_bk_error *err) {
  *out = NULL;
  instance *inst = calloc(1, sizeof *inst);
  if (!inst) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "example: out of memory");
  pthread_mutex_init(&inst->lock, NULL);
  inst->host = host;
  inst->max_sandboxes = 1000;
  inst->id_prefix = strdup(EXAMPLE);
  int rc = inst->id_prefix ? read_settings(inst, settings_json, err)
                           : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "example: out of memory");
  if (rc != SBIO_OK) {
    example_close(inst);
    return rc;
  }
  sbio_sdk_log(host, NULL, SBIO_BK_LOG_DEBUG, "example: ready (at most %lld sandboxes, ids %s-...)",
               (long long)inst->max_sandboxes, inst->id_prefix);
  *out = inst;
  return SBIO_OK;
}

/* ----------------------------------------------------------- lifecycle */
/* Refuse, before anything exists, what this backend cannot honour. */
static int example_plan(void *instance_, const sbio_bk_create_req *req, char *mechanism, size_t size,
                        sbio_bk_error *err) {
  (void)instance_;
  if (req->n_allow > 0)
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "leave the egress allow-list empty",
                          "example: egress allow-lists are not supported");
  if (req->gpu)
    return sbio_sdk_error(err, SBIO_E_CAPABILITY, "do not request a GPU", "example: there are no GPUs here");
  snprintf(mechanism, size, "%s", MECHANISM);
  return SBIO_OK;
}

static void fill_info(sbio_bk_sandbox_info *info, const char *id) {
  /* Write only what the core's struct has room for (it may be older). */
  if (info->size >= offsetof(sbio_bk_sandbox_info, id) + sizeof info->id) snprintf(info->id, sizeof info->id, "%s", id);
  if (info->size >= offsetof(sbio_bk_sandbox_info, mechanism) + sizeof info->mechanism)
    snprintf(info->mechanism, sizeof info->mechanism, "%s", MECHANISM);
}

static int new_handle(instance *inst, const char *id, void **out, sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  handle *h = calloc(1, sizeof *h);
  if (!h) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "example: out of memory");
  h->inst = inst;
  snprintf(h->id, sizeof h->id, "%s", id);
  fill_info(info, id);
  *out = h;
  return SBIO_OK;
}

static int example_create(void *instance_, const sbio_bk_create_req *req, const sbio_bk_call *call, void **out,
                          sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  instance *inst = instance_;
  *out = NULL;
  char mechanism[64];
  int rc = example_plan(inst, req, mechanism, sizeof mechanism, err);
  if (rc != SBIO_OK) return rc;
  /* Every blocking step checks the deadline and the cancellation; here
   * there is only one step, and it never blocks. */
  if (call->cancelled(call)) return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "example: create was cancelled");
  if (sbio_bk_remaining_ns(call) == 0)
    return sbio_sdk_error(err, SBIO_E_CREATE_TIMEOUT, NULL, "example: the create deadline passed; nothing was created");
  record *r = record_new(req);
  if (!r) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "example: out of memory");
  pthread_mutex_lock(&inst->lock);
  if ((int64_t)inst->n_records >= inst->max_sandboxes) {
    pthread_mutex_unlock(&inst->lock);
    record_free(r);
    return sbio_sdk_error(err, SBIO_E_CREATE, "kill sandboxes you no longer need, or raise max_sandboxes",
                          "example: already %lld sandboxes, the configured maximum", (long long)inst->max_sandboxes);
  }
  snprintf(r->id, sizeof r->id, "%s-%08lx-%lu", inst->id_prefix, (unsigned long)r->created_at & 0xffffffffUL,
           ++inst->next_serial);
  char id[sizeof r->id];
  memcpy(id, r->id, sizeof id);
  r->next = inst->records;
  inst->records = r;
  inst->n_records++;
  pthread_mutex_unlock(&inst->lock);
  rc = new_handle(inst, id, out, info, err);
  if (rc != SBIO_OK) { /* on failure nothing may remain provisioned */
    pthread_mutex_lock(&inst->lock);
    record_free(take_locked(inst, id));
    pthread_mutex_unlock(&inst->lock);
  }
  return rc;
}

static int example_connect(void *instance_, const char *id, const sbio_bk_call *call, void **out,
                           sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  (void)call;
  instance *inst = instance_;
  *out = NULL;
  if (!exists(inst, id))
    return sbio_sdk_error(err, SBIO_E_CONNECT, "`sbio reap` lists the sandboxes that exist",
                          "example: no sandbox with id %.100s", id);
  return new_handle(inst, id, out, info, err);
}

/* Idempotent, and safe from another thread while the handle is in use. */
static int example_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  (void)call;
  (void)err;
  handle *h = sandbox;
  pthread_mutex_lock(&h->inst->lock);
  record_free(take_locked(h->inst, h->id));
  pthread_mutex_unlock(&h->inst->lock);
  return SBIO_OK;
}

static void example_release(void *sandbox) {
  free(sandbox);
}

/* ------------------------------------------------------------- managed */
static int labels_match(const record *r, const sbio_bk_kv *want, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int hit = 0;
    for (size_t j = 0; j < r->n_labels && !hit; j++)
      hit = want[i].key && !strcmp(r->labels[j].key, want[i].key) &&
            !strcmp(r->labels[j].value, want[i].value ? want[i].value : "");
    if (!hit) return 0;
  }
  return 1;
}

static int example_list_managed(void *instance_, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                                sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  (void)call;
  instance *inst = instance_;
  /* Copy under the lock, report without it: the callback may well call
   * kill_managed, which takes the lock. */
  record *copies = NULL;
  int ok = 1;
  pthread_mutex_lock(&inst->lock);
  for (const record *r = inst->records; r && ok; r = r->next) {
    if (!labels_match(r, labels, n_labels)) continue;
    record *c = record_copy(r);
    ok = c != NULL;
    if (c) {
      c->next = copies;
      copies = c;
    }
  }
  pthread_mutex_unlock(&inst->lock);
  for (const record *c = copies; c && ok; c = c->next) {
    sbio_bk_managed m = {.size = sizeof m,
                         .id = c->id,
                         .state = "running",
                         .created_at = c->created_at,
                         .labels = c->labels,
                         .n_labels = c->n_labels};
    entry(user, &m);
  }
  while (copies) {
    record *next = copies->next;
    record_free(copies);
    copies = next;
  }
  return ok ? SBIO_OK : sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "example: out of memory listing sandboxes");
}

static int example_kill_managed(void *instance_, const char *id, const sbio_bk_call *call, int *killed,
                                sbio_bk_error *err) {
  (void)call;
  (void)err;
  instance *inst = instance_;
  pthread_mutex_lock(&inst->lock);
  record *r = take_locked(inst, id);
  pthread_mutex_unlock(&inst->lock);
  *killed = r != NULL;
  record_free(r);
  return SBIO_OK;
}

/* ------------------------------------------------------------ metadata */
/* One invocation makes both the ELF note the core reads without loading
 * this file and the operations table it uses once loaded. */
SBIO_BACKEND(EXAMPLE, "0.1.0", "Example backend: sandboxes are records in memory; nothing runs in them",
             SBIO_CAP("network_policy") "," SBIO_CAP("connect") "," SBIO_CAP("managed"),
             SBIO_MECHANISM_UNVERIFIED(MECHANISM,
                                       "nothing runs in these sandboxes, so there is no isolation to verify"),
             .open = example_open, .close = example_close, .plan = example_plan, .create = example_create,
             .connect = example_connect, .kill = example_kill, .release = example_release,
             .list_managed = example_list_managed, .kill_managed = example_kill_managed)
