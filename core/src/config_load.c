/* SPDX-License-Identifier: MIT */
/* Finding and reading configuration files: the layers (system file,
 * conf.d drop-ins, user file) or the one file that replaces them. */
#include "config.h"
#include "config_report.h"

#include "config_yaml.h"
#include "error_internal.h"
#include "install_layout.h"
#include "utf8.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static sbio_code fail_errno(sbio_error *err, const char *path, int errnum) {
  char buf[256], shown[SBIO__SHOWN_NAME_BUF];
  const char *reason = strerror_r(errnum, buf, sizeof buf);
  return sbio__error_set(err, SBIO_E_CONFIG, NULL, "cannot read %s: %s",
                         sbio__utf8_shown_name(path, shown, sizeof shown), reason);
}

/* A configuration file is a regular file, or a character device
 * (`--config /dev/null`: no configuration at all). The open and the reads
 * are non-blocking, so a FIFO with no writer cannot hang every command
 * before the check refuses it, and a device that honours the flag answers
 * EAGAIN instead of blocking; FIFOs, sockets and block devices are
 * refused. A regular file ignores the flag. */
static int open_regular(const char *path, sbio_error *err, int missing_ok, sbio_code *rc) {
  *rc = SBIO_OK;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    if (!(missing_ok && (errno == ENOENT || errno == ENOTDIR))) *rc = fail_errno(err, path, errno);
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *rc = fail_errno(err, path, errno);
  } else if (S_ISDIR(st.st_mode)) {
    *rc = fail_errno(err, path, EISDIR); /* the message read() gave before */
  } else if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
    *rc = sbio__error_set(err, SBIO_E_CONFIG,
                          "a configuration file must be a regular file (FIFOs, sockets and block devices are refused)",
                          "cannot read %s: not a regular file", path);
  }
  if (*rc) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Reads at most SBIO__CONFIG_MAX_BYTES + 1 bytes, never trusting st_size
 * (/proc files, files growing while read). With missing_ok, a missing file
 * sets *data to NULL and succeeds. */
static sbio_code read_whole_file(const char *path, int missing_ok, char **data, size_t *len, sbio_error *err) {
  *data = NULL;
  *len = 0;
  sbio_code open_rc;
  int fd = open_regular(path, err, missing_ok, &open_rc);
  if (fd < 0) return open_rc;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  sbio_code rc = SBIO_OK;
  while (!rc && n <= SBIO__CONFIG_MAX_BYTES) {
    if (buf && n == cap) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) free(buf);
      buf = grown;
      cap *= 2;
    }
    if (!buf) {
      char shown[SBIO__SHOWN_NAME_BUF];
      rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory while reading the configuration",
                           sbio__utf8_shown_name(path, shown, sizeof shown));
      break;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) rc = fail_errno(err, path, errno);
    if (got <= 0) break;
    n += (size_t)got;
  }
  close(fd);
  if (!rc && n > SBIO__CONFIG_MAX_BYTES) {
    char shown[SBIO__SHOWN_NAME_BUF];
    rc = sbio__error_set(err, SBIO_E_CONFIG, NULL,
                         "%s: the file is larger than 1 MiB; configuration files are limited to 1 MiB",
                         sbio__utf8_shown_name(path, shown, sizeof shown));
  }
  if (rc) {
    free(buf);
    return rc;
  }
  *data = buf;
  *len = n;
  return SBIO_OK;
}

static sbio_code merge_path(sbio__config *cfg, const char *path, int missing_ok, sbio_error *err) {
  char *data;
  size_t len;
  sbio_code rc = read_whole_file(path, missing_ok, &data, &len, err);
  if (rc || !data) return rc;
  rc = sbio__config_merge_buffer(cfg, path, data, len, err);
  free(data);
  return rc;
}

sbio_code sbio__config_merge_file(sbio__config *cfg, const char *path, sbio_error *err) {
  if (!cfg || !path)
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sbio__config_merge_file: NULL argument");
  return merge_path(cfg, path, 0, err);
}

static char *join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s", a, b);
  return s;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_dropin_name(const char *name) {
  size_t n = strlen(name);
  return n > 5 && !strcmp(name + n - 5, ".yaml");
}

/* SYSCONFDIR/sandboxio/conf.d/ *.yaml, regular files only (symlinks to
 * them count), merged in strcmp order. A missing directory is no error. */
static sbio_code merge_dropins(sbio__config *cfg, const char *dir, sbio_error *err) {
  DIR *d = opendir(dir);
  if (!d) {
    if (errno == ENOENT || errno == ENOTDIR) return SBIO_OK;
    return fail_errno(err, dir, errno);
  }
  char **names = NULL;
  size_t n = 0, cap = 0;
  sbio_code rc = SBIO_OK;
  struct dirent *e;
  errno = 0;
  while (!rc && (e = readdir(d))) {
    if (!is_dropin_name(e->d_name)) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, 0) != 0) {
      if (errno != ENOENT) rc = fail_errno(err, e->d_name, errno); /* a dangling link is skipped */
      errno = 0;
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **grown = realloc(names, cap * sizeof *names);
      if (!grown) {
        rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory", dir);
        break;
      }
      names = grown;
    }
    if (!(names[n] = strdup(e->d_name))) {
      rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory", dir);
      break;
    }
    n++;
    errno = 0;
  }
  if (!rc && errno) rc = fail_errno(err, dir, errno);
  closedir(d);
  if (n) qsort(names, n, sizeof *names, name_cmp);
  for (size_t i = 0; !rc && i < n; i++) {
    char *path = join(dir, "/");
    char *full = path ? join(path, names[i]) : NULL;
    free(path);
    rc = full ? merge_path(cfg, full, 1, err) : sbio__error_set(err, SBIO_E_INTERNAL, NULL, "%s: out of memory", dir);
    free(full);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return rc;
}

/* The user's config home: the argument, else $XDG_CONFIG_HOME when
 * absolute (the XDG spec says to ignore a relative one), else ~/.config.
 * secure_getenv: a set-uid caller must not let the environment pick its
 * configuration. Returns the directory and the suffix to append to it, or
 * NULL when there is no home at all. */
static const char *user_config_home(const char *xdg_home, const char **suffix) {
  *suffix = "/sandboxio/config.yaml";
  if (xdg_home) return xdg_home;
  const char *xdg = secure_getenv("XDG_CONFIG_HOME");
  if (xdg && xdg[0] == '/') return xdg;
  const char *home = secure_getenv("HOME");
  *suffix = "/.config/sandboxio/config.yaml";
  return home && home[0] ? home : NULL;
}

sbio_code sbio__config_load(sbio__config *cfg, const char *explicit_file, const char *sysconfdir, const char *xdg_home,
                            sbio_error *err) {
  if (!cfg) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "sbio__config_load: NULL config");
  if (explicit_file) return merge_path(cfg, explicit_file, 0, err);
  const char *env = secure_getenv("SBIO_CONFIG");
  if (env && env[0]) return merge_path(cfg, env, 0, err);

  char installed[PATH_MAX];
  if (!sysconfdir) sbio__install_sysconfdir(installed, sizeof installed);
  const char *sys = sysconfdir ? sysconfdir : installed;
  const char *suffix;
  const char *home = user_config_home(xdg_home, &suffix);
  char *main_file = join(sys, "/sandboxio/config.yaml");
  char *dropins = join(sys, "/sandboxio/conf.d");
  char *user = home ? join(home, suffix) : NULL;
  sbio_code rc = SBIO_OK;
  if (!main_file || !dropins || (home && !user))
    rc = sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory while loading the configuration");
  if (!rc) rc = merge_path(cfg, main_file, 1, err);
  if (!rc) rc = merge_dropins(cfg, dropins, err);
  if (!rc && user) rc = merge_path(cfg, user, 1, err);
  free(main_file);
  free(dropins);
  free(user);
  return rc;
}
