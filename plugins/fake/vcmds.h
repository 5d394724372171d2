/* SPDX-License-Identifier: MIT */
/* The virtual shell's builtin commands. Each takes the shell, the file
 * descriptors it writes to and its words, and returns an exit status; a
 * command that waits (sleep, long output) checks sbio__fake_vsh_should_stop
 * and returns 137 when the exec must end. */
#ifndef SBIO_FAKE_VCMDS_H
#define SBIO_FAKE_VCMDS_H

#include "vshell.h"

#include <stddef.h>

typedef int (*fake_cmd_fn)(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);

/* NULL when `name` is not a builtin (the shell then answers 127). */
fake_cmd_fn sbio__fake_vcmd_find(const char *name);
/* The message a shell would print for a fake_memfs_status. */
const char *sbio__fake_vcmd_strerror(int memfs_status);
/* Writes to fd 1 or 2; on failure (a full filesystem behind a redirect)
 * reports "NAME: write error: ..." on fd 2 and returns 1. */
int sbio__fake_vcmd_write(fake_vsh *sh, const fake_io *io, int fd, const char *name, const void *data, size_t len);

/* vcmd_basic.c */
int sbio__fake_cmd_true(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_false(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_echo(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_printenv(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_env(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_seq(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_sleep(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
/* vcmd_shell.c */
int sbio__fake_cmd_pwd(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_cd(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_exit(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_sh(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
/* vcmd_fs.c */
int sbio__fake_cmd_cat(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_ls(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_mkdir(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_rm(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
int sbio__fake_cmd_test(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);
/* vcmd_net.c */
int sbio__fake_cmd_fetch(fake_vsh *sh, const fake_io *io, size_t argc, const char *const *argv);

#endif
