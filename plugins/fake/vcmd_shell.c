/* SPDX-License-Identifier: MIT */
/* Builtins about the shell itself: pwd, cd, exit, sh/bash. */
#include "vcmds.h"

#include "fspath.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sbio__fake_cmd_pwd(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  (void)argc, (void)argv;
  return sbio__fake_io_printf(&sh->out, io, 1, "%s\n", sh->cwd) ? 1 : 0;
}

int sbio__fake_cmd_cd(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  const char *target = argc > 1 ? argv[1] : FAKE_WORKDIR; /* the fake's HOME is its work dir */
  char *path = NULL;
  int is_dir = 0;
  if (sbio__fake_path_resolve(sh->cwd, target, &path) == FAKE_PATH_OK) {
    pthread_mutex_lock(&sh->box->mu);
    if (sbio__fake_memfs_stat(sh->box->fs, path, &is_dir, NULL) != FAKE_FS_OK) is_dir = 0;
    pthread_mutex_unlock(&sh->box->mu);
  }
  if (!is_dir) {
    sbio__fake_io_printf(&sh->out, io, 2, "fake: cd: can't cd to %s\n", target);
    free(path);
    return 2;
  }
  free(sh->cwd);
  sh->cwd = path;
  return 0;
}

int sbio__fake_cmd_exit(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  sh->exiting = 1;
  if (argc < 2) return sh->status;
  char *end;
  errno = 0;
  long n = strtol(argv[1], &end, 10);
  if (end == argv[1] || *end || errno) {
    sbio__fake_io_printf(&sh->out, io, 2, "fake: exit: Illegal number: %s\n", argv[1]);
    return 2;
  }
  return (int)((unsigned long)n & 255);
}

/* A script file from the sandbox's filesystem, NUL-terminated, or NULL. */
static char *read_script(fake_vsh *sh, const char *name) {
  char *path = NULL, *text = NULL;
  if (sbio__fake_path_resolve(sh->cwd, name, &path) != FAKE_PATH_OK) return NULL;
  const unsigned char *data;
  size_t len;
  pthread_mutex_lock(&sh->box->mu);
  if (sbio__fake_memfs_read(sh->box->fs, path, &data, &len) == FAKE_FS_OK && (text = malloc(len + 1))) {
    if (len) memcpy(text, data, len);
    text[len] = '\0'; /* a NUL inside ends the script, as it would for sh */
  }
  pthread_mutex_unlock(&sh->box->mu);
  free(path);
  return text;
}

/* sh [-OPTIONS] -c SCRIPT [NAME ARGS...] | sh FILE | sh (script on stdin) */
int sbio__fake_cmd_sh(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv) {
  size_t i = 1;
  int has_c = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    }
    if (argv[i][1] != '-' && strchr(argv[i], 'c')) has_c = 1;
  }
  if (has_c) {
    if (i >= argc) {
      sbio__fake_io_printf(&sh->out, io, 2, "%s: -c: option requires an argument\n", argv[0]);
      return 2;
    }
    return sbio__fake_vsh_subshell(sh, io, argv[i]);
  }
  char *script;
  if (i < argc) {
    script = read_script(sh, argv[i]);
    if (!script) {
      sbio__fake_io_printf(&sh->out, io, 2, "%s: cannot open %s: No such file\n", argv[0], argv[i]);
      return 127;
    }
  } else {
    fake_stdin *in = sh->in;
    size_t len = (in && !in->used) ? in->len : 0;
    script = malloc(len + 1);
    if (!script) return 2;
    if (len) memcpy(script, in->data, len);
    script[len] = '\0';
    if (in) in->used = 1;
  }
  int status = sbio__fake_vsh_subshell(sh, io, script);
  free(script);
  return status;
}
