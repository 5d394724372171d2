/* SPDX-License-Identifier: MIT */
/* list, mkdir, remove.
 * - mkdir uploads a tar of the missing directories into the deepest one
 *   that exists (archive endpoint: no program needed in the image).
 * - list and remove run programs in the sandbox (the archive endpoint would
 *   send a directory's whole content): list a small /bin/sh loop printing
 *   "type size name\0" per entry, remove `rm -rf -- PATH` after a stat. So
 *   the image needs sh, stat and rm for these two; docs/backends/docker.md
 *   says so. */
#include "files.h"

#include "engine.h"
#include "tarhdr.h"

#include <stdlib.h>
#include <string.h>

#define LIST_CAP ((size_t)64 << 20)

static const char list_script[] =
    "cd -- \"$1\" || exit 3; for f in * .[!.]* ..?*; do "
    "if [ ! -e \"$f\" ] && [ ! -L \"$f\" ]; then continue; fi; "
    "if [ -d \"$f\" ] && [ ! -L \"$f\" ]; then printf 'd 0 %s\\000' \"$f\"; "
    "else printf 'f %s %s\\000' \"$(stat -c %s -- \"$f\" 2>/dev/null || echo 0)\" \"$f\"; fi; done";

typedef struct capture {
  char *out;
  size_t len, cap, limit;
  int over;
  char *err;
  size_t err_len, err_size;
} capture;

static void on_output(void *user, int stream, const char *data, size_t len) {
  capture *c = user;
  if (stream == 2) {
    size_t k = c->err_size - 1 - c->err_len;
    if (k > len) k = len;
    memcpy(c->err + c->err_len, data, k);
    c->err_len += k;
    c->err[c->err_len] = '\0';
    return;
  }
  if (c->over || len > c->limit - c->len) {
    c->over = 1;
    return;
  }
  if (c->len + len + 1 > c->cap) {
    size_t ncap = c->cap ? c->cap : 4096;
    while (ncap < c->len + len + 1) ncap *= 2;
    char *p = realloc(c->out, ncap);
    if (!p) {
      c->over = 1;
      return;
    }
    c->out = p;
    c->cap = ncap;
  }
  memcpy(c->out + c->len, data, len);
  c->len += len;
  c->out[c->len] = '\0';
}

const char *sbio__dk_list_script(void) {
  return list_script;
}

int sbio__dk_run_capture_req(dk_sandbox *sb, sbio_bk_exec_req *req, const sbio_bk_call *call, char *errbuf,
                             size_t errsize, int *status, sbio_bk_error *err) {
  capture c = {.limit = 0, .err = errbuf, .err_size = errsize};
  errbuf[0] = '\0';
  req->output = on_output;
  req->output_user = &c;
  int rc = sbio__dk_op_exec(sb, req, call, status, err);
  free(c.out);
  return rc;
}

int sbio__dk_run_capture(dk_sandbox *sb, const char *const *argv, size_t argc, const sbio_bk_call *call, size_t cap,
                         char **out, size_t *out_len, char *errbuf, size_t errsize, int *status, sbio_bk_error *err) {
  capture c = {.limit = cap, .err = errbuf, .err_size = errsize};
  errbuf[0] = '\0';
  sbio_bk_exec_req req = {.size = sizeof req, .argv = argv, .argc = argc, .output = on_output, .output_user = &c};
  int rc = sbio__dk_op_exec(sb, &req, call, status, err);
  if (rc == SBIO_OK && c.over) rc = sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: the listing is too large");
  if (rc != SBIO_OK || !out) {
    free(c.out);
    return rc;
  }
  *out = c.out;
  *out_len = c.len;
  return SBIO_OK;
}

/* Why one "TYPE SIZE NAME" record of the list script is not one, or NULL.
 * TYPE is d or f, SIZE decimal digits that fit int64_t, NAME what a glob
 * in one directory can give: not empty, not "." or "..", no '/' (a name
 * that is a path would make the entry's path point elsewhere). */
static const char *list_record_error(const char *rec) {
  if ((rec[0] != 'd' && rec[0] != 'f') || rec[1] != ' ') return "its type is not 'd' or 'f'";
  const char *size = rec + 2;
  size_t digits = strspn(size, "0123456789");
  if (!digits || size[digits] != ' ') return "its size is not a decimal number";
  if (digits > 18) return "its size is out of range";
  const char *name = size + digits + 1;
  if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..")) return "its name is empty, '.' or '..'";
  if (strchr(name, '/')) return "its name has a '/'";
  return NULL;
}

/* The exec's own failure codes become file-system ones. */
static int fs_code(int rc) {
  return rc == SBIO_E_EXEC ? SBIO_E_FS : rc;
}

int sbio__dk_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                          void *user, sbio_bk_error *err) {
  dk_sandbox *sb = sandbox;
  if (!sb || !call || !entry)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker list: missing argument");
  char abs[DK_PATH_MAX];
  dk_stat st;
  int rc = sbio__dk_path_resolve(path, abs, sizeof abs, err);
  if (rc == SBIO_OK) rc = sbio__dk_engine_ready(sb->inst, call, SBIO_E_FS, err);
  if (rc != SBIO_OK) return rc;
  char *out = NULL;
  size_t len = 0;
  if (sbio__dk_files_via_exec(sb)) {
    rc = sbio__dk_xfile_list(sb, abs, call, &out, &len, err);
    if (rc != SBIO_OK) return rc;
  } else {
    rc = sbio__dk_stat(sb, abs, call, &st, err);
    if (rc != SBIO_OK) return rc;
    if (!st.exists)
      return sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, NULL, "docker: list: no such directory: %.400s", abs);
    if (!st.is_dir && !st.is_link)
      return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: list %.400s: not a directory", abs);
    const char *argv[] = {"/bin/sh", "-c", list_script, "sbio-ls", abs};
    char errbuf[512];
    int status = 0;
    rc = sbio__dk_run_capture(sb, argv, 5, call, LIST_CAP, &out, &len, errbuf, sizeof errbuf, &status, err);
    if (rc != SBIO_OK) return fs_code(rc);
    if (status != 0) {
      free(out);
      return sbio_sdk_error(err, SBIO_E_FS, "the image needs /bin/sh and stat for listing",
                            "docker: list %.400s failed (exit %d): %.200s", abs, status, errbuf);
    }
  }
  /* Checked whole before any entry is given: the output comes from
   * programs in the image (sh, stat), which the sandbox's owner may have
   * replaced, through the engine. */
  size_t n_rec = 0;
  const char *bad = NULL;
  for (size_t i = 0; i < len && !bad; n_rec++) {
    size_t rlen = strnlen(out + i, len - i);
    bad = i + rlen == len ? "a record is not NUL-terminated" : list_record_error(out + i);
    i += rlen + 1;
  }
  if (bad) {
    free(out);
    return sbio_sdk_error(err, SBIO_E_FS, "the image's /bin/sh or stat may not be the standard ones",
                          "docker: list %.400s: the listing is malformed (record %zu: %s)", abs, n_rec, bad);
  }
  char full[DK_PATH_MAX * 2 + 2];
  for (size_t i = 0; i < len;) {
    char *rec = out + i;
    i += strlen(rec) + 1;
    char *sp1 = strchr(rec, ' ');
    char *sp2 = strchr(sp1 + 1, ' ');
    const char *name = sp2 + 1;
    snprintf(full, sizeof full, "%s%s%s", abs, strcmp(abs, "/") ? "/" : "", name);
    sbio_bk_dirent d = {
        .size = sizeof d, .name = name, .path = full, .bytes = strtoll(sp1 + 1, NULL, 10), .is_dir = rec[0] == 'd'};
    entry(user, &d);
  }
  free(out);
  return SBIO_OK;
}

typedef struct buffer_src {
  const unsigned char *p;
  size_t len, off;
} buffer_src;

static long read_buffer(void *user, char *buf, size_t size) {
  buffer_src *b = user;
  size_t k = size < b->len - b->off ? size : b->len - b->off;
  memcpy(buf, b->p + b->off, k);
  b->off += k;
  return (long)k;
}

static int rewind_buffer(void *user) {
  ((buffer_src *)user)->off = 0;
  return 0;
}

int sbio__dk_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err) {
  dk_sandbox *sb = sandbox;
  if (!sb || !call) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker mkdir: missing argument");
  char abs[DK_PATH_MAX], dir[DK_PATH_MAX], base[DK_PATH_MAX];
  dk_stat st;
  int rc = sbio__dk_path_resolve(path, abs, sizeof abs, err);
  if (rc == SBIO_OK) rc = sbio__dk_engine_ready(sb->inst, call, SBIO_E_FS, err);
  if (rc == SBIO_OK && sbio__dk_files_via_exec(sb)) return sbio__dk_xfile_mkdir(sb, abs, parents, call, err);
  if (rc == SBIO_OK) rc = sbio__dk_stat(sb, abs, call, &st, err);
  if (rc != SBIO_OK) return rc;
  if (st.exists && st.is_dir && parents) return SBIO_OK;
  if (st.exists) return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: mkdir %.400s: it already exists", abs);
  /* Walk up to the deepest existing ancestor. */
  char anc[DK_PATH_MAX];
  snprintf(anc, sizeof anc, "%s", abs);
  size_t missing = 1;
  for (;;) {
    sbio__dk_path_split(anc, dir, sizeof dir, base, sizeof base);
    snprintf(anc, sizeof anc, "%s", dir);
    rc = sbio__dk_stat(sb, anc, call, &st, err);
    if (rc != SBIO_OK) return rc;
    if (st.exists) break;
    if (!parents)
      return sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, "pass parents to create the missing directories",
                            "docker: mkdir %.400s: the directory %.400s does not exist", abs, anc);
    missing++;
  }
  if (!st.is_dir)
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: mkdir %.400s: %.400s is not a directory", abs, anc);
  /* The tar holds "a/", "a/b/", ... relative to the ancestor. */
  const char *rel = abs + strlen(anc) + (strcmp(anc, "/") ? 1 : 0);
  char **names = calloc(missing, sizeof *names);
  if (!names) return sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "out of memory");
  size_t n = 0;
  for (const char *p = rel; n < missing; p++) {
    if (*p == '/' || *p == '\0') {
      names[n] = malloc((size_t)(p - rel) + 2);
      if (!names[n]) break;
      snprintf(names[n], (size_t)(p - rel) + 2, "%.*s/", (int)(p - rel), rel);
      n++;
    }
    if (!*p) break;
  }
  unsigned char *tar = NULL;
  size_t tar_len = 0;
  if (rc == SBIO_OK) rc = sbio__dk_archive_ready(err);
  if (rc == SBIO_OK && (n != missing || sbio__dk_tar_dirs((const char *const *)names, n, &tar, &tar_len) != 0))
    rc = sbio_sdk_error(err, SBIO_E_INTERNAL, NULL, "docker: could not build the tar for mkdir");
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  if (rc != SBIO_OK) return rc;
  char url[DK_PATH_MAX * 3 + 200];
  sbio__dk_archive_url(sb->id, anc, "noOverwriteDirNonDir=true", url, sizeof url);
  buffer_src src = {tar, tar_len, 0};
  sbio_sdk_http_request req = {.method = "PUT",
                               .path = url,
                               .content_type = "application/x-tar",
                               .read = read_buffer,
                               .rewind = rewind_buffer,
                               .read_user = &src,
                               .read_len = (int64_t)tar_len};
  sbio_sdk_http_response resp;
  char what[DK_PATH_MAX + 16];
  snprintf(what, sizeof what, "mkdir %.400s", abs);
  if (sbio__dk_request(sb->inst, &req, call, &resp) != 0 || resp.status != 200)
    rc = sbio__dk_archive_fail(sb, &resp, anc, what, err);
  else
    rc = SBIO_OK;
  sbio_sdk_http_response_free(&resp);
  free(tar);
  return rc;
}

int sbio__dk_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  dk_sandbox *sb = sandbox;
  if (!sb || !call) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "docker remove: missing argument");
  char abs[DK_PATH_MAX];
  dk_stat st;
  int rc = sbio__dk_path_resolve(path, abs, sizeof abs, err);
  if (rc == SBIO_OK && !strcmp(abs, "/"))
    rc = sbio_sdk_error(err, SBIO_E_FS, NULL, "docker: refusing to remove the sandbox's root directory");
  if (rc == SBIO_OK) rc = sbio__dk_engine_ready(sb->inst, call, SBIO_E_FS, err);
  if (rc == SBIO_OK && sbio__dk_files_via_exec(sb)) return sbio__dk_xfile_remove(sb, abs, call, err);
  if (rc == SBIO_OK) rc = sbio__dk_stat(sb, abs, call, &st, err);
  if (rc != SBIO_OK) return rc;
  if (!st.exists)
    return sbio_sdk_error(err, SBIO_E_PATH_NOT_FOUND, NULL, "docker: remove: no such file or directory: %.400s", abs);
  const char *argv[] = {"rm", "-rf", "--", abs};
  char errbuf[512];
  int status = 0;
  rc = sbio__dk_run_capture(sb, argv, 4, call, 0, NULL, NULL, errbuf, sizeof errbuf, &status, err);
  if (rc != SBIO_OK) return fs_code(rc);
  if (status != 0)
    return sbio_sdk_error(err, SBIO_E_FS, "the image needs rm for removing files",
                          "docker: remove %.400s failed (exit %d): %.200s", abs, status, errbuf);
  return SBIO_OK;
}
