/* SPDX-License-Identifier: MIT */
/* Files through programs run in the sandbox, for runtimes other than runc.
 *
 * Under runsc the archive endpoints see the host's copy of the root
 * filesystem, not the sandbox's: gVisor caches it (OBSERVED: a file
 * overwritten through PUT /archive still read the old bytes inside) and
 * mounts its own tmpfs on /tmp, which the archive API cannot see at all.
 * So there every file operation runs inside the sandbox, where its view is
 * the truth: `cat` streams a file out (binary-safe, straight to the sink),
 * `cat > PATH` takes it in through stdin, and sh/mkdir/rm do the rest. The
 * image needs /bin/sh, cat, mkdir, rm and stat. */
#include "files.h"

#include "engine.h"

#include <stdlib.h>
#include <string.h>

/* Exit codes of the scripts below. */
enum { X_MISSING = 72, X_NOT_DIR = 73, X_IS_DIR = 74, X_EXISTS = 75 };

static const char read_script[] = "[ -e \"$1\" ] || exit 72; [ -d \"$1\" ] && exit 74; exec cat -- \"$1\"";
static const char write_script[] = "[ -d \"$2\" ] || exit 72; [ -d \"$1\" ] && exit 74; exec cat > \"$1\"";
static const char mkdir_script[] = "if [ -e \"$1\" ]; then [ -d \"$1\" ] && [ \"$2\" = p ] && exit 0; exit 75; fi; "
                                   "if [ \"$2\" = p ]; then exec mkdir -p -- \"$1\"; fi; "
                                   "[ -d \"$3\" ] || exit 72; exec mkdir -- \"$1\"";
static const char remove_script[] = "[ -e \"$1\" ] || [ -L \"$1\" ] || exit 72; exec rm -rf -- \"$1\"";

int sbio__dk_files_via_exec(const dk_sandbox *sb) {
  return strcmp(sb->mechanism, "runc") != 0;
}

typedef struct read_ctx {
  sbio_bk_data_fn sink;
  void *user;
  int stopped;
  char err[512];
  size_t err_len;
} read_ctx;

static void on_read(void *user, int stream, const char *data, size_t len) {
  read_ctx *c = user;
  if (stream == 2) {
    size_t k = sizeof c->err - 1 - c->err_len;
    if (k > len) k = len;
    memcpy(c->err + c->err_len, data, k);
    c->err_len += k;
    c->err[c->err_len] = '\0';
    return;
  }
  /* Once the caller said stop, the rest is drained unseen. */
  if (!c->stopped && c->sink(c->user, data, len) != 0) c->stopped = 1;
}

/* Maps a script's exit status to the catalogue. */
static int status_error(int status, const char *op, const char *abs, const char *dir, const char *stderr_text,
                        sbio_bk_error *err) {
  switch (status) {
  case X_MISSING:
    return sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, NULL, "docker: %s: no such file or directory: %.400s", op,
                          dir ? dir : abs);
  case X_NOT_DIR:
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: %s %.400s: not a directory", op, abs);
  case X_IS_DIR:
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: %s %.400s: it is a directory", op, abs);
  case X_EXISTS:
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: %s %.400s: it already exists", op, abs);
  default:
    break;
  }
  return sbio_sdk_error(err, SBIO_E_FS, "the image needs /bin/sh, cat, mkdir, rm and stat for file operations",
                        "docker: %s %.400s failed (exit %d): %.200s", op, abs, status, stderr_text);
}

static int exec_code(int rc) {
  return rc == SBIO_E_EXEC ? SBIO_E_FS : rc;
}

int sbio__dk_xfile_read(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                        sbio_bk_error *err) {
  const char *argv[] = {"/bin/sh", "-c", read_script, "sbio-read", abs};
  read_ctx c = {.sink = sink, .user = user};
  sbio_bk_exec_req req = {.size = sizeof req, .argv = argv, .argc = 5, .output = on_read, .output_user = &c};
  int status = 0;
  int rc = sbio__dk_op_exec(sb, &req, call, &status, err);
  if (rc != SBIO_OK) return exec_code(rc);
  if (status != 0 && !c.stopped) return status_error(status, "read", abs, NULL, c.err, err);
  return SBIO_OK;
}

int sbio__dk_xfile_write(dk_sandbox *sb, const char *abs, const void *data, size_t len, const sbio_bk_call *call,
                         sbio_bk_error *err) {
  char dir[DK_PATH_MAX], base[DK_PATH_MAX];
  sbio__dk_path_split(abs, dir, sizeof dir, base, sizeof base);
  const char *argv[] = {"/bin/sh", "-c", write_script, "sbio-write", abs, dir};
  char errbuf[512];
  int status = 0;
  sbio_bk_exec_req req = {
      .size = sizeof req, .argv = argv, .argc = 6, .has_stdin = 1, .stdin_data = data, .stdin_len = len};
  int rc = sbio__dk_run_capture_req(sb, &req, call, errbuf, sizeof errbuf, &status, err);
  if (rc != SBIO_OK) return exec_code(rc);
  if (status != 0) return status_error(status, "write", abs, status == X_MISSING ? dir : NULL, errbuf, err);
  return SBIO_OK;
}

int sbio__dk_xfile_list(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, char **out, size_t *len,
                        sbio_bk_error *err) {
  const char *argv[] = {"/bin/sh", "-c", NULL, "sbio-ls", abs};
  char *script = NULL;
  const char *body = sbio__dk_list_script();
  size_t n = strlen(body) + 64;
  script = malloc(n);
  if (!script) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  snprintf(script, n, "[ -e \"$1\" ] || exit 72; [ -d \"$1\" ] || exit 73; %s", body);
  argv[2] = script;
  char errbuf[512];
  int status = 0;
  int rc = sbio__dk_run_capture(sb, argv, 5, call, (size_t)64 << 20, out, len, errbuf, sizeof errbuf, &status, err);
  free(script);
  if (rc != SBIO_OK) return exec_code(rc);
  if (status != 0) {
    free(*out);
    *out = NULL;
    return status_error(status, "list", abs, NULL, errbuf, err);
  }
  return SBIO_OK;
}

int sbio__dk_xfile_mkdir(dk_sandbox *sb, const char *abs, int parents, const sbio_bk_call *call, sbio_bk_error *err) {
  char dir[DK_PATH_MAX], base[DK_PATH_MAX];
  sbio__dk_path_split(abs, dir, sizeof dir, base, sizeof base);
  const char *argv[] = {"/bin/sh", "-c", mkdir_script, "sbio-mkdir", abs, parents ? "p" : "-", dir};
  char errbuf[512];
  int status = 0;
  int rc = sbio__dk_run_capture(sb, argv, 7, call, 0, NULL, NULL, errbuf, sizeof errbuf, &status, err);
  if (rc != SBIO_OK) return exec_code(rc);
  if (status != 0) return status_error(status, "mkdir", abs, status == X_MISSING ? dir : NULL, errbuf, err);
  return SBIO_OK;
}

int sbio__dk_xfile_remove(dk_sandbox *sb, const char *abs, const sbio_bk_call *call, sbio_bk_error *err) {
  const char *argv[] = {"/bin/sh", "-c", remove_script, "sbio-rm", abs};
  char errbuf[512];
  int status = 0;
  int rc = sbio__dk_run_capture(sb, argv, 5, call, 0, NULL, NULL, errbuf, sizeof errbuf, &status, err);
  if (rc != SBIO_OK) return exec_code(rc);
  if (status != 0) return status_error(status, "remove", abs, NULL, errbuf, err);
  return SBIO_OK;
}
