/* SPDX-License-Identifier: MIT */
/* The backends a host knows: one entry per file found on the search path,
 * in search order, including refused, disabled and shadowed ones. */
#ifndef SBIO_REGISTRY_H
#define SBIO_REGISTRY_H

#include "config.h"
#include "dl.h"
#include "metadata.h"
#include "strlist.h"
#include "trust.h"
#include <pthread.h>
#include <sandboxio/backend.h>
#include <sandboxio/sandboxio.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/types.h>

/* What identifies the contents of a file without reading them: the inode
 * and what any change to it moves. The change time (ctime) cannot be set
 * by anyone but the kernel, which sets it to the current time on every
 * change of the contents or the metadata. */
typedef struct sbio__file_identity {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
} sbio__file_identity;

struct sbio_backend_info {
  char *name; /* from the file name */
  char *path; /* absolute */
  sbio_backend_status status;
  char reason[512];
  int enabled;
  int have_meta;
  sbio__metadata meta; /* valid when have_meta */
  /* The file as scanned (the descriptor that was checked and read), valid
   * when have_meta. Loading compares the file with it (loader.h). */
  sbio__file_identity scanned;
  /* SHA-256 of the file, hashed only when something needs it: a sha256
   * pin, a file changed so recently that its identity alone cannot tell a
   * later change (registry.c, "Hashing"), or a caller asking for it
   * (sbio__backend_sha256). "" until then; set once, under the registry's
   * hash lock, and sha256_known then set with release ordering. */
  char sha256[65];
  atomic_int sha256_known;
  sbio_tier tier; /* weakest effective, UNKNOWN when refused */
  sbio_tier claimed_tier;
  const sbio__backend_config *cfg; /* points into the host's config, or NULL */
  /* Loaded state (status LOADED); guarded by the registry lock. */
  sbio__dl *dl;
  const sbio_backend_ops *ops;
  void *instance; /* opened lazily by the host */
  int warned_unknown;
  /* The variables holding its credentials (credentials.h): names only,
   * resolved once when cred_resolved. Guarded like the loaded state. */
  sbio__strlist cred_vars;
  /* What its declared credential settings hold (api_key_env's text):
   * a variable's name, or, pasted there by mistake, the credential itself
   * (credentials.c). Never shown. */
  sbio__strlist cred_setting_text;
  sbio__strlist cred_setting_names; /* the setting each text is of, same index */
  int cred_resolved;
};

typedef struct sbio__registry {
  struct sbio_backend_info **items;
  size_t n;
  pthread_mutex_t lock;
} sbio__registry;

void sbio__registry_init(sbio__registry *reg);
/* Closes instances (ops->close), unloads, frees. */
void sbio__registry_free(sbio__registry *reg);
/* The active (not shadowed) entry named `name`, or NULL. */
struct sbio_backend_info *sbio__registry_find(sbio__registry *reg, const char *name);

/* Scans the directories in order and appends one entry per candidate file
 * (sbio-backend-NAME.so with a valid NAME; other files are ignored
 * silently). No backend code runs. Per file, in this order, the first
 * failure sets status REFUSED with its reason and scanning goes on:
 *   - directory or file writable by group or others (a directory owned by
 *     root with the sticky bit is accepted, as sudo reasons), checked for
 *     the file, its directory and every ancestor;
 *   - not a regular file; not ELF; ELF class/machine not this host's;
 *   - no note, malformed note, invalid metadata JSON (reason from
 *     sbio__metadata_parse); ABI major in the note != SBIO_BACKEND_ABI_MAJOR;
 *   - metadata name != the NAME in the file name;
 *   - pin sha256 mismatch ("sha256 pin mismatch: expected X, file has Y");
 *   - pin expect_tier != the backend's weakest effective tier ("expected
 *     tier GVISOR, backend provides CONTAINER").
 * A later file with the name of an earlier entry is SHADOWED ("shadowed by
 * /first/path"). A backend disabled by config is DISABLED (reason
 * "disabled by configuration") and never loaded; its metadata is still read
 * for listing. Mechanisms are evaluated with sbio__trust_evaluate. Relative
 * and empty directories are skipped (never the current directory);
 * unreadable directories are skipped. */
sbio_code sbio__registry_scan(sbio__registry *reg, const char *const *dirs, size_t n_dirs, const sbio__config *cfg,
                              const sbio__trust_policy *policy, sbio_error *err);

/* Loading a scanned backend's code is loader.h. */

/* "sbio-backend-" NAME ".so": the file name of a backend. */
#define SBIO__BACKEND_FILE_PREFIX "sbio-backend-"
#define SBIO__BACKEND_FILE_SUFFIX ".so"

/* The file's identity from fstat(2). */
void sbio__file_identity_of(const struct stat *st, sbio__file_identity *id);
/* 1 when both name the same, unchanged file. */
int sbio__file_identity_same(const sbio__file_identity *a, const sbio__file_identity *b);

/* The entry's SHA-256 (64 hex digits), hashing the file if it was not
 * hashed yet and is still the file that was scanned; "" when it cannot be
 * known (refused before it was read, changed since the scan, unreadable).
 * Thread-safe. */
const char *sbio__backend_sha256(struct sbio_backend_info *b);

/* Marks the entry REFUSED (tier UNKNOWN) with this reason. Reasons are part
 * of the user interface: a fixed sentence with the facts that explain it. */
void sbio__backend_refuse(struct sbio_backend_info *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
