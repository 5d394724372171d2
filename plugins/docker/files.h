/* SPDX-License-Identifier: MIT */
/* Helpers shared by files_rw.c and files_dir.c. */
#ifndef SBIO_DOCKER_FILES_H
#define SBIO_DOCKER_FILES_H

#include "api.h"
#include "paths.h"

typedef struct dk_stat {
  int exists;
  int is_dir, is_link;
  int64_t size;
  char link_target[DK_PATH_MAX];
} dk_stat;

/* HEAD /archive: what is at `abs`. A missing path is exists = 0, not an
 * error; a missing container is SBIO_E_GONE. */
int sbio__dk_stat(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, dk_stat *st, sbio_bk_error *err);
/* Errors of the archive endpoints: 404 "No such container" is SBIO_E_GONE,
 * another 404 is SBIO_E_PATH_NOT_FOUND naming `abs`, the rest SBIO_E_FS. */
int sbio__dk_archive_fail(dk_sandbox *sb, const sbio_sdk_http_response *resp, const char *abs, const char *what,
                          sbio_bk_error *err);
/* SBIO_OK once libarchive is loaded (archive_load.h), or SBIO_E_FS saying
 * why it cannot be: the tar-based operations check it first. */
int sbio__dk_archive_ready(sbio_bk_error *err);
/* Runs argv in the sandbox (no shell), collecting stdout (at most `cap`
 * bytes) and stderr; exit code into *status. */
int sbio__dk_run_capture(dk_sandbox *sb, const char *const *argv, size_t argc, const sbio_bk_call *call, size_t cap,
                         char **out, size_t *out_len, char *errbuf, size_t errsize, int *status, sbio_bk_error *err);

/* Same as run_capture, for a prepared request (stdin); stdout is dropped. */
int sbio__dk_run_capture_req(dk_sandbox *sb, sbio_bk_exec_req *req, const sbio_bk_call *call, char *errbuf,
                             size_t errsize, int *status, sbio_bk_error *err);
/* The list loop (prints "type size name\0" per entry of "$1"). */
const char *sbio__dk_list_script(void);

/* files_exec.c: the same operations run inside the sandbox, for runtimes
 * whose view of the files the archive endpoints do not share (runsc). */
int sbio__dk_files_via_exec(const dk_sandbox *sb);
int sbio__dk_xfile_read(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                        sbio_bk_error *err);
int sbio__dk_xfile_write(dk_sandbox *sb, const char *abs, const void *data, size_t len, const sbio_bk_call *call,
                         sbio_bk_error *err);
/* Raw listing output (records "type size name\0"), malloc'd into *out. */
int sbio__dk_xfile_list(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, char **out, size_t *len,
                        sbio_bk_error *err);
int sbio__dk_xfile_mkdir(dk_sandbox *sb, const char *abs, int parents, const sbio_bk_call *call, sbio_bk_error *err);
int sbio__dk_xfile_remove(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, sbio_bk_error *err);

#endif
