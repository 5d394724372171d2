/* SPDX-License-Identifier: MIT */
/* Where the virtual shell's output goes. Each command sees file
 * descriptors 1 and 2, each bound to the exec's stdout or stderr stream, to
 * a file in the sandbox's filesystem (a redirect) or to nowhere
 * (/dev/null). Stream output reaches the caller's callback one line per
 * chunk, as it is produced, so streaming in tests is real streaming. */
#ifndef SBIO_FAKE_VOUT_H
#define SBIO_FAKE_VOUT_H

#include "box.h"

#include <sandboxio/backend.h>
#include <stddef.h>

typedef struct fake_outctx {
  sbio_bk_output_fn fn; /* may be NULL: output is dropped */
  void *user;
  fake_box *box; /* for file sinks; may be NULL when there are none */
} fake_outctx;

typedef enum fake_sink_kind {
  FAKE_SINK_STDOUT = 1,
  FAKE_SINK_STDERR = 2,
  FAKE_SINK_FILE,
  FAKE_SINK_NULL
} fake_sink_kind;

typedef struct fake_sink {
  fake_sink_kind kind;
  char *path; /* FAKE_SINK_FILE: normalised path, owned */
} fake_sink;

typedef struct fake_io {
  fake_sink fd[3]; /* [1] stdout, [2] stderr; [0] unused */
} fake_io;

/* fd 1 -> stdout, fd 2 -> stderr. */
void sbio__fake_io_init(fake_io *io);
void sbio__fake_io_free(fake_io *io);
/* Deep copy; -1 on OOM (dst is then freed and re-initialised). */
int sbio__fake_io_copy(fake_io *dst, const fake_io *src);

/* Calls the callback once per line (the last piece may lack a newline). */
void sbio__fake_emit_lines(const fake_outctx *o, int stream, const char *data, size_t len);
/* Writes to fd 1 or 2 of `io`. 0, or a fake_memfs_status when a file sink
 * could not be written. */
int sbio__fake_io_write(const fake_outctx *o, const fake_io *io, int fd, const char *data, size_t len);
int sbio__fake_io_printf(const fake_outctx *o, const fake_io *io, int fd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif
