/* SPDX-License-Identifier: MIT */
#include "vout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sbio__fake_io_init(fake_io *io) {
  memset(io, 0, sizeof *io);
  io->fd[1].kind = FAKE_SINK_STDOUT;
  io->fd[2].kind = FAKE_SINK_STDERR;
}

void sbio__fake_io_free(fake_io *io) {
  for (int i = 1; i <= 2; i++) free(io->fd[i].path);
  sbio__fake_io_init(io);
}

int sbio__fake_io_copy(fake_io *dst, const fake_io *src) {
  sbio__fake_io_init(dst);
  for (int i = 1; i <= 2; i++) {
    dst->fd[i].kind = src->fd[i].kind;
    if (src->fd[i].path && !(dst->fd[i].path = strdup(src->fd[i].path))) {
      sbio__fake_io_free(dst);
      return -1;
    }
  }
  return 0;
}

void sbio__fake_emit_lines(const fake_outctx *o, int stream, const char *data, size_t len) {
  if (!o->fn) return;
  while (len > 0) {
    const char *nl = memchr(data, '\n', len);
    size_t n = nl ? (size_t)(nl - data) + 1 : len;
    o->fn(o->user, stream, data, n);
    data += n;
    len -= n;
  }
}

int sbio__fake_io_write(const fake_outctx *o, const fake_io *io, int fd, const char *data, size_t len) {
  if (fd != 1 && fd != 2) return 0;
  const fake_sink *sink = &io->fd[fd];
  switch (sink->kind) {
  case FAKE_SINK_STDOUT:
  case FAKE_SINK_STDERR:
    sbio__fake_emit_lines(o, (int)sink->kind, data, len);
    return 0;
  case FAKE_SINK_NULL:
    return 0;
  case FAKE_SINK_FILE:
    break;
  }
  if (!o->box || !sink->path) return FAKE_FS_ENOENT;
  pthread_mutex_lock(&o->box->mu);
  int st = (int)sbio__fake_memfs_write(o->box->fs, sink->path, data, len, 1);
  pthread_mutex_unlock(&o->box->mu);
  return st;
}

int sbio__fake_io_printf(const fake_outctx *o, const fake_io *io, int fd, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return 0;
  if ((size_t)n < sizeof small) return sbio__fake_io_write(o, io, fd, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if (!big) return FAKE_FS_ENOMEM;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  int st = sbio__fake_io_write(o, io, fd, big, (size_t)n);
  free(big);
  return st;
}
