/* SPDX-License-Identifier: MIT */
/* Helpers for the loader battery (see loader_support.h). */
#include "loader_support.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LOADER_FIXTURE_DIR
#error "LOADER_FIXTURE_DIR must name the directory the fixture plugins are built into"
#endif

void loader_join(char out[PATH_MAX], const char *dir, const char *name) {
  snprintf(out, PATH_MAX, "%s/%s", dir, name);
}

int loader_tmpdir(char out[PATH_MAX]) {
  char templ[] = "/tmp/sbio-loader-XXXXXX";
  if (!mkdtemp(templ)) {
    fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
    return -1;
  }
  if (!realpath(templ, out)) {
    fprintf(stderr, "realpath %s: %s\n", templ, strerror(errno));
    return -1;
  }
  return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  if (remove(path) != 0) fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
  return 0;
}

void loader_rm_rf(const char *path) {
  if (path && path[0] == '/' && strncmp(path, "/tmp/sbio-loader-", 17) == 0)
    nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int loader_mkdir(const char *parent, const char *name, mode_t mode, char out[PATH_MAX]) {
  loader_join(out, parent, name);
  if (mkdir(out, 0700) != 0 || chmod(out, mode) != 0) {
    fprintf(stderr, "mkdir %s: %s\n", out, strerror(errno));
    return -1;
  }
  return 0;
}

unsigned char *loader_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot read %s: %s\n", path, strerror(errno));
    return NULL;
  }
  unsigned char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      unsigned char *grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = grown;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  *len = n;
  return buf;
}

int loader_write_file(const char *path, const void *data, size_t len, mode_t mode) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    fprintf(stderr, "cannot create %s: %s\n", path, strerror(errno));
    return -1;
  }
  const unsigned char *p = data;
  size_t left = len;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
      close(fd);
      return -1;
    }
    p += w;
    left -= (size_t)w;
  }
  if (fchmod(fd, mode) != 0) {
    close(fd);
    return -1;
  }
  return close(fd);
}

int loader_copy_fixture(const char *fixture, const char *dir, const char *as_name, mode_t mode) {
  char src[PATH_MAX], dst[PATH_MAX], fname[256];
  snprintf(fname, sizeof fname, "sbio-backend-%s.so", fixture);
  loader_join(src, LOADER_FIXTURE_DIR, fname);
  loader_join(dst, dir, as_name ? as_name : fname);
  size_t len = 0;
  unsigned char *data = loader_read_file(src, &len);
  if (!data) return -1;
  int rc = loader_write_file(dst, data, len, mode);
  free(data);
  return rc;
}

int loader_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}
