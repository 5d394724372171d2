/* SPDX-License-Identifier: MIT */
/* qemu://NAME: a root filesystem directory <rootfs_dir>/NAME, copied into
 * an ext4 image in the VM's state directory (mke2fs -d) and attached as a
 * read-only virtio-blk disk. The guest's agent mounts it under a tmpfs
 * overlay and runs every command in it: the guest may write anywhere, the
 * host's directory is never written. */
#include "rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define IMAGE_MAX_BYTES (16LL << 30) /* a root filesystem larger than this is refused */

int sbio__qm_rootfs_name_ok(const char *name) {
  if (!name[0] || strlen(name) > 100 || name[0] == '.') return 0;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
          *p == '-'))
      return 0;
  return 1;
}

int sbio__qm_rootfs_resolve(const char *rootfs_dir, const char *name, char *out, size_t size, sbio_bk_error *err) {
  if (!rootfs_dir)
    return sbio_sdk_error(err, SBIO_E_CONFIG, "set rootfs_dir in the qemu settings (docs/backends/qemu.md#images)",
                          "qemu: qemu://%.100s names a root filesystem, but no rootfs_dir is configured", name);
  if (!sbio__qm_rootfs_name_ok(name))
    return sbio_sdk_error(err, SBIO_E_CONFIG, "name a directory of rootfs_dir: letters, digits, '.', '_', '-'",
                          "qemu: '%.100s' is not a root filesystem name", name);
  snprintf(out, size, "%s/%s", rootfs_dir, name);
  struct stat st;
  if (stat(out, &st) != 0 || !S_ISDIR(st.st_mode))
    return sbio_sdk_error(err, SBIO_E_CONFIG, "list rootfs_dir for the names it holds",
                          "qemu: there is no root filesystem '%s' in %.300s", name, rootfs_dir);
  return SBIO_OK;
}

static long long tree_bytes;
static long long tree_entries;

static int count(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)path, (void)flag, (void)ftw;
  tree_bytes += ((long long)st->st_size + 4095) / 4096 * 4096;
  tree_entries++;
  return tree_bytes > IMAGE_MAX_BYTES ? 1 : 0;
}

int sbio__qm_rootfs_image(const char *src, const char *image, const char *log, const sbio_bk_call *call,
                          sbio_bk_error *err) {
  /* nftw's callback has no user pointer: one image at a time. */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  tree_bytes = tree_entries = 0;
  int too_big = nftw(src, count, 16, FTW_PHYS) != 0;
  long long bytes = tree_bytes, entries = tree_entries;
  pthread_mutex_unlock(&lock);
  if (too_big || bytes > IMAGE_MAX_BYTES)
    return sbio_sdk_error(err, SBIO_E_CREATE, "use a smaller root filesystem",
                          "qemu: the root filesystem %.300s is over %lld GiB or cannot be read", src,
                          IMAGE_MAX_BYTES >> 30);
  /* Room for the files, their inodes and ext4's own metadata. */
  long long kib = (bytes + entries * 512) / 1024 * 5 / 4 + 32 * 1024;
  char size[32];
  snprintf(size, sizeof size, "%lldk", kib);
  int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (logfd < 0) return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: cannot write %s: %s", log, strerror(errno));
  pid_t pid = fork();
  if (pid == 0) {
    dup2(logfd, 1);
    dup2(logfd, 2);
    execlp("mke2fs", "mke2fs", "-q", "-t", "ext4", "-F", "-L", "sbio-root", "-d", src, image, size, (char *)NULL);
    _exit(127);
  }
  close(logfd);
  if (pid < 0) return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: fork: %s", strerror(errno));
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (sbio_bk_remaining_ns(call) == 0 || call->cancelled(call)) {
      kill(pid, SIGKILL);
      waitpid(pid, NULL, 0);
      return sbio_sdk_error(err, SBIO_E_CREATE_TIMEOUT, "give create more time, or use a smaller root filesystem",
                            "qemu: copying the root filesystem %.300s did not finish in time", src);
    }
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return sbio_sdk_error(err, SBIO_E_CREATE, "install e2fsprogs (mke2fs); see mke2fs.log in the state directory",
                          "qemu: mke2fs could not copy %.300s into an image (status %d)", src,
                          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return SBIO_OK;
}
