/* SPDX-License-Identifier: MIT */
/* The backend registry: scanning the search path without running backend
 * code, trust and pins (see registry.h for the contract). Loading a
 * backend's code is loader.c.
 *
 * Refusal reasons are part of the user interface (`sbio inspect`, error
 * messages, the loader tests match them), so each is a fixed sentence with
 * the facts that explain it. Change them only deliberately.
 *
 * Symlinks. A candidate sbio-backend-NAME.so may be a symlink (packagers do
 * this), and so may any directory on its path. The path is resolved one
 * component at a time (resolve_trusted) and every directory in which a name
 * is looked up must pass the permission rule: the ancestors of the path as
 * written, of each symlink's target, and of the final file. Whoever can
 * write any of them could choose the code we load. The file is then opened
 * by its resolved path with O_NOFOLLOW (a component swapped for a symlink
 * after the check fails the open) and every later check uses fstat() on
 * that descriptor, so the checked file and the read file are the same
 * inode. The NAME always comes from the candidate's own file name, which is
 * what the operator sees in the directory listing, and `path` stays the
 * path as found (dlopen follows the same links).
 *
 * The window between scan and dlopen is closed at load time (loader.c).
 *
 * Hashing. A plugin file is hashed only when something needs its SHA-256:
 * a sha256 pin (checked here), a caller asking for it (`sbio inspect`,
 * sbio_backend_info_sha256), or a file changed so recently that its
 * identity alone could miss a later change. Reading every file in full at
 * every host open cost most of a listing and a third of every command.
 * Instead the scan records the identity of the descriptor it checked and
 * read (device, inode, size, mtime, ctime), and loading compares the file
 * with it. A change of the file's contents always moves its ctime to the
 * current time, which nobody can set back; so once a file's ctime is
 * older than the scan by more than any file system's timestamp
 * granularity (RACY_WINDOW_S), a later change cannot leave the identity
 * as it was. A file changed more recently than that might change again
 * within the same clock tick and keep its identity, so it is hashed at
 * scan, like git's "racily clean" entries, and loading compares hashes as
 * well. A hash computed later (sbio__backend_sha256) is computed only
 * while the identity is still the scanned one. */
#include "registry.h"

#include "elfnote.h"
#include "error_internal.h"
#include "sha256.h"
#include "strmap.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Seconds: FAT stores times to 2 s, ext3 and others to 1 s. */
#define RACY_WINDOW_S 2

#define NAME_PREFIX SBIO__BACKEND_FILE_PREFIX
#define NAME_SUFFIX SBIO__BACKEND_FILE_SUFFIX

/* ------------------------------------------------------------ entries */

void sbio__backend_refuse(struct sbio_backend_info *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->reason, sizeof b->reason, fmt, ap);
  va_end(ap);
  b->status = SBIO_BACKEND_REFUSED;
  b->tier = SBIO_TIER_UNKNOWN;
}

static void entry_free(struct sbio_backend_info *b) {
  if (!b) return;
  if (b->instance && b->ops && SBIO_OPS_HAS(b->ops, close)) b->ops->close(b->instance);
  b->instance = NULL;
  b->ops = NULL;
  if (b->dl) sbio__dl_close(b->dl);
  if (b->have_meta) sbio__metadata_free(&b->meta);
  sbio__strlist_free(&b->cred_vars);
  for (size_t i = 0; i < b->cred_setting_text.n; i++)
    explicit_bzero(b->cred_setting_text.items[i], strlen(b->cred_setting_text.items[i]));
  sbio__strlist_free(&b->cred_setting_text);
  sbio__strlist_free(&b->cred_setting_names);
  free(b->name);
  free(b->path);
  free(b);
}

void sbio__registry_init(sbio__registry *reg) {
  reg->items = NULL;
  reg->n = 0;
  pthread_mutex_init(&reg->lock, NULL);
}

void sbio__registry_free(sbio__registry *reg) {
  if (!reg) return;
  for (size_t i = 0; i < reg->n; i++) entry_free(reg->items[i]);
  free(reg->items);
  reg->items = NULL;
  reg->n = 0;
  pthread_mutex_destroy(&reg->lock);
}

/* First come, first served, as with PATH: the first entry of a name is the
 * active one whatever its status, so a refused file is never silently
 * replaced by a later one of the same name. */
static struct sbio_backend_info *first_named(sbio__registry *reg, const char *name) {
  for (size_t i = 0; i < reg->n; i++)
    if (strcmp(reg->items[i]->name, name) == 0) return reg->items[i];
  return NULL;
}

struct sbio_backend_info *sbio__registry_find(sbio__registry *reg, const char *name) {
  if (!reg || !name) return NULL;
  struct sbio_backend_info *b = first_named(reg, name);
  return (b && b->status != SBIO_BACKEND_SHADOWED) ? b : NULL;
}

static int registry_append(sbio__registry *reg, struct sbio_backend_info *b) {
  /* Room for 8, then doubled at each power of two: n appends copy O(n). */
  size_t n = reg->n;
  if (n == 0 || (n >= 8 && (n & (n - 1)) == 0)) {
    struct sbio_backend_info **items = realloc(reg->items, (n ? n * 2 : 8) * sizeof *items);
    if (!items) return -1;
    reg->items = items;
  }
  reg->items[reg->n++] = b;
  return 0;
}

/* ------------------------------------------------------ permissions */

/* A directory others can write lets them plant or swap files, unless it is
 * root's and sticky (like /tmp), where they cannot touch entries they do
 * not own. A directory owned by someone other than root or us is theirs to
 * change. This is sudo's rule for its plugins. */
static int check_dir(const char *dir, char *reason, size_t size) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    snprintf(reason, size, "cannot stat directory %s: %s", dir, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(reason, size, "%s is not a directory", dir);
    return -1;
  }
  if (st.st_uid != 0 && st.st_uid != geteuid()) {
    snprintf(reason, size, "directory %s is owned by uid %lu, neither root nor the current user (uid %lu)", dir,
             (unsigned long)st.st_uid, (unsigned long)geteuid());
    return -1;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_uid == 0 && (st.st_mode & S_ISVTX))) {
    snprintf(reason, size,
             "directory %s is writable by group or others (mode %04o) and not a root-owned sticky directory", dir,
             (unsigned)(st.st_mode & 07777));
    return -1;
  }
  return 0;
}

/* "/a/b" -> "/a", "/a" -> "/". */
static void to_parent(char *dir) {
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    dir[1] = '\0';
  else if (slash)
    *slash = '\0';
}

#define MAX_SYMLINKS 40

/* realpath(3), but every directory in which a name is looked up on the way
 * must pass check_dir: the ancestors of the path as written, of every
 * symlink's target, and of the final file. Whoever can write any of them
 * could choose the file we end up at. Returns the malloc'd real path, or
 * NULL with a reason. */
static char *resolve_trusted(const char *path, char *reason, size_t size) {
  char *cur = malloc(2), *rest = strdup(path);
  size_t pos = 0;
  int links = 0;
  if (!cur || !rest) goto oom;
  strcpy(cur, "/");
  for (;;) {
    while (rest[pos] == '/') pos++;
    if (!rest[pos]) break;
    size_t end = pos;
    while (rest[end] && rest[end] != '/') end++;
    size_t clen = end - pos;
    if (clen == 1 && rest[pos] == '.') {
      pos = end;
      continue;
    }
    if (clen == 2 && rest[pos] == '.' && rest[pos + 1] == '.') {
      to_parent(cur);
      pos = end;
      continue;
    }
    if (check_dir(cur, reason, size) != 0) goto fail;
    char *next;
    if (asprintf(&next, "%s%s%.*s", cur, strcmp(cur, "/") == 0 ? "" : "/", (int)clen, rest + pos) < 0) goto oom;
    struct stat st;
    if (lstat(next, &st) != 0) {
      snprintf(reason, size, "cannot resolve %s: %s", path, strerror(errno));
      free(next);
      goto fail;
    }
    if (!S_ISLNK(st.st_mode)) {
      free(cur);
      cur = next;
      pos = end;
      continue;
    }
    if (++links > MAX_SYMLINKS) {
      snprintf(reason, size, "cannot resolve %s: too many levels of symbolic links", path);
      free(next);
      goto fail;
    }
    char target[PATH_MAX];
    ssize_t n = readlink(next, target, sizeof target - 1);
    int saved = errno;
    free(next);
    if (n <= 0) {
      snprintf(reason, size, "cannot resolve %s: %s", path, n == 0 ? "empty symbolic link" : strerror(saved));
      goto fail;
    }
    target[n] = '\0';
    char *joined;
    if (asprintf(&joined, "%s/%s", target, rest + end) < 0) goto oom;
    free(rest);
    rest = joined;
    pos = 0;
    if (target[0] == '/') strcpy(cur, "/"); /* cur always holds at least "/" */
  }
  free(rest);
  return cur;
oom:
  snprintf(reason, size, "out of memory");
fail:
  free(cur);
  free(rest);
  return NULL;
}

static int check_file(const char *path, const struct stat *st, char *reason, size_t size) {
  if (st->st_uid != 0 && st->st_uid != geteuid()) {
    snprintf(reason, size, "file %s is owned by uid %lu, neither root nor the current user (uid %lu)", path,
             (unsigned long)st->st_uid, (unsigned long)geteuid());
    return -1;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(reason, size, "file %s is writable by group or others (mode %04o)", path, (unsigned)(st->st_mode & 07777));
    return -1;
  }
  if (!S_ISREG(st->st_mode)) {
    snprintf(reason, size, "%s is not a regular file", path);
    return -1;
  }
  return 0;
}

/* ----------------------------------------------------------- hashing */

void sbio__file_identity_of(const struct stat *st, sbio__file_identity *id) {
  memset(id, 0, sizeof *id);
  id->dev = st->st_dev;
  id->ino = st->st_ino;
  id->size = st->st_size;
  id->mtime = st->st_mtim;
  id->ctime = st->st_ctim;
}

static int same_time(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

int sbio__file_identity_same(const sbio__file_identity *a, const sbio__file_identity *b) {
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size && same_time(&a->mtime, &b->mtime) &&
         same_time(&a->ctime, &b->ctime);
}

/* Changed within RACY_WINDOW_S of `now`, or in the future. */
static int recently_changed(const struct stat *st, const struct timespec *now) {
  time_t since = now->tv_sec - RACY_WINDOW_S;
  return st->st_ctim.tv_sec >= since || st->st_mtim.tv_sec >= since;
}

/* Serialises the lazy hashes of every registry: they are rare, and one
 * file is never hashed twice at once. */
static pthread_mutex_t hash_lock = PTHREAD_MUTEX_INITIALIZER;

static void store_hash(struct sbio_backend_info *b, const char hex[65]) {
  memcpy(b->sha256, hex, sizeof b->sha256);
  atomic_store_explicit(&b->sha256_known, 1, memory_order_release);
}

const char *sbio__backend_sha256(struct sbio_backend_info *b) {
  if (!b) return "";
  if (atomic_load_explicit(&b->sha256_known, memory_order_acquire)) return b->sha256;
  if (!b->have_meta) return "";
  pthread_mutex_lock(&hash_lock);
  struct stat pre;
  /* A file that is no longer regular is not opened (evaluate_file says why). */
  if (!atomic_load_explicit(&b->sha256_known, memory_order_relaxed) && stat(b->path, &pre) == 0 &&
      S_ISREG(pre.st_mode)) {
    int fd = open(b->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    sbio__file_identity now;
    char hex[65];
    if (fd >= 0 && fstat(fd, &st) == 0) {
      sbio__file_identity_of(&st, &now);
      /* Another file's hash under this entry's name would be a lie. */
      if (sbio__file_identity_same(&now, &b->scanned) && sbio__sha256_fd_hex(fd, hex) == 0) store_hash(b, hex);
    }
    if (fd >= 0) close(fd);
  }
  pthread_mutex_unlock(&hash_lock);
  return atomic_load_explicit(&b->sha256_known, memory_order_acquire) ? b->sha256 : "";
}

/* ---------------------------------------------------------- metadata */

/* When the schema check fails, an "abi" that is not ours explains why far
 * better than the schema error does (a future ABI may well have a different
 * schema), so it is looked at first. Returns 1 and sets *abi when the
 * document has an integer "abi" other than ours. */
static int foreign_abi(const char *json, size_t len, int *abi) {
  cJSON *doc = cJSON_ParseWithLength(json, len);
  int foreign = 0;
  if (doc) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "abi");
    if (cJSON_IsNumber(v) && v->valuedouble == (double)v->valueint && v->valueint != SBIO_BACKEND_ABI_MAJOR) {
      *abi = v->valueint;
      foreign = 1;
    }
    cJSON_Delete(doc);
  }
  return foreign;
}

/* metadata.c names the field but starts with "metadata: "; we say "invalid
 * metadata: " already. */
static const char *strip_metadata_prefix(const char *reason) {
  static const char prefix[] = "metadata: ";
  return strncmp(reason, prefix, sizeof prefix - 1) == 0 ? reason + sizeof prefix - 1 : reason;
}

static int read_metadata(struct sbio_backend_info *b, int fd) {
  char why[384];
  char *json = NULL;
  why[0] = '\0';
  if (sbio__elfnote_read_fd(fd, &json, why, sizeof why) != 0) {
    sbio__backend_refuse(b, "%s", why[0] ? why : "cannot read the metadata note");
    return -1;
  }
  size_t len = strlen(json);
  if (sbio__metadata_parse(json, len, &b->meta, why, sizeof why) != 0) {
    int abi = 0;
    if (foreign_abi(json, len, &abi))
      sbio__backend_refuse(b, "metadata ABI %d does not match this core's ABI %d", abi, SBIO_BACKEND_ABI_MAJOR);
    else
      sbio__backend_refuse(b, "invalid metadata: %s", strip_metadata_prefix(why));
    sbio__metadata_free(&b->meta);
    memset(&b->meta, 0, sizeof b->meta);
    free(json);
    return -1;
  }
  free(json);
  b->have_meta = 1;
  return 0;
}

/* ---------------------------------------------------------- scanning */

/* NAME of "sbio-backend-NAME.so" into `name`, or -1 when the file is not a
 * candidate at all (those are ignored, not refused: the directory may hold
 * other files). */
static int candidate_name(const char *fname, char *name, size_t size) {
  size_t len = strlen(fname), pre = sizeof NAME_PREFIX - 1, suf = sizeof NAME_SUFFIX - 1;
  if (len <= pre + suf || strncmp(fname, NAME_PREFIX, pre) != 0 || strcmp(fname + len - suf, NAME_SUFFIX) != 0)
    return -1;
  size_t n = len - pre - suf;
  if (n >= size) return -1;
  memcpy(name, fname + pre, n);
  name[n] = '\0';
  return sbio__backend_name_valid(name) ? 0 : -1;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* Candidate file names in `dir`, sorted so the scan is deterministic.
 * Returns -1 on OOM; an unreadable directory yields zero names. */
static int list_candidates(const char *dir, char ***out, size_t *n_out) {
  *out = NULL;
  *n_out = 0;
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  char name[64];
  while ((de = readdir(d)) != NULL) {
    if (candidate_name(de->d_name, name, sizeof name) != 0) continue;
    if (n == cap) {
      size_t ncap = cap ? cap * 2 : 8;
      char **grown = realloc(names, ncap * sizeof *grown);
      if (!grown) goto oom;
      names = grown;
      cap = ncap;
    }
    if (!(names[n] = strdup(de->d_name))) goto oom;
    n++;
  }
  closedir(d);
  if (n > 1) qsort(names, n, sizeof *names, cmp_names);
  *out = names;
  *n_out = n;
  return 0;
oom:
  closedir(d);
  free_names(names, n);
  return -1;
}

static void evaluate_mechanisms(struct sbio_backend_info *b, const sbio__trust_policy *policy) {
  for (size_t i = 0; i < b->meta.n_mechs; i++) sbio__trust_evaluate(&b->meta.mechs[i], policy);
  b->claimed_tier = sbio__trust_weakest_claimed(&b->meta);
  b->tier = sbio__trust_weakest_effective(&b->meta);
}

static void check_pins(struct sbio_backend_info *b) {
  const sbio__backend_config *pin = b->cfg;
  if (!pin) return;
  /* Hashed at scan whenever a pin exists. */
  if (pin->sha256 && strcasecmp(pin->sha256, b->sha256) != 0) {
    sbio__backend_refuse(b, "sha256 pin mismatch: expected %s, file has %s", pin->sha256, b->sha256);
    return;
  }
  /* Equality, not "at least": the pin records the mechanism the operator
   * deployed against, and a change either way is a change they must see.
   * An UNKNOWN backend never matches a real tier, so a pin cannot raise a
   * tier; a pin of UNKNOWN matches only an UNKNOWN backend. */
  if (pin->expect_tier_set && pin->expect_tier != b->tier) {
    const char *want = sbio_tier_name(pin->expect_tier), *have = sbio_tier_name(b->tier);
    sbio__backend_refuse(b, "expect_tier pin mismatch: expected tier %s, backend provides %s", want ? want : "?",
                         have ? have : "?");
  }
}

/* Everything about one candidate file, in the order registry.h gives. On
 * return b->status is AVAILABLE, DISABLED or REFUSED. */
static void evaluate_file(struct sbio_backend_info *b, const sbio__trust_policy *policy) {
  char why[512];
  char *real = resolve_trusted(b->path, why, sizeof why);
  if (!real) {
    sbio__backend_refuse(b, "%s", why);
    return;
  }

  /* Not opened unless it is a regular file: open(2) alone acts on a FIFO
   * (it releases a writer waiting for a reader) and on a device (a serial
   * line raises DTR, a tape rewinds, a watchdog is armed). The descriptor
   * is checked again below; O_NONBLOCK still keeps a FIFO swapped in
   * meanwhile from hanging the scan. */
  struct stat pre;
  if (lstat(real, &pre) == 0 && !S_ISREG(pre.st_mode)) {
    sbio__backend_refuse(b, "%s is not a regular file", real);
    free(real);
    return;
  }
  int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    sbio__backend_refuse(b, "cannot open %s: %s", real, strerror(errno));
    free(real);
    return;
  }
  struct stat st;
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now); /* before fstat: see "Hashing" above */
  if (fstat(fd, &st) != 0) {
    sbio__backend_refuse(b, "cannot stat %s: %s", real, strerror(errno));
  } else if (check_file(real, &st, why, sizeof why) != 0) {
    sbio__backend_refuse(b, "%s", why);
  } else if (read_metadata(b, fd) == 0) {
    sbio__file_identity_of(&st, &b->scanned);
    char hex[65];
    if ((b->cfg && b->cfg->sha256) || recently_changed(&st, &now)) {
      if (sbio__sha256_fd_hex(fd, hex) == 0)
        store_hash(b, hex);
      else
        sbio__backend_refuse(b, "cannot hash %s: %s", real, strerror(errno));
    }
  }
  close(fd);
  free(real);
  if (b->status == SBIO_BACKEND_REFUSED && !b->have_meta) return;

  /* The document is valid from here on: evaluate its mechanisms even when a
   * later check refuses the backend, so `sbio inspect` can show them. */
  evaluate_mechanisms(b, policy);
  if (b->status == SBIO_BACKEND_REFUSED) {
    b->tier = SBIO_TIER_UNKNOWN;
    return;
  }
  if (b->meta.abi != SBIO_BACKEND_ABI_MAJOR) {
    sbio__backend_refuse(b, "metadata ABI %d does not match this core's ABI %d", b->meta.abi, SBIO_BACKEND_ABI_MAJOR);
    return;
  }
  if (strcmp(b->meta.name, b->name) != 0) {
    sbio__backend_refuse(b, "metadata names backend \"%s\" but the file is " NAME_PREFIX "%s" NAME_SUFFIX, b->meta.name,
                         b->name);
    return;
  }
  check_pins(b);
  if (b->status == SBIO_BACKEND_REFUSED) return;
  if (!b->enabled) {
    b->status = SBIO_BACKEND_DISABLED;
    snprintf(b->reason, sizeof b->reason, "disabled by configuration");
  }
}

static struct sbio_backend_info *entry_new(const char *dir, const char *fname, const char *name) {
  struct sbio_backend_info *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  size_t dlen = strlen(dir);
  const char *sep = (dlen > 0 && dir[dlen - 1] == '/') ? "" : "/";
  if (asprintf(&b->path, "%s%s%s", dir, sep, fname) < 0) b->path = NULL;
  b->name = strdup(name);
  if (!b->path || !b->name) {
    free(b->path);
    free(b->name);
    free(b);
    return NULL;
  }
  b->status = SBIO_BACKEND_AVAILABLE;
  b->tier = SBIO_TIER_UNKNOWN;
  b->claimed_tier = SBIO_TIER_UNKNOWN;
  return b;
}

/* "/a/b//" -> "/a/b" so the paths we show are clean; "/" stays. */
static char *trim_dir(const char *dir) {
  char *d = strdup(dir);
  if (!d) return NULL;
  size_t len = strlen(d);
  while (len > 1 && d[len - 1] == '/') d[--len] = '\0';
  return d;
}

/* What a scan has seen so far, by name (the first entry of each) and by
 * path: a lookup per candidate instead of a pass over every entry, which
 * made scanning n backends cost n^2 string compares. */
typedef struct scan_index {
  sbio__strmap names, paths;
} scan_index;

static int index_add(scan_index *x, struct sbio_backend_info *b) {
  if (!sbio__strmap_get(&x->names, b->name) && sbio__strmap_put(&x->names, b->name, b) != 0) return -1;
  return sbio__strmap_put(&x->paths, b->path, b);
}

static int seen_dir(char *const *seen, size_t n, const char *real) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(seen[i], real) == 0) return 1;
  return 0;
}

/* Scans one directory; returns -1 on OOM. */
static int scan_dir(sbio__registry *reg, scan_index *x, const char *dir, const sbio__config *cfg,
                    const sbio__trust_policy *policy) {
  char **names;
  size_t n;
  if (list_candidates(dir, &names, &n) != 0) return -1;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    char name[64];
    if (candidate_name(names[i], name, sizeof name) != 0) continue;
    struct sbio_backend_info *b = entry_new(dir, names[i], name);
    if (!b) {
      rc = -1;
      break;
    }
    if (sbio__strmap_get(&x->paths, b->path)) { /* an earlier scan already has this very file */
      entry_free(b);
      continue;
    }
    b->cfg = cfg ? sbio__config_backend(cfg, name) : NULL;
    b->enabled = cfg ? sbio__config_backend_enabled(cfg, name) : 1;
    const struct sbio_backend_info *first = sbio__strmap_get(&x->names, name);
    if (first) {
      /* Not even opened: it can never be used while the first one exists. */
      b->status = SBIO_BACKEND_SHADOWED;
      snprintf(b->reason, sizeof b->reason, "shadowed by %s", first->path);
    } else {
      evaluate_file(b, policy);
    }
    if (registry_append(reg, b) != 0) {
      entry_free(b);
      rc = -1;
    } else if (index_add(x, b) != 0) {
      rc = -1;
    }
  }
  free_names(names, n);
  return rc;
}

sbio_code sbio__registry_scan(sbio__registry *reg, const char *const *dirs, size_t n_dirs, const sbio__config *cfg,
                              const sbio__trust_policy *policy, sbio_error *err) {
  if (!reg || (n_dirs > 0 && !dirs))
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "registry scan: invalid arguments");
  sbio__trust_policy fallback = {SBIO__DEFAULT_MAX_AGE_DAYS, 0, (int64_t)time(NULL)};
  if (!policy) policy = &fallback;

  /* The same directory listed twice (or via a symlink) would shadow every
   * backend by itself; each real directory is scanned once. */
  char **seen = calloc(n_dirs ? n_dirs : 1, sizeof *seen);
  if (!seen) return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory scanning backends");
  size_t n_seen = 0;
  sbio_code rc = SBIO_OK;
  scan_index x = {0};
  for (size_t i = 0; i < reg->n && rc == SBIO_OK; i++)
    if (index_add(&x, reg->items[i]) != 0)
      rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory scanning backends");
  for (size_t i = 0; i < n_dirs && rc == SBIO_OK; i++) {
    const char *dir = dirs[i];
    if (!dir || dir[0] != '/') continue; /* relative or empty: never the current directory */
    char *trimmed = trim_dir(dir);
    char *real = trimmed ? realpath(trimmed, NULL) : NULL;
    if (!trimmed) {
      rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory scanning backends");
    } else if (real && !seen_dir(seen, n_seen, real)) {
      if (scan_dir(reg, &x, trimmed, cfg, policy) != 0)
        rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory scanning backends in %s", trimmed);
      seen[n_seen++] = real;
      real = NULL;
    }
    free(real); /* missing or already scanned */
    free(trimmed);
  }
  for (size_t i = 0; i < n_seen; i++) free(seen[i]);
  free(seen);
  sbio__strmap_free(&x.names);
  sbio__strmap_free(&x.paths);
  return rc;
}
