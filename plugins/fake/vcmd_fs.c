/* SPDX-License-Identifier: MIT */
/* Builtins on the sandbox's in-memory filesystem: cat, ls, mkdir, rm, test. */
#include "vcmds.h"

#include "fspath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Resolves a user path against the shell's cwd; NULL if too long or OOM. */
static char *resolve(fake_vsh *sh, const char *path) {
  char *out = NULL;
  return sbio__fake_path_resolve(sh->cwd, path, &out) == FAKE_PATH_OK ? out : NULL;
}

/* A copy of a file's bytes, taken under the lock so the callback that
 * receives them later runs without it. */
static fake_memfs_status copy_file(fake_vsh *sh, const char *path, char **data, size_t *len) {
  const unsigned char *src;
  pthread_mutex_lock(&sh->box->mu);
  fake_memfs_status st = sbio__fake_memfs_read(sh->box->fs, path, &src, len);
  if (st == FAKE_FS_OK) {
    *data = malloc(*len ? *len : 1);
    if (!*data)
      st = FAKE_FS_ENOMEM;
    else if (*len)
      memcpy(*data, src, *len);
  }
  pthread_mutex_unlock(&sh->box->mu);
  return st;
}

static int cat_stdin(fake_vsh *sh, const fake_io *io) {
  fake_stdin *in = sh->in;
  if (!in || in->used) return 0;
  in->used = 1;
  return sbio__fake_vcmd_write(sh, io, 1, "cat", in->data, in->len);
}

int sbio__fake_cmd_cat(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  if (argc < 2) return cat_stdin(sh, io);
  int status = 0;
  for (size_t i = 1; i < argc; i++) {
    if (sbio__fake_vsh_should_stop(sh)) return 137;
    if (strcmp(argv[i], "-") == 0) {
      status |= cat_stdin(sh, io);
      continue;
    }
    char *path = resolve(sh, argv[i]), *data = NULL;
    size_t len = 0;
    fake_memfs_status st = path ? copy_file(sh, path, &data, &len) : FAKE_FS_ENOENT;
    free(path);
    if (st != FAKE_FS_OK) {
      sbio__fake_io_printf(&sh->out, io, 2, "cat: %s: %s\n", argv[i], sbio__fake_vcmd_strerror(st));
      status = 1;
      continue;
    }
    if (sbio__fake_vcmd_write(sh, io, 1, "cat", data, len) != 0) status = 1;
    free(data);
  }
  return status;
}

/* Collects "name\n" lines of a directory listing. */
typedef struct names {
  char *text;
  size_t len;
  size_t cap;
  int oom;
} names;

static void add_name(void *user, const char *path, const char *name, size_t size, int is_dir) {
  (void)path, (void)size, (void)is_dir;
  names *n = user;
  size_t need = n->len + strlen(name) + 2;
  if (n->oom) return;
  if (need > n->cap) {
    size_t cap = n->cap ? n->cap : 256;
    while (cap < need) cap *= 2;
    char *p = realloc(n->text, cap);
    if (!p) {
      n->oom = 1;
      return;
    }
    n->text = p;
    n->cap = cap;
  }
  n->len += (size_t)snprintf(n->text + n->len, n->cap - n->len, "%s\n", name);
}

int sbio__fake_cmd_ls(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  int status = 0, any = 0;
  for (size_t i = 1; i <= argc; i++) {
    const char *arg;
    if (i < argc) {
      if (argv[i][0] == '-' && argv[i][1]) continue; /* -l, -a, -1: layout only */
      arg = argv[i];
    } else {
      if (any) break;
      arg = "."; /* no operands: the current directory */
    }
    any = 1;
    char *path = resolve(sh, arg);
    names list = {0};
    fake_memfs_status st = FAKE_FS_ENOENT;
    if (path) {
      pthread_mutex_lock(&sh->box->mu);
      st = sbio__fake_memfs_list(sh->box->fs, path, add_name, &list);
      pthread_mutex_unlock(&sh->box->mu);
    }
    free(path);
    if (st == FAKE_FS_ENOTDIR) {
      status |= sbio__fake_io_printf(&sh->out, io, 1, "%s\n", arg) ? 1 : 0;
    } else if (st != FAKE_FS_OK || list.oom) {
      sbio__fake_io_printf(&sh->out, io, 2, "ls: cannot access '%s': %s\n", arg,
                           sbio__fake_vcmd_strerror(list.oom ? FAKE_FS_ENOMEM : st));
      status = 2;
    } else if (list.len) {
      status |= sbio__fake_vcmd_write(sh, io, 1, "ls", list.text, list.len);
    }
    free(list.text);
  }
  return status;
}

int sbio__fake_cmd_mkdir(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  int parents = 0, status = 0, any = 0;
  for (size_t i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-p") == 0 || strcmp(argv[i], "--parents") == 0) parents = 1;
  }
  for (size_t i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-p") == 0 || strcmp(argv[i], "--parents") == 0) continue;
    any = 1;
    char *path = resolve(sh, argv[i]);
    fake_memfs_status st = FAKE_FS_ENOMEM;
    if (path) {
      pthread_mutex_lock(&sh->box->mu);
      st = sbio__fake_memfs_mkdir(sh->box->fs, path, parents);
      pthread_mutex_unlock(&sh->box->mu);
    }
    free(path);
    if (st != FAKE_FS_OK) {
      sbio__fake_io_printf(&sh->out, io, 2, "mkdir: cannot create directory '%s': %s\n", argv[i],
                           sbio__fake_vcmd_strerror(st));
      status = 1;
    }
  }
  if (!any) {
    sbio__fake_io_printf(&sh->out, io, 2, "mkdir: missing operand\n");
    return 1;
  }
  return status;
}

int sbio__fake_cmd_rm(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  int recursive = 0, force = 0, status = 0, any = 0;
  size_t i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    }
    for (const char *f = argv[i] + 1; *f; f++) {
      if (*f == 'r' || *f == 'R')
        recursive = 1;
      else if (*f == 'f')
        force = 1;
      else {
        sbio__fake_io_printf(&sh->out, io, 2, "rm: invalid option -- '%c'\n", *f);
        return 1;
      }
    }
  }
  for (; i < argc; i++) {
    any = 1;
    char *path = resolve(sh, argv[i]);
    fake_memfs_status st = FAKE_FS_ENOENT;
    if (path) {
      pthread_mutex_lock(&sh->box->mu);
      st = sbio__fake_memfs_remove(sh->box->fs, path, recursive);
      pthread_mutex_unlock(&sh->box->mu);
    }
    free(path);
    if (st == FAKE_FS_OK || (st == FAKE_FS_ENOENT && force)) continue;
    if (st == FAKE_FS_EPERM)
      sbio__fake_io_printf(&sh->out, io, 2, "rm: refusing to remove '%s'\n", argv[i]);
    else
      sbio__fake_io_printf(&sh->out, io, 2, "rm: cannot remove '%s': %s\n", argv[i], sbio__fake_vcmd_strerror(st));
    status = 1;
  }
  if (!any && !force) {
    sbio__fake_io_printf(&sh->out, io, 2, "rm: missing operand\n");
    return 1;
  }
  return status;
}

/* -e/-f/-d/-s on a path: 1 true, 0 false. */
static int test_path(fake_vsh *sh, char op, const char *arg) {
  char *path = resolve(sh, arg);
  if (!path) return 0;
  int is_dir = 0;
  size_t size = 0;
  pthread_mutex_lock(&sh->box->mu);
  fake_memfs_status st = sbio__fake_memfs_stat(sh->box->fs, path, &is_dir, &size);
  pthread_mutex_unlock(&sh->box->mu);
  free(path);
  if (st != FAKE_FS_OK) return 0;
  return op == 'e' || (op == 'f' && !is_dir) || (op == 'd' && is_dir) || (op == 's' && size > 0);
}

static int parse_int(const char *s, long long *out) {
  char *end;
  errno = 0;
  *out = strtoll(s, &end, 10);
  return end != s && !*end && !errno;
}

/* Evaluates a test expression: 1 true, 0 false, -1 unsupported. */
static int test_eval(fake_vsh *sh, size_t n, const char *const *a) {
  if (n == 0) return 0;
  if (n == 1) return a[0][0] != '\0';
  if (n == 2 && a[0][0] == '-' && a[0][1] && !a[0][2]) {
    char op = a[0][1];
    if (op == 'n') return a[1][0] != '\0';
    if (op == 'z') return a[1][0] == '\0';
    if (strchr("efds", op)) return test_path(sh, op, a[1]);
  }
  if (n == 3) {
    if (strcmp(a[1], "=") == 0 || strcmp(a[1], "==") == 0) return strcmp(a[0], a[2]) == 0;
    if (strcmp(a[1], "!=") == 0) return strcmp(a[0], a[2]) != 0;
    static const char *const ops[] = {"-eq", "-ne", "-lt", "-le", "-gt", "-ge"};
    long long x, y;
    for (int k = 0; k < 6; k++) {
      if (strcmp(a[1], ops[k]) != 0) continue;
      if (!parse_int(a[0], &x) || !parse_int(a[2], &y)) return -1;
      int r[] = {x == y, x != y, x<y, x <= y, x> y, x >= y};
      return r[k];
    }
  }
  return -1;
}

/* test EXPR | [ EXPR ] with EXPR one of: STRING, -n/-z STRING, -e/-f/-d/-s
 * PATH, A =/!= B, A -eq/-ne/-lt/-le/-gt/-ge B, each optionally after "!". */
int sbio__fake_cmd_test(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  size_t n = argc - 1;
  const char *const *a = argv + 1;
  if (strcmp(argv[0], "[") == 0) {
    if (n == 0 || strcmp(a[n - 1], "]") != 0) {
      sbio__fake_io_printf(&sh->out, io, 2, "[: missing ']'\n");
      return 2;
    }
    n--;
  }
  int negate = 0;
  if (n > 1 && strcmp(a[0], "!") == 0) {
    negate = 1;
    a++;
    n--;
  }
  int r = test_eval(sh, n, a);
  if (r < 0) {
    sbio__fake_io_printf(&sh->out, io, 2, "test: unsupported expression\n");
    return 2;
  }
  return (r ^ negate) ? 0 : 1;
}
