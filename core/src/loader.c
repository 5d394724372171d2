/* SPDX-License-Identifier: MIT */
/* The loader (see loader.h). Refusal reasons are part of the user
 * interface, like the registry's: fixed sentences with the facts.
 *
 * The window between scan and dlopen is closed here: the file is re-opened,
 * and a file whose identity (device, inode, size, mtime, ctime) differs
 * from the one recorded at scan is refused before any of its code runs;
 * when the scan hashed it (a sha256 pin, a file changed just before the
 * scan: registry.c, "Hashing"), it is hashed again and must match. The remaining window
 * (between that hash and dlopen's own open) can only be used by someone
 * allowed to write the checked directories, i.e. root or the current user,
 * who could run code as us anyway; a package manager replaces a file by
 * renaming a new one over it, which leaves an already opened inode intact. */
#include "loader.h"

#include "elfnote.h"
#include "error_internal.h"
#include "ops_contract.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_PREFIX SBIO__BACKEND_FILE_PREFIX
#define NAME_SUFFIX SBIO__BACKEND_FILE_SUFFIX

/* The smallest operations table a v1.x backend may hand us: everything up to
 * and including the last operation of ABI 1.0. Stays fixed when later minors
 * append operations. */
#define OPS_V1_0_SIZE (offsetof(sbio_backend_ops, kill_managed) + sizeof(((sbio_backend_ops *)0)->kill_managed))
#define OPS_ABI_FIELD_END (offsetof(sbio_backend_ops, abi_major) + sizeof(uint32_t))

sbio_code sbio__loader_unavailable(const struct sbio_backend_info *b, sbio_error *err) {
  sbio_code rc;
  char hint[256];
  switch (b->status) {
  case SBIO_BACKEND_DISABLED:
    snprintf(hint, sizeof hint, "enable it in the configuration: backends: {%s: {enabled: true}}", b->name);
    rc = sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE, hint, "backend %s is disabled by configuration", b->name);
    break;
  case SBIO_BACKEND_SHADOWED:
    rc = sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE,
                         "remove or rename one of the files, or reorder the backend search path",
                         "backend %s at %s is not used: %s", b->name, b->path, b->reason);
    break;
  default:
    snprintf(hint, sizeof hint, "`sbio inspect %s` shows the backend's file, metadata and checks", b->name);
    rc = sbio__error_set(err, SBIO_E_BACKEND_UNAVAILABLE, hint, "backend %s (%s) is refused: %s", b->name, b->path,
                         b->reason);
    break;
  }
  sbio__error_set_backend(err, b->name);
  return rc;
}

/* "another file (inode 12, now 13), 4096 bytes, now 8192": what differs,
 * for the reason. */
static void describe_change(const sbio__file_identity *was, const sbio__file_identity *now, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
#define ADD(...)                                                                                                       \
  do {                                                                                                                 \
    int n_ = snprintf(out + used, size - used, __VA_ARGS__);                                                           \
    if (n_ > 0 && (size_t)n_ < size - used) used += (size_t)n_;                                                        \
  } while (0)
  if (was->dev != now->dev || was->ino != now->ino)
    ADD("%sanother file (inode %llu, now %llu)", used ? ", " : "", (unsigned long long)was->ino,
        (unsigned long long)now->ino);
  if (was->size != now->size)
    ADD("%s%lld bytes, now %lld", used ? ", " : "", (long long)was->size, (long long)now->size);
  if (!used)
    ADD("modified at %lld.%09ld, now %lld.%09ld", (long long)was->ctime.tv_sec, was->ctime.tv_nsec,
        (long long)now->ctime.tv_sec, now->ctime.tv_nsec);
#undef ADD
}

/* Re-reads the file just before loading it: the same file as at scan (else
 * the pins and the metadata we showed are about another file), and its note,
 * for the comparison with the code-side copy. Reading the note checks the
 * ELF headers and that every loadable segment lies inside the file as it is
 * now (elfnote.h): the dynamic loader maps those segments and would die of
 * SIGBUS on a page past the end of a truncated file. */
static int reverify_file(struct sbio_backend_info *b, char **note) {
  *note = NULL;
  struct stat pre;
  /* Not even opened when it is no longer a regular file (registry.c,
   * evaluate_file, says why); fstat below checks the descriptor itself. */
  if (stat(b->path, &pre) == 0 && !S_ISREG(pre.st_mode)) {
    sbio__backend_refuse(b, "%s is no longer a regular file", b->path);
    return -1;
  }
  int fd = open(b->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    sbio__backend_refuse(b, "cannot open %s: %s", b->path, strerror(errno));
    return -1;
  }
  struct stat st;
  sbio__file_identity now;
  char hex[65] = "";
  char why[384] = "";
  int rc = -1;
  int hashed = atomic_load_explicit(&b->sha256_known, memory_order_acquire);
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    sbio__backend_refuse(b, "%s is no longer a regular file", b->path);
  } else if (sbio__file_identity_of(&st, &now), !sbio__file_identity_same(&b->scanned, &now)) {
    describe_change(&b->scanned, &now, why, sizeof why);
    sbio__backend_refuse(b, "file changed since it was scanned (%s)", why);
  } else if (hashed && sbio__sha256_fd_hex(fd, hex) != 0) {
    sbio__backend_refuse(b, "cannot hash %s: %s", b->path, strerror(errno));
  } else if (hashed && strcmp(hex, b->sha256) != 0) {
    sbio__backend_refuse(b, "file changed since it was scanned (sha256 was %s, now %s)", b->sha256, hex);
  } else if (sbio__elfnote_read_fd(fd, note, why, sizeof why) != 0) {
    sbio__backend_refuse(b, "%s", why);
  } else {
    rc = 0;
  }
  close(fd);
  return rc;
}

/* Validates what the entry point returned. Reads no field beyond the size
 * the backend declared. */
static int check_ops(struct sbio_backend_info *b, const sbio_backend_ops *ops, const char *note) {
  if (!ops) {
    sbio__backend_refuse(b, "entry point returned NULL");
    return -1;
  }
  if (ops->size >= OPS_ABI_FIELD_END && ops->abi_major != SBIO_BACKEND_ABI_MAJOR) {
    sbio__backend_refuse(b, "operations table ABI major %u does not match this core's %d", (unsigned)ops->abi_major,
                         SBIO_BACKEND_ABI_MAJOR);
    return -1;
  }
  if (ops->size < OPS_V1_0_SIZE) {
    sbio__backend_refuse(b, "operations table too small (%u bytes)", (unsigned)ops->size);
    return -1;
  }
  if (!ops->name || strcmp(ops->name, b->name) != 0) {
    sbio__backend_refuse(b, "operations table names \"%.64s\" but the file is " NAME_PREFIX "%s" NAME_SUFFIX,
                         ops->name ? ops->name : "(null)", b->name);
    return -1;
  }
  if (!ops->metadata_json || strcmp(ops->metadata_json, note) != 0) {
    sbio__backend_refuse(b, "code-side metadata differs from the ELF note");
    return -1;
  }
  char why[384];
  if (sbio__ops_contract_check(ops, b->meta.caps, b->meta.n_mechs, why, sizeof why) != 0) {
    sbio__backend_refuse(b, "%s", why);
    return -1;
  }
  return 0;
}

sbio_code sbio__loader_load(struct sbio_backend_info *b, sbio_error *err) {
  if (!b) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "load: no backend");
  if (b->status == SBIO_BACKEND_LOADED) return SBIO_OK;
  if (b->status != SBIO_BACKEND_AVAILABLE) return sbio__loader_unavailable(b, err);

  char *note = NULL;
  if (reverify_file(b, &note) != 0) return sbio__loader_unavailable(b, err);

  char diag[384] = "";
  sbio__dl *dl = NULL;
  if (sbio__dl_open(b->path, &dl, diag, sizeof diag) != 0) {
    sbio__backend_refuse(b, "dlopen failed: %s", diag);
    free(note);
    return sbio__loader_unavailable(b, err);
  }
  void *sym = NULL;
  if (sbio__dl_sym(dl, SBIO_BACKEND_ENTRY_SYMBOL, &sym, diag, sizeof diag) != 0) {
    sbio__backend_refuse(b, "entry symbol " SBIO_BACKEND_ENTRY_SYMBOL " not found: %s", diag);
    sbio__dl_close(dl);
    free(note);
    return sbio__loader_unavailable(b, err);
  }
  /* dlsym hands back an object pointer; POSIX guarantees it converts to a
   * function pointer, ISO C does not, hence the copy. */
  sbio_backend_entry_fn entry;
  _Static_assert(sizeof entry == sizeof sym, "function and object pointers differ in size");
  memcpy(&entry, &sym, sizeof entry);
  const sbio_backend_ops *ops = entry();
  int bad = check_ops(b, ops, note);
  free(note);
  if (bad) {
    sbio__dl_close(dl);
    return sbio__loader_unavailable(b, err);
  }
  b->dl = dl;
  b->ops = ops;
  b->status = SBIO_BACKEND_LOADED;
  return SBIO_OK;
}
