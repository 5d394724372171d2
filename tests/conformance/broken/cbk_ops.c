/* SPDX-License-Identifier: MIT */
/* The cbk backend's operations table and metadata. CBK_NAME and the defect
 * or variant definitions come from ../CMakeLists.txt (see cbk.h). */
#include "cbk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Lean variants have no file, connect or managed operations. */
#if defined(CBK_MINIMAL) || defined(CBK_NOPOLICY)
#define CBK_LEAN 1
#endif

#define RUNC_URL "https://docs.docker.com/engine/security/"
#define RUNC_QUOTE "Containers share the host kernel."

#if defined(CBK_UNVERIFIED)
#define CBK_MECHS SBIO_MECHANISM_UNVERIFIED("runc", "test fixture: nobody verified it")
#elif defined(CBK_DEFECT_TIER_LIAR)
#define CBK_MECHS                                                                                                      \
  SBIO_MECHANISM("runc", "container", RUNC_URL, "2026-11-01", RUNC_QUOTE)                                              \
  "," SBIO_MECHANISM("runsc", "gvisor", "https://gvisor.dev/docs/", "2026-11-01", "gVisor is an application kernel.")
#else
#define CBK_MECHS SBIO_MECHANISM("runc", "container", RUNC_URL, "2026-11-01", RUNC_QUOTE)
#endif

#if defined(CBK_DEFECT_TIER_LIAR)
#define PLANNED "runsc"
#else
#define PLANNED "runc"
#endif
#if defined(CBK_DEFECT_TIER_DRIFT)
#define OBSERVED "runc-ng"
#else
#define OBSERVED "runc"
#endif

/* The value of "api_key_env" in the settings object, if any: a plain
 * variable name (the core checks the document; this fixture only looks). */
static void key_var_from(const char *settings, char *out, size_t size) {
  snprintf(out, size, "CBK_API_KEY");
  const char *at = settings ? strstr(settings, "\"api_key_env\"") : NULL;
  if (!at) return;
  at = strchr(at + 13, '"');
  if (!at) return;
  size_t n = strcspn(at + 1, "\"");
  if (n > 0 && n < size) snprintf(out, size, "%.*s", (int)n, at + 1);
}

const char *cbk_echo_key(const cbk_instance *inst) {
#ifdef CBK_ECHO_CREDENTIAL
  const char *v = inst ? getenv(inst->key_var) : NULL;
  return v ? v : "";
#else
  (void)inst;
  return "";
#endif
}

/* A log line (and, from create, a progress step) quoting the key. */
static void echo_log(const cbk_instance *inst, const char *what) {
  const char *key = cbk_echo_key(inst);
  if (!key[0] || !inst->host || !inst->host->log) return;
  char line[512];
  snprintf(line, sizeof line, "cbk: %s with key %s", what, key);
  inst->host->log(inst->host->host_data, SBIO_BK_LOG_INFO, line);
}

static int bk_open(const sbio_host_services *host, const char *settings, void **instance, sbio_bk_error *err) {
  cbk_instance *inst = calloc(1, sizeof *inst);
  if (!inst) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  pthread_mutex_init(&inst->lock, NULL);
  inst->host = host;
  key_var_from(settings, inst->key_var, sizeof inst->key_var);
  echo_log(inst, "opened");
  *instance = inst;
  return 0;
}

static void bk_close(void *instance) {
  cbk_instance *inst = instance;
  while (inst->n) cbk_box_unlist(inst, inst->boxes[inst->n - 1]);
  free(inst->boxes);
  pthread_mutex_destroy(&inst->lock);
  free(inst);
}

static int refuse_gpu(const sbio_bk_create_req *req, sbio_bk_error *err) {
  if (req->gpu && req->gpu[0])
    return sbio_bk_error_set(err, SBIO_E_CAPABILITY, "use a backend with GPUs", "cbk has no gpu");
  return 0;
}

static int bk_plan(void *instance, const sbio_bk_create_req *req, char *mech, size_t size, sbio_bk_error *err) {
  (void)instance;
  snprintf(mech, size, "%s", PLANNED);
  return refuse_gpu(req, err);
}

static int new_handle(cbk_instance *inst, cbk_box *box, void **sandbox, sbio_bk_sandbox_info *info,
                      sbio_bk_error *err) {
  cbk_handle *h = malloc(sizeof *h);
  if (!h) {
    cbk_box_unref(inst, box);
    return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  }
  h->inst = inst;
  h->box = box;
  snprintf(info->id, sizeof info->id, "%s", box->id);
  snprintf(info->mechanism, sizeof info->mechanism, "%s", OBSERVED);
  *sandbox = h;
  return 0;
}

static int bk_create(void *instance, const sbio_bk_create_req *req, const sbio_bk_call *call, void **sandbox,
                     sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  (void)call;
  int rc = refuse_gpu(req, err);
  if (rc) return rc;
  cbk_instance *inst = instance;
  echo_log(inst, "creating");
  const char *key = cbk_echo_key(inst);
  if (key[0] && SBIO_HOST_HAS(inst->host, progress) && inst->host->progress) {
    char step[256];
    snprintf(step, sizeof step, "authorising %s", key);
    inst->host->progress(inst->host->host_data, step, 1, 1);
  }
  cbk_box *box = cbk_box_new(instance, req);
  if (!box) return sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  return new_handle(instance, box, sandbox, info, err);
}

static int gone(const cbk_handle *h, sbio_bk_error *err) {
  if (!atomic_load(&h->box->killed)) return 0;
  const char *key = cbk_echo_key(h->inst);
  char hint[200];
  snprintf(hint, sizeof hint, "create a new sandbox%s%s", key[0] ? " with key " : "", key);
  return sbio_bk_error_set(err, SBIO_E_GONE, hint, "sandbox %s no longer exists%s%s", h->box->id,
                           key[0] ? " (key " : "", key[0] ? key : "");
}

static int bk_exec(void *sandbox, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code,
                   sbio_bk_error *err) {
  cbk_handle *h = sandbox;
  int rc = gone(h, err);
#ifdef CBK_DEFECT_LATE_STDIN
  /* Declared in the note, refused only once the sandbox exists. */
  if (!rc && req->has_stdin) return sbio_bk_error_set(err, SBIO_E_CAPABILITY, NULL, "cbk does not take stdin");
#endif
  return rc ? rc : cbk_exec(h->box, req, call, exit_code, err);
}

#ifdef CBK_DEFECT_NO_KILL
#define CBK_KILL NULL /* the defect: nothing it creates can be destroyed */
#define CBK_KILL_UNUSED __attribute__((unused))
#else
#define CBK_KILL bk_kill
#define CBK_KILL_UNUSED
#endif
CBK_KILL_UNUSED static int bk_kill(void *sandbox, const sbio_bk_call *call, sbio_bk_error *err) {
  (void)call, (void)err;
  cbk_handle *h = sandbox;
#ifdef CBK_DEFECT_ORPHAN
  (void)h; /* reports success; the sandbox stays alive and listed */
#else
  atomic_store(&h->box->killed, 1);
  cbk_box_unlist(h->inst, h->box);
#endif
  return 0;
}

static void bk_release(void *sandbox) {
  cbk_handle *h = sandbox;
  cbk_box_unref(h->inst, h->box);
  free(h);
}

#ifndef CBK_LEAN
/* Messages of the leaky defect carry the request's secrets, escaped the
 * way a JSON body would have them: the library's redaction of the literal
 * value does not catch that. */
static int fail_with(const cbk_handle *h, sbio_bk_error *err, int code, const char *what) {
  char leak[512] = "", hint[256] = "";
#ifdef CBK_DEFECT_LEAK_SECRET
  cbk_leak(h->box, leak, sizeof leak);
#endif
  const char *key = cbk_echo_key(h->inst);
  if (key[0]) snprintf(hint, sizeof hint, "retry with Authorization: Bearer %s", key);
  return sbio_bk_error_set(err, code, hint[0] ? hint : NULL, "%s%s%s%s%s", what, leak[0] ? "; request " : "", leak,
                           key[0] ? "; key " : "", key);
}

static int bk_connect(void *instance, const char *id, const sbio_bk_call *call, void **sandbox,
                      sbio_bk_sandbox_info *info, sbio_bk_error *err) {
  (void)call;
  cbk_box *box = cbk_box_find(instance, id);
  const char *key = cbk_echo_key(instance);
  if (!box)
    return sbio_bk_error_set(err, SBIO_E_CONNECT, key[0] ? key : NULL, "no live cbk sandbox %.64s%s%s", id,
                             key[0] ? " for key " : "", key);
  return new_handle(instance, box, sandbox, info, err);
}

/* Resolves the path of a file operation, or fills err. */
static char *begin_file_op(const cbk_handle *h, const char *path, sbio_bk_error *err, int *rc) {
  *rc = gone(h, err);
  if (*rc) return NULL;
  char *abs = cbk_fs_resolve(path);
  if (!abs) *rc = sbio_bk_error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  return abs;
}

static int bk_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                   sbio_bk_error *err) {
  (void)call;
  cbk_handle *h = sandbox;
  int rc;
  char *abs = begin_file_op(h, path, err, &rc);
  if (!abs) return rc;
  pthread_mutex_lock(&h->box->lock);
  cbk_node *nd = cbk_fs_find(&h->box->fs, abs);
  if (!nd)
    rc = fail_with(h, err, SBIO_E_PATH_NOT_FOUND, "no such file");
  else if (nd->is_dir)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "is a directory: %s", abs);
  else if (nd->len)
    sink(user, nd->data, nd->len);
  pthread_mutex_unlock(&h->box->lock);
  free(abs);
  return rc;
}

static int bk_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                    sbio_bk_error *err) {
  (void)call;
  cbk_handle *h = sandbox;
  int rc;
  char *abs = begin_file_op(h, path, err, &rc);
  if (!abs) return rc;
  pthread_mutex_lock(&h->box->lock);
  rc = cbk_fs_write(&h->box->fs, abs, data, len, err);
  pthread_mutex_unlock(&h->box->lock);
  free(abs);
  return rc;
}

static int bk_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry, void *user,
                   sbio_bk_error *err) {
  (void)call;
  cbk_handle *h = sandbox;
  int rc;
  char *abs = begin_file_op(h, path, err, &rc);
  if (!abs) return rc;
  size_t alen = strcmp(abs, "/") == 0 ? 0 : strlen(abs);
  pthread_mutex_lock(&h->box->lock);
  cbk_node *dir = cbk_fs_find(&h->box->fs, abs);
  if (!dir)
    rc = fail_with(h, err, SBIO_E_PATH_NOT_FOUND, "no such directory");
  else if (!dir->is_dir)
    rc = sbio_bk_error_set(err, SBIO_E_FS, NULL, "not a directory: %s", abs);
  for (size_t i = 0; !rc && i < h->box->fs.n; i++) {
    const cbk_node *nd = &h->box->fs.nodes[i];
    const char *rest = nd->path + alen;
    if (strncmp(nd->path, abs, alen) != 0 || rest[0] != '/' || !rest[1] || strchr(rest + 1, '/')) continue;
    sbio_bk_dirent d = {
        .size = sizeof d, .name = rest + 1, .path = nd->path, .bytes = (int64_t)nd->len, .is_dir = nd->is_dir};
    entry(user, &d);
  }
  pthread_mutex_unlock(&h->box->lock);
  free(abs);
  return rc;
}

static int bk_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err) {
  (void)call;
  cbk_handle *h = sandbox;
  int rc;
  char *abs = begin_file_op(h, path, err, &rc);
  if (!abs) return rc;
  pthread_mutex_lock(&h->box->lock);
  rc = cbk_fs_mkdir(&h->box->fs, abs, parents, err);
  pthread_mutex_unlock(&h->box->lock);
  free(abs);
  return rc;
}

static int bk_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  (void)call;
  cbk_handle *h = sandbox;
  int rc;
  char *abs = begin_file_op(h, path, err, &rc);
  if (!abs) return rc;
  pthread_mutex_lock(&h->box->lock);
  rc = cbk_fs_remove(&h->box->fs, abs, err);
  pthread_mutex_unlock(&h->box->lock);
  free(abs);
  return rc;
}

static int labels_match(const cbk_box *box, const sbio_bk_kv *labels, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const char *v = cbk_kv_get(&box->labels, labels[i].key);
    if (!v || strcmp(v, labels[i].value) != 0) return 0;
  }
  return 1;
}

static int bk_list_managed(void *instance, const sbio_bk_kv *labels, size_t n_labels, const sbio_bk_call *call,
                           sbio_bk_managed_fn entry, void *user, sbio_bk_error *err) {
  (void)call, (void)err;
  cbk_instance *inst = instance;
  pthread_mutex_lock(&inst->lock);
  for (size_t i = 0; i < inst->n; i++) {
    cbk_box *box = inst->boxes[i];
    if (!labels_match(box, labels, n_labels)) continue;
    sbio_bk_kv kv[32];
    size_t nkv = 0;
    for (size_t j = 0; j < box->labels.n && nkv < 32; j++)
      kv[nkv++] = (sbio_bk_kv){box->labels.keys[j], box->labels.values[j]};
    sbio_bk_managed m = {
        .size = sizeof m, .id = box->id, .state = "running", .created_at = -1, .labels = kv, .n_labels = nkv};
    entry(user, &m);
  }
  pthread_mutex_unlock(&inst->lock);
  return 0;
}

static int bk_kill_managed(void *instance, const char *id, const sbio_bk_call *call, int *killed, sbio_bk_error *err) {
  (void)call, (void)err;
  cbk_box *box = cbk_box_find(instance, id);
  *killed = box != NULL;
  if (box) {
    atomic_store(&box->killed, 1);
    cbk_box_unlist(instance, box);
    cbk_box_unref(instance, box);
  }
  return 0;
}
#endif

#ifdef CBK_DEFECT_EXPORTS
/* The defect: a helper left with default visibility, and no version
 * script to hide it. */
__attribute__((visibility("default"))) int cbk_debug_dump(void);
__attribute__((visibility("default"))) int cbk_debug_dump(void) {
  return 0;
}
#endif

#define CBK_LEAN_OPS                                                                                                   \
  .open = bk_open, .close = bk_close, .plan = bk_plan, .create = bk_create, .exec = bk_exec, .kill = CBK_KILL,         \
  .release = bk_release
#define CBK_FULL_OPS                                                                                                   \
  .open = bk_open, .close = bk_close, .plan = bk_plan, .create = bk_create, .connect = bk_connect,                     \
  .file_read = bk_read, .file_write = bk_write, .file_list = bk_list, .file_mkdir = bk_mkdir,                          \
  .file_remove = bk_remove, .kill = CBK_KILL, .release = bk_release, .list_managed = bk_list_managed,                  \
  .kill_managed = bk_kill_managed

// clang-format off
#if defined(CBK_MINIMAL)
SBIO_BACKEND(CBK_NAME, "0.0.1", "conformance test backend (minimal)",
             SBIO_CAP("run_command") "," SBIO_CAP("network_policy"), CBK_MECHS, CBK_LEAN_OPS)
#elif defined(CBK_NOPOLICY)
SBIO_BACKEND(CBK_NAME, "0.0.1", "conformance test backend (no network policy)",
             SBIO_CAP("run_command"), CBK_MECHS, CBK_LEAN_OPS)
#elif defined(CBK_NORUN)
SBIO_BACKEND(CBK_NAME, "0.0.1", "conformance test backend (no commands)",
             SBIO_CAP("filesystem") "," SBIO_CAP("network_policy") "," SBIO_CAP("managed") "," SBIO_CAP("connect"),
             CBK_MECHS, CBK_FULL_OPS, .exec = bk_exec) /* present, undeclared: must stay unused */
#elif defined(CBK_ECHO_CREDENTIAL)
SBIO_BACKEND_WITH_CREDENTIALS(CBK_NAME, "0.0.1", "conformance test backend (echoes its credential)",
             SBIO_CAP("run_command") "," SBIO_CAP("streaming") "," SBIO_CAP("filesystem") ","
             SBIO_CAP("network_policy") "," SBIO_CAP("network_allowlist") "," SBIO_CAP("stdin") ","
             SBIO_CAP("separate_stderr") "," SBIO_CAP("managed") "," SBIO_CAP("connect"),
             CBK_MECHS, SBIO_CREDENTIALS(SBIO_CRED("CBK_API_KEY"), SBIO_CRED("api_key_env")),
             CBK_FULL_OPS, .exec = bk_exec)
#else
SBIO_BACKEND(CBK_NAME, "0.0.1", "conformance test backend",
             SBIO_CAP("run_command") "," SBIO_CAP("streaming") "," SBIO_CAP("filesystem") ","
             SBIO_CAP("network_policy") "," SBIO_CAP("network_allowlist") "," SBIO_CAP("stdin") ","
             SBIO_CAP("separate_stderr") "," SBIO_CAP("managed") "," SBIO_CAP("connect"),
             CBK_MECHS, CBK_FULL_OPS, .exec = bk_exec, .features = SBIO_BK_FEATURE_EXEC_CANCEL)
#endif
// clang-format on
