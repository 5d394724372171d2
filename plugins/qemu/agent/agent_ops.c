/* SPDX-License-Identifier: MIT */
/* The agent's file requests: read, write (open/data/end), list, mkdir,
 * remove. Answers: DATA or DIRENT pieces, then DONE, or one ERR. */
#include "agent.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int wfd = -1; /* the file being written */
static uint32_t wid; /* its request */
static int werr;     /* first write error (errno) */

static void read_file(uint32_t id, const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ag_send_err(id, ag_errno_code(errno), "%s", strerror(errno));
    return;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(fd);
    ag_send_err(id, QM_E_IO, "is a directory");
    return;
  }
  static uint8_t buf[QM_CHUNK];
  qm_wr w = {0};
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ag_send_err(id, QM_E_IO, "%s", strerror(errno));
      break;
    }
    if (n == 0) {
      ag_send_done(id);
      break;
    }
    sbio__qm_wr_begin(&w, QM_DATA, id);
    sbio__qm_put_bytes(&w, buf, (size_t)n);
    ag_send(&w);
  }
  sbio__qm_wr_free(&w);
  close(fd);
}

static void list_dir(uint32_t id, const char *path) {
  DIR *d = opendir(path);
  if (!d) {
    ag_send_err(id, ag_errno_code(errno), "%s", strerror(errno));
    return;
  }
  qm_wr w = {0};
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    struct stat st;
    int ok = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    sbio__qm_wr_begin(&w, QM_DIRENT, id);
    sbio__qm_put_str(&w, de->d_name);
    sbio__qm_put_u64(&w, ok && !S_ISDIR(st.st_mode) ? (uint64_t)st.st_size : 0);
    sbio__qm_put_u8(&w, ok && S_ISDIR(st.st_mode));
    ag_send(&w);
  }
  sbio__qm_wr_free(&w);
  closedir(d);
  ag_send_done(id);
}

static int mkdir_p(char *path) {
  for (char *p = path + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      int r = mkdir(path, 0755);
      *p = '/';
      if (r != 0 && errno != EEXIST) return -1;
    }
  if (mkdir(path, 0755) == 0) return 0;
  struct stat st;
  if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return 0;
  if (errno == EEXIST) errno = ENOTDIR;
  return -1;
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(p) == 0 ? 0 : -1;
}

static int is_protected(const char *path) {
  char real[PATH_MAX];
  if (!realpath(path, real)) return 0;
  return !strcmp(real, "/") || !strcmp(real, AG_WORK_DIR);
}

void ag_file_request(const qm_header *h, const uint8_t *payload) {
  qm_rd r;
  sbio__qm_rd_init(&r, payload, h->len);
  static char path[QM_STR_MAX];
  uint8_t parents = 0;
  const uint8_t *data;
  uint32_t len;
  switch (h->type) {
  case QM_READ:
  case QM_LIST:
  case QM_REMOVE:
  case QM_WRITE_OPEN:
    sbio__qm_get_str(&r, path, sizeof path);
    break;
  case QM_MKDIR:
    sbio__qm_get_str(&r, path, sizeof path);
    sbio__qm_get_u8(&r, &parents);
    break;
  case QM_WRITE_DATA:
    if (sbio__qm_get_bytes(&r, QM_CHUNK, &data, &len) == 0 && !sbio__qm_rd_end(&r) && wfd >= 0 && h->id == wid &&
        !werr) {
      for (uint32_t off = 0; off < len;) {
        ssize_t n = write(wfd, data + off, len - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          werr = n < 0 ? errno : EIO;
          break;
        }
        off += (uint32_t)n;
      }
    }
    return; /* no answer until the end */
  case QM_WRITE_END:
    if (wfd < 0 || h->id != wid) return; /* its open already failed and was answered */
    if (close(wfd) != 0 && !werr) werr = errno;
    wfd = -1;
    if (werr)
      ag_send_err(h->id, QM_E_IO, "%s", strerror(werr));
    else
      ag_send_done(h->id);
    return;
  default:
    return;
  }
  if (sbio__qm_rd_end(&r)) {
    ag_send_err(h->id, QM_E_INVAL, "malformed request");
    return;
  }
  switch (h->type) {
  case QM_READ:
    read_file(h->id, path);
    break;
  case QM_LIST:
    list_dir(h->id, path);
    break;
  case QM_MKDIR:
    if ((parents ? mkdir_p(path) : mkdir(path, 0755)) != 0)
      ag_send_err(h->id, ag_errno_code(errno), "%s", strerror(errno));
    else
      ag_send_done(h->id);
    break;
  case QM_REMOVE: {
    struct stat st;
    if (lstat(path, &st) != 0)
      ag_send_err(h->id, ag_errno_code(errno), "%s", strerror(errno));
    else if (is_protected(path))
      ag_send_err(h->id, QM_E_PERM, "refusing to remove the root or the work directory");
    else if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
      ag_send_err(h->id, QM_E_IO, "%s", strerror(errno));
    else
      ag_send_done(h->id);
    break;
  }
  case QM_WRITE_OPEN:
    if (wfd >= 0) close(wfd);
    wfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    wid = h->id;
    werr = 0;
    if (wfd < 0) ag_send_err(h->id, ag_errno_code(errno), "%s", strerror(errno));
    break;
  default:
    break;
  }
}
