/* SPDX-License-Identifier: MIT */
/* Files: round trips, relative paths shared with exec, directories,
 * missing paths, and the host's filesystem staying out of reach. Paths are
 * relative (the backend's work directory) so they hold on every provider. */
#include "cases.h"
#include "probes.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct blob {
  unsigned char *data;
  size_t len;
  sbio_code rc;
} blob;

static blob read_file(kit_case *c, sbio_sandbox *sb, const char *path, sbio_error *err) {
  blob b = {NULL, 0, SBIO_OK};
  b.rc = sbio_file_read(sb, path, 0, &b.data, &b.len, err);
  kit_defer_free(c, sbio_free, b.data);
  return b;
}

/* Writes then reads back; fails the case on any difference. */
static int round_trip(kit_case *c, sbio_sandbox *sb, const char *path, const void *data, size_t len, const char *what) {
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_file_write(sb, path, data, len, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "writing %s to %s failed: %s", what, path, kit_err_text(c, rc, err));
    return 0;
  }
  blob b = read_file(c, sb, path, err);
  if (b.rc != SBIO_OK) {
    kit_fail(c, "reading %s back from %s failed: %s", what, path, kit_err_text(c, b.rc, err));
    return 0;
  }
  if (b.len != len || (len && memcmp(b.data, data, len) != 0)) {
    size_t at = 0;
    while (at < len && at < b.len && b.data[at] == ((const unsigned char *)data)[at]) at++;
    kit_fail(c, "%s changed on the way: wrote %zu bytes, read %zu, first difference at byte %zu", what, len, b.len, at);
    return 0;
  }
  return 1;
}

void kit_files_round_trip(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  static const char text[] = "h\xc3\xa9llo\n"; /* "héllo\n" in UTF-8 */
  if (!round_trip(c, sb, kit_probe_name(c, "text.txt"), text, sizeof text - 1, "UTF-8 text")) return;
  unsigned char bin[1024];
  for (size_t i = 0; i < sizeof bin; i++) bin[i] = (unsigned char)(i & 0xff);
  const char *path = kit_probe_name(c, "all-bytes.bin");
  if (!round_trip(c, sb, path, bin, sizeof bin, "1024 bytes of every value")) return;
  /* Writing replaces: nothing of the longer old content may survive. */
  if (!round_trip(c, sb, path, "short", 5, "a shorter overwrite")) return;
  kit_note(c, "text, every byte value and an overwrite round-tripped");
}

void kit_files_relative_path(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_error *err = kit_err(c);
  const char *name = kit_probe_name(c, "relative.txt");
  sbio_code rc = sbio_file_write(sb, name, "relative\n", 9, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "writing %s failed: %s", name, kit_err_text(c, rc, err));
    return;
  }
  sbio_file_list *l = NULL;
  rc = sbio_file_list_dir(sb, ".", &l, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "listing \".\" failed: %s", kit_err_text(c, rc, err));
    return;
  }
  int listed = 0;
  for (size_t i = 0; i < sbio_file_list_count(l); i++) listed |= strcmp(sbio_file_list_name(l, i), name) == 0;
  sbio_file_list_free(l);
  if (!listed) kit_fail(c, "listing \".\" does not show %s, just written under that relative name", name);
  if (!(c->ctx->caps & SBIO_CAP_RUN_COMMAND)) {
    kit_note(c, "exec side not checked: the backend does not declare run_command");
    return;
  }
  kit_run *r = kit_exec(c, sb, PROBE_CAT(name), NULL, 0);
  kit_expect_output(c, r, kit_fmt(c, "cat %s (written through the file API)", name), "relative\n");
  const char *other = kit_probe_name(c, "from-exec.txt");
  r = kit_exec(c, sb, PROBE_SH(kit_fmt(c, "echo from-exec > %s", other)), NULL, 0);
  if (!kit_run_ok(c, r, "writing a file with exec")) return;
  if (r->exit_code != 0) {
    kit_fail(c, "writing %s with exec exited %d", other, r->exit_code);
    return;
  }
  blob b = read_file(c, sb, other, err);
  if (b.rc != SBIO_OK)
    kit_fail(c, "%s, written by exec, cannot be read through the file API: %s", other, kit_err_text(c, b.rc, err));
  else if (b.len != 10 || memcmp(b.data, "from-exec\n", 10) != 0)
    kit_fail(c, "%s reads back as %s through the file API", other, kit_quote(c, (const char *)b.data, b.len));
}

static void free_list(void *p) {
  sbio_file_list_free(p);
}

/* The entries of a directory, or -1 with the case failed. */
static long list_count(kit_case *c, sbio_sandbox *sb, const char *path, sbio_file_list **out) {
  sbio_error *err = kit_err(c);
  sbio_code rc = sbio_file_list_dir(sb, path, out, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "listing %s failed: %s", path, kit_err_text(c, rc, err));
    return -1;
  }
  kit_defer_free(c, free_list, *out);
  return (long)sbio_file_list_count(*out);
}

void kit_files_ls_mkdir_remove(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_error *err = kit_err(c);
  const char *base = kit_probe_name(c, "d1");
  const char *d2 = kit_fmt(c, "%s/d2", base), *f = kit_fmt(c, "%s/d2/f", base);
  sbio_code rc = sbio_file_mkdir(sb, d2, 1, err);
  if (rc != SBIO_OK) {
    kit_fail(c, "mkdir -p %s failed: %s", d2, kit_err_text(c, rc, err));
    return;
  }
  if ((rc = sbio_file_mkdir(sb, d2, 1, err)) != SBIO_OK)
    kit_fail(c, "mkdir -p of an existing directory failed: %s", kit_err_text(c, rc, err));
  if ((rc = sbio_file_write(sb, f, "x", 1, err)) != SBIO_OK) {
    kit_fail(c, "writing %s failed: %s", f, kit_err_text(c, rc, err));
    return;
  }
  sbio_file_list *l = NULL;
  long n = list_count(c, sb, d2, &l);
  if (n < 0) return;
  if (n != 1 || strcmp(sbio_file_list_name(l, 0), "f") != 0 || sbio_file_list_is_dir(l, 0) ||
      sbio_file_list_size(l, 0) != 1)
    kit_fail(c, "listing %s: expected exactly the 1-byte file \"f\", got %ld entr%s%s%s", d2, n, n == 1 ? "y" : "ies",
             n ? ", first " : "", n ? sbio_file_list_name(l, 0) : "");
  n = list_count(c, sb, base, &l);
  if (n < 0) return;
  if (n != 1 || strcmp(sbio_file_list_name(l, 0), "d2") != 0 || !sbio_file_list_is_dir(l, 0))
    kit_fail(c, "listing %s: expected exactly the directory \"d2\", got %ld entries", base, n);
  if ((rc = sbio_file_remove(sb, f, err)) != SBIO_OK) {
    kit_fail(c, "removing %s failed: %s", f, kit_err_text(c, rc, err));
    return;
  }
  n = list_count(c, sb, d2, &l);
  if (n > 0) kit_fail(c, "%s still lists %ld entries after its only file was removed", d2, n);
  if ((rc = sbio_file_remove(sb, base, err)) != SBIO_OK) {
    kit_fail(c, "removing the tree %s failed: %s", base, kit_err_text(c, rc, err));
    return;
  }
  rc = sbio_file_list_dir(sb, base, &l, err);
  if (rc == SBIO_OK) {
    sbio_file_list_free(l);
    kit_fail(c, "%s can still be listed after it was removed", base);
  }
  const char *deep = kit_fmt(c, "%s/a/b", kit_probe_name(c, "no-parent"));
  rc = sbio_file_mkdir(sb, deep, 0, err);
  if (rc != SBIO_E_PATH_NOT_FOUND)
    kit_fail(c, "mkdir without parents of %s (parent missing): expected SBX_E1701, got %s", deep,
             kit_err_text(c, rc, err));
}

void kit_files_missing_path(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_error *err = kit_err(c);
  const char *missing = kit_probe_name(c, "missing");
  blob b = read_file(c, sb, missing, err);
  if (b.rc != SBIO_E_PATH_NOT_FOUND)
    kit_fail(c, "reading %s: expected SBX_E1701, got %s", missing,
             b.rc == SBIO_OK ? kit_fmt(c, "%zu bytes", b.len) : kit_err_text(c, b.rc, err));
  sbio_file_list *l = NULL;
  sbio_code rc = sbio_file_list_dir(sb, missing, &l, err);
  if (rc == SBIO_OK) sbio_file_list_free(l);
  if (rc != SBIO_E_PATH_NOT_FOUND)
    kit_fail(c, "listing %s: expected SBX_E1701, got %s", missing, kit_err_text(c, rc, err));
  rc = sbio_file_remove(sb, missing, err);
  if (rc != SBIO_E_PATH_NOT_FOUND)
    kit_fail(c, "removing %s: expected SBX_E1701, got %s", missing, kit_err_text(c, rc, err));
  const char *orphan = kit_fmt(c, "%s/file", missing);
  rc = sbio_file_write(sb, orphan, "x", 1, err);
  if (rc != SBIO_E_PATH_NOT_FOUND)
    kit_fail(c, "writing %s (its directory is missing): expected SBX_E1701, got %s", orphan, kit_err_text(c, rc, err));
}

void kit_files_host_paths_never_resolved(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  const char *tmpdir = getenv("TMPDIR");
  if (!tmpdir || tmpdir[0] != '/') tmpdir = "/tmp";
  char *path = kit_fmt(c, "%s/sbio-conformance-host-XXXXXX", tmpdir);
  int fd = mkstemp(path);
  if (fd < 0) {
    kit_skip(c, "cannot create a host file to probe with in %s", tmpdir);
    return;
  }
  char content[64];
  kit_random_hex(content, 16);
  ssize_t w = write(fd, content, strlen(content));
  close(fd);
  if (w != (ssize_t)strlen(content)) {
    unlink(path);
    kit_skip(c, "cannot write the host probe file %s", path);
    return;
  }
  sbio_error *err = kit_err(c);
  blob b = read_file(c, sb, path, err);
  unlink(path);
  if (b.rc == SBIO_OK && b.len == strlen(content) && memcmp(b.data, content, b.len) == 0)
    kit_fail(c, "reading the absolute path %s inside the sandbox returned the host file's contents", path);
  else
    kit_note(c, "%s", b.rc == SBIO_OK ? "a different file" : kit_code(b.rc));
}

void kit_files_undeclared_refused(kit_case *c) {
  sbio_sandbox *sb = kit_create_ok(c, NULL, "create");
  if (!sb) return;
  sbio_error *err = kit_err(c);
  blob b = read_file(c, sb, "anything.txt", err);
  if (b.rc != SBIO_E_CAPABILITY)
    kit_fail(c, "file read without filesystem: expected SBX_E1101, got %s", kit_err_text(c, b.rc, err));
  else if (!strstr(sbio_error_message(err), "filesystem"))
    kit_fail(c, "the refusal does not name filesystem: %s", kit_err_text(c, b.rc, err));
  sbio_code rc = sbio_file_write(sb, "anything.txt", "x", 1, err);
  if (rc != SBIO_E_CAPABILITY)
    kit_fail(c, "file write without filesystem: expected SBX_E1101, got %s", kit_err_text(c, rc, err));
}
