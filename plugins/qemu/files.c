/* SPDX-License-Identifier: MIT */
/* File operations over the agent channel. Binary safe (bytes fields);
 * relative paths are the guest's work directory's; a missing path is
 * SBIO_E_PATH_NOT_FOUND. */
#include "qm.h"

#include <string.h>

typedef struct file_ctx {
  qm_req q;
  uint8_t type;
  const char *path;
  uint8_t parents;
  const uint8_t *data; /* write */
  size_t len, off;
  int stage; /* write: 0 open, 1 data, 2 end, 3 done */
  sbio_bk_data_fn sink;
  sbio_bk_dirent_fn entry;
  void *user;
  const char *what;
  int stopped; /* the read sink asked to stop */
  sbio_bk_error *err;
} file_ctx;

static int next(qm_req *q, qm_wr *w) {
  file_ctx *f = q->user;
  if (f->type != QM_WRITE_OPEN) {
    if (f->stage++) return 0;
    sbio__qm_wr_begin(w, f->type, q->id);
    sbio__qm_put_str(w, f->path);
    if (f->type == QM_MKDIR) sbio__qm_put_u8(w, f->parents);
    return 1;
  }
  switch (f->stage) {
  case 0:
    f->stage = f->len ? 1 : 2;
    sbio__qm_wr_begin(w, QM_WRITE_OPEN, q->id);
    sbio__qm_put_str(w, f->path);
    return 1;
  case 1: {
    size_t n = f->len - f->off > QM_CHUNK ? QM_CHUNK : f->len - f->off;
    sbio__qm_wr_begin(w, QM_WRITE_DATA, q->id);
    sbio__qm_put_bytes(w, f->data + f->off, n);
    f->off += n;
    if (f->off == f->len) f->stage = 2;
    return 1;
  }
  case 2:
    f->stage = 3;
    sbio__qm_wr_begin(w, QM_WRITE_END, q->id);
    return 1;
  default:
    return 0;
  }
}

static int on_msg(qm_req *q, const qm_msg *m) {
  file_ctx *f = q->user;
  switch (m->type) {
  case QM_DONE:
    return 1;
  case QM_ERR:
    return sbio_sdk_error(f->err, sbio__qm_errcode(m->err_code, SBIO_E_FS), NULL, "qemu %s %s: %s", f->what, f->path,
                          m->text);
  case QM_DATA:
    if (f->type == QM_READ) {
      if (!f->stopped && f->sink(f->user, m->data, m->data_len) != 0) f->stopped = 1;
      return 0;
    }
    break;
  case QM_DIRENT:
    if (f->type == QM_LIST) {
      char full[QM_STR_MAX + QM_NAME_MAX + 2];
      size_t pl = strlen(f->path);
      snprintf(full, sizeof full, "%s%s%s", f->path, pl && f->path[pl - 1] == '/' ? "" : "/", m->text);
      sbio_bk_dirent e = {
          .size = sizeof e, .name = m->text, .path = full, .bytes = (int64_t)m->size, .is_dir = m->is_dir};
      f->entry(f->user, &e);
      return 0;
    }
    break;
  default:
    break;
  }
  return sbio_sdk_error(f->err, SBIO_E_FS, NULL, "qemu %s: unexpected message %u from the guest", f->what, m->type);
}

static int run(qm_sandbox *sb, file_ctx *f, const sbio_bk_call *call, sbio_bk_error *err) {
  if (!sb || !f->path || !call)
    return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu files: missing argument");
  if (!f->path[0] || strlen(f->path) >= QM_STR_MAX)
    return sbio_sdk_error(err, SBIO_E_FS, NULL, "qemu %s: the path is empty or longer than %u bytes", f->what,
                          QM_STR_MAX - 1);
  f->err = err;
  f->q.id = ++sb->next_id;
  f->q.next = next;
  f->q.on_msg = on_msg;
  f->q.user = f;
  int rc = sbio__qm_chan_run(sb, &f->q, call, SBIO_E_FS, err);
  if (rc == SBIO_OK && f->stopped)
    rc = sbio_sdk_error(err, SBIO_E_FS, NULL, "qemu read %s: the reader stopped (file too big)", f->path);
  return rc;
}

int sbio__qm_op_file_read(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_data_fn sink, void *user,
                          sbio_bk_error *err) {
  file_ctx f = {.type = QM_READ, .path = path, .sink = sink, .user = user, .what = "read"};
  if (!sink) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu read: no sink");
  return run(sandbox, &f, call, err);
}

int sbio__qm_op_file_write(void *sandbox, const char *path, const void *data, size_t len, const sbio_bk_call *call,
                           sbio_bk_error *err) {
  file_ctx f = {.type = QM_WRITE_OPEN, .path = path, .data = data, .len = len, .what = "write"};
  if (len && !data) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu write: no data");
  return run(sandbox, &f, call, err);
}

int sbio__qm_op_file_list(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_dirent_fn entry,
                          void *user, sbio_bk_error *err) {
  file_ctx f = {.type = QM_LIST, .path = path, .entry = entry, .user = user, .what = "list"};
  if (!entry) return sbio_sdk_error(err, SBIO_E_INVALID_ARGUMENT, NULL, "qemu list: no callback");
  return run(sandbox, &f, call, err);
}

int sbio__qm_op_file_mkdir(void *sandbox, const char *path, int parents, const sbio_bk_call *call, sbio_bk_error *err) {
  file_ctx f = {.type = QM_MKDIR, .path = path, .parents = parents ? 1 : 0, .what = "mkdir"};
  return run(sandbox, &f, call, err);
}

int sbio__qm_op_file_remove(void *sandbox, const char *path, const sbio_bk_call *call, sbio_bk_error *err) {
  file_ctx f = {.type = QM_REMOVE, .path = path, .what = "remove"};
  return run(sandbox, &f, call, err);
}
