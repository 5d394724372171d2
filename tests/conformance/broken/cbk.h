/* SPDX-License-Identifier: MIT */
/* cbk: a small in-memory backend for the conformance kit's own tests.
 *
 * Built once correctly (cbk_good) and once per deliberate defect, each a
 * separate sbio-backend-cbk_*.so. A defect is one compile definition; the
 * tests prove the kit fails exactly the cases that defect breaks. Like the
 * fake, it executes nothing: a tiny shell interprets the kit's probes over
 * an in-memory filesystem.
 *
 *   CBK_DEFECT_SWALLOW_TIMEOUT  deadlines are ignored (only a kill ends a command)
 *   CBK_DEFECT_IGNORE_KILL      neither a deadline nor a kill ends a command (sleeps of up to 60 s)
 *   CBK_DEFECT_IGNORE_POLICY    egress is always allowed, whatever the policy
 *   CBK_DEFECT_LEAK_SECRET      error messages carry the secrets, JSON-escaped
 *   CBK_DEFECT_TIER_LIAR        plans runsc (GVISOR) but creates with runc (CONTAINER)
 *   CBK_DEFECT_TIER_DRIFT       reports a mechanism it never declared after create
 *   CBK_DEFECT_ORPHAN           kill reports success but the sandbox lives on, listed
 *   CBK_DEFECT_SHELL_ARGV       argv is run through the shell, each word in double quotes
 *   CBK_DEFECT_BUFFERED         output reaches the caller only when the command ends
 *   CBK_DEFECT_MERGED_STDERR    stderr is delivered as stdout, yet separate_stderr is declared
 *   CBK_DEFECT_EXPORTS          exports a symbol besides the entry point (with no version script)
 *   CBK_DEFECT_NO_KILL          offers create and connect but no kill (the library refuses to load it)
 *   CBK_DEFECT_LATE_STDIN       declares stdin, but its exec refuses stdin once the sandbox exists
 *   CBK_DEFECT_IGNORE_CANCEL    declares per-exec cancellation (ABI 1.3) but a cancel never ends the exec
 *   CBK_DEFECT_KILLED_EXIT_1    an exec ended by a kill of its sandbox reports exit 1, not 137
 *   (the missing -z now is a link flag: see ../CMakeLists.txt)
 * Variants that are not defects:
 *   CBK_UNVERIFIED              its only mechanism is declared unverified (tier UNKNOWN)
 *   CBK_MINIMAL                 declares only run_command and network_policy
 *   CBK_NOPOLICY                declares only run_command: it cannot create at all
 *   CBK_NORUN                   declares no run_command (files, policy, managed, connect)
 *   CBK_ECHO_CREDENTIAL         declares its credential (CBK_API_KEY, and the setting api_key_env
 *                               naming another variable) and, like a careless provider, echoes
 *                               the key in its errors, hints, log lines and progress steps without
 *                               redacting it: the library must (ABI 1.4) */
#ifndef CBK_H
#define CBK_H

#include <pthread.h>
#include <sandboxio/backend.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct cbk_kv {
  char **keys, **values;
  size_t n;
} cbk_kv;

const char *cbk_kv_get(const cbk_kv *kv, const char *key);
int cbk_kv_set(cbk_kv *kv, const char *key, const char *value);
void cbk_kv_free(cbk_kv *kv);

/* ------------------------------------------------------------ files */
typedef struct cbk_node {
  char *path; /* absolute, normalised */
  unsigned char *data;
  size_t len;
  int is_dir;
} cbk_node;

typedef struct cbk_fs {
  cbk_node *nodes;
  size_t n, cap;
} cbk_fs;

int cbk_fs_init(cbk_fs *fs);
void cbk_fs_free(cbk_fs *fs);
/* Absolute, normalised form of path (relative to /work); malloc'd. */
char *cbk_fs_resolve(const char *path);
cbk_node *cbk_fs_find(cbk_fs *fs, const char *abs);
int cbk_fs_write(cbk_fs *fs, const char *abs, const void *data, size_t len, sbio_bk_error *err);
int cbk_fs_mkdir(cbk_fs *fs, const char *abs, int parents, sbio_bk_error *err);
int cbk_fs_remove(cbk_fs *fs, const char *abs, sbio_bk_error *err);

/* ------------------------------------------------------------ boxes */
typedef struct cbk_box {
  char id[32];
  atomic_int killed;
  int refs;             /* under the instance lock */
  pthread_mutex_t lock; /* guards fs */
  cbk_kv env;           /* create env overlaid by secrets */
  cbk_kv secrets;       /* kept apart only so the leaky defect can dump them */
  cbk_kv labels;
  int egress_allow;
  char **allow;
  size_t n_allow;
  cbk_fs fs;
} cbk_box;

typedef struct cbk_instance {
  pthread_mutex_t lock;
  cbk_box **boxes; /* the provider's view: what list_managed shows */
  size_t n, cap;
  unsigned next_id;
  const sbio_host_services *host;
  char key_var[65]; /* CBK_ECHO_CREDENTIAL: the variable holding the key */
} cbk_instance;

/* CBK_ECHO_CREDENTIAL: the key, as the provider would quote it back; ""
 * in every other variant or when unset. */
const char *cbk_echo_key(const cbk_instance *inst);

typedef struct cbk_handle {
  cbk_instance *inst;
  cbk_box *box;
} cbk_handle;

cbk_box *cbk_box_new(cbk_instance *inst, const sbio_bk_create_req *req);
void cbk_box_unref(cbk_instance *inst, cbk_box *box);
/* A live listed box by id, with a reference taken; NULL if none. */
cbk_box *cbk_box_find(cbk_instance *inst, const char *id);
/* Drops the box from the listing (and the listing's reference). */
void cbk_box_unlist(cbk_instance *inst, cbk_box *box);

/* The box's secrets as a JSON object, for the leaky defect. */
void cbk_leak(const cbk_box *box, char *buf, size_t size);

/* ------------------------------------------------------------ shell */
/* Runs argv (argc > 0) or a shell script against the box. */
int cbk_exec(cbk_box *box, const sbio_bk_exec_req *req, const sbio_bk_call *call, int *exit_code, sbio_bk_error *err);

#endif
