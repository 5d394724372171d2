/* SPDX-License-Identifier: MIT */
#include "tarhdr.h"

#include "archive_load.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct membuf {
  unsigned char *data;
  size_t len, cap;
  int closed; /* ignore what libarchive writes once we have what we need */
} membuf;

static la_ssize_t on_write(struct archive *a, void *user, const void *buf, size_t n) {
  (void)a;
  membuf *m = user;
  if (m->closed) return (la_ssize_t)n;
  if (m->len + n > m->cap) {
    size_t ncap = m->cap ? m->cap : 4096;
    while (ncap < m->len + n) ncap *= 2;
    unsigned char *p = realloc(m->data, ncap);
    if (!p) return -1;
    m->data = p;
    m->cap = ncap;
  }
  memcpy(m->data + m->len, buf, n);
  m->len += n;
  return (la_ssize_t)n;
}

static struct archive *open_writer(const dk_archive_api *ar, membuf *m) {
  struct archive *a = ar->archive_write_new();
  if (!a) return NULL;
  /* Unblocked output: each header reaches on_write at once. */
  if (ar->archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
      ar->archive_write_set_bytes_per_block(a, 0) != ARCHIVE_OK ||
      ar->archive_write_open(a, m, NULL, on_write, NULL) != ARCHIVE_OK) {
    ar->archive_write_free(a);
    return NULL;
  }
  return a;
}

static struct archive_entry *new_entry(const dk_archive_api *ar, const char *name, mode_t type, mode_t perm,
                                       int64_t size) {
  struct archive_entry *e = ar->archive_entry_new();
  if (!e) return NULL;
  ar->archive_entry_set_pathname(e, name);
  ar->archive_entry_set_filetype(e, type);
  ar->archive_entry_set_perm(e, perm);
  ar->archive_entry_set_size(e, size);
  ar->archive_entry_set_mtime(e, time(NULL), 0);
  ar->archive_entry_set_uid(e, 0);
  ar->archive_entry_set_gid(e, 0);
  return e;
}

int sbio__dk_tar_file_header(const char *name, int64_t size, unsigned char **out, size_t *len) {
  const dk_archive_api *ar = sbio__dk_archive(NULL, 0);
  if (!ar) return -1;
  membuf m = {0};
  struct archive *a = open_writer(ar, &m);
  struct archive_entry *e = a ? new_entry(ar, name, AE_IFREG, 0644, size) : NULL;
  int ok = e && ar->archive_write_header(a, e) == ARCHIVE_OK && m.len && m.len % 512 == 0;
  /* The entry's data is streamed by the caller: what libarchive writes
   * from here on (zero padding for the data it never got, end blocks) is
   * dropped, but it is closed properly so it frees everything. */
  m.closed = 1;
  if (a) ar->archive_write_close(a);
  ar->archive_entry_free(e);
  ar->archive_write_free(a);
  if (!ok) {
    free(m.data);
    return -1;
  }
  *out = m.data;
  *len = m.len;
  return 0;
}

size_t sbio__dk_tar_trailer_len(int64_t size) {
  size_t pad = (size_t)((512 - (size % 512)) % 512);
  return pad + 1024;
}

int sbio__dk_tar_dirs(const char *const *names, size_t n, unsigned char **out, size_t *len) {
  const dk_archive_api *ar = sbio__dk_archive(NULL, 0);
  if (!ar) return -1;
  membuf m = {0};
  struct archive *a = open_writer(ar, &m);
  int ok = a != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    struct archive_entry *e = new_entry(ar, names[i], AE_IFDIR, 0755, 0);
    ok = e && ar->archive_write_header(a, e) == ARCHIVE_OK;
    ar->archive_entry_free(e);
  }
  ok = ok && ar->archive_write_close(a) == ARCHIVE_OK;
  ar->archive_write_free(a);
  if (!ok) {
    free(m.data);
    return -1;
  }
  *out = m.data;
  *len = m.len;
  return 0;
}
