/* SPDX-License-Identifier: MIT */
#include "vcmds.h"

#include <string.h>

static const struct {
  const char *name;
  fake_cmd_fn fn;
} builtins[] = {
    {"echo", sbio__fake_cmd_echo},
    {"true", sbio__fake_cmd_true},
    {":", sbio__fake_cmd_true},
    {"false", sbio__fake_cmd_false},
    {"printenv", sbio__fake_cmd_printenv},
    {"env", sbio__fake_cmd_env},
    {"seq", sbio__fake_cmd_seq},
    {"sleep", sbio__fake_cmd_sleep},
    {"pwd", sbio__fake_cmd_pwd},
    {"cd", sbio__fake_cmd_cd},
    {"exit", sbio__fake_cmd_exit},
    {"sh", sbio__fake_cmd_sh},
    {"bash", sbio__fake_cmd_sh},
    {"cat", sbio__fake_cmd_cat},
    {"ls", sbio__fake_cmd_ls},
    {"mkdir", sbio__fake_cmd_mkdir},
    {"rm", sbio__fake_cmd_rm},
    {"test", sbio__fake_cmd_test},
    {"[", sbio__fake_cmd_test},
    {"curl", sbio__fake_cmd_fetch},
    {"wget", sbio__fake_cmd_fetch},
};

fake_cmd_fn sbio__fake_vcmd_find(const char *name) {
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++) {
    if (strcmp(builtins[i].name, name) == 0) return builtins[i].fn;
  }
  return NULL;
}

const char *sbio__fake_vcmd_strerror(int memfs_status) {
  switch ((fake_memfs_status)memfs_status) {
  case FAKE_FS_OK:
    return "Success";
  case FAKE_FS_ENOENT:
    return "No such file or directory";
  case FAKE_FS_EEXIST:
    return "File exists";
  case FAKE_FS_EISDIR:
    return "Is a directory";
  case FAKE_FS_ENOTDIR:
    return "Not a directory";
  case FAKE_FS_EPERM:
    return "Operation not permitted";
  case FAKE_FS_ENOSPC:
    return "No space left on device";
  case FAKE_FS_ENOMEM:
    return "Cannot allocate memory";
  }
  return "Unknown error";
}

int sbio__fake_vcmd_write(fake_vsh *sh, const fake_io *io, int fd, const char *name, const void *data, size_t len) {
  int st = sbio__fake_io_write(&sh->out, io, fd, data, len);
  if (st == 0) return 0;
  sbio__fake_io_printf(&sh->out, io, 2, "%s: write error: %s\n", name, sbio__fake_vcmd_strerror(st));
  return 1;
}
