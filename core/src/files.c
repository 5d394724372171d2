/* SPDX-License-Identifier: MIT */
/* File operations inside a sandbox. Paths are the sandbox's; relative ones
 * resolve against the same work directory exec uses (the backend's). */
#include "clock.h"
#include "error_internal.h"
#include "host_internal.h"
#include "policy.h"

#include <stdlib.h>
#include <string.h>

#define FILE_OP_TIMEOUT_S 120.0
#define DEFAULT_READ_MAX ((size_t)256 * 1024 * 1024)

struct sbio_file_list {
  size_t n, cap;
  int oom; /* an entry could not be stored: the listing is incomplete */
  struct entry {
    char *name, *path;
    int64_t bytes;
    int is_dir;
  } * items;
};

/* Shared preamble: the sandbox is alive, the capability is declared and the
 * operation exists. */
static sbio_code file_op_begin(sbio_sandbox *sb, const char *path, int has_op, const char *event, sbio__event *ev,
                               sbio_error *err) {
  if (!sb || !path || !path[0])
    return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "a sandbox and a non-empty path are required");
  if (atomic_load(&sb->killed)) {
    sbio__error_set(err, SBIO_E_GONE, "create a new sandbox", "sandbox %s:%s was killed", sb->backend->name, sb->id);
    sbio__error_set_sandbox_id(err, sb->id);
    return SBIO_E_GONE;
  }
  if (!(sb->caps & SBIO_CAP_FILESYSTEM) || !has_op)
    return sbio__capability_error(sb->host, sb->backend->name, SBIO_CAP_FILESYSTEM, err);
  sbio__event_begin(ev, sb->host, event);
  sbio__event_sandbox(ev, sb);
  sbio__event_argv(ev, (const char *const[]){path}, 1);
  return SBIO_OK;
}

static sbio_code file_op_end(sbio_sandbox *sb, sbio__event *ev, int failed, const sbio_bk_error *bk, sbio_error *err) {
  sbio_code rc = SBIO_OK;
  if (failed) {
    rc = sbio__error_from_backend(err, bk, sb->backend->name);
    sbio__error_set_sandbox_id(err, sb->id);
  }
  return sbio__audit_finish(sb->host, ev, rc, err);
}

static void init_call(sbio__call *c, sbio_sandbox *sb) {
  sbio__call_init(c, sb->host, sb, sbio__deadline_after(FILE_OP_TIMEOUT_S));
}

typedef struct {
  unsigned char *data;
  size_t len, cap, max;
  int too_big, oom;
} reader;

static int read_sink(void *user, const void *data, size_t len) {
  reader *r = user;
  if (len > r->max - r->len) {
    r->too_big = 1;
    return 1;
  }
  if (r->len + len + 1 > r->cap) {
    size_t ncap = r->cap ? r->cap : 4096;
    while (ncap < r->len + len + 1) ncap *= 2;
    unsigned char *p = realloc(r->data, ncap);
    if (!p) {
      r->oom = 1;
      return 1;
    }
    r->data = p;
    r->cap = ncap;
  }
  memcpy(r->data + r->len, data, len);
  r->len += len;
  return 0;
}

sbio_code sbio_file_read(sbio_sandbox *sb, const char *path, size_t max_bytes, unsigned char **data, size_t *len,
                         sbio_error *err) {
  if (!data || !len) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "data and len are required");
  *data = NULL;
  *len = 0;
  sbio__event ev;
  sbio_code rc = file_op_begin(sb, path, sb && SBIO_OPS_HAS(sb->backend->ops, file_read), "file_read", &ev, err);
  if (rc != SBIO_OK) return rc;
  reader r = {.max = max_bytes ? max_bytes : DEFAULT_READ_MAX};
  sbio__call c;
  init_call(&c, sb);
  sbio_bk_error bk = {.size = sizeof bk};
  int failed = sb->backend->ops->file_read(sb->handle, path, &c.call, read_sink, &r, &bk) != 0;
  if (r.too_big || r.oom) {
    /* Our sink stopped the read: that, not the backend's view, is the error. */
    failed = 1;
    sbio_bk_error_set(&bk, r.oom ? SBIO_E_INTERNAL : SBIO_E_FS, "raise max_bytes or read it in parts",
                      r.oom ? "out of memory reading %s" : "%s is larger than the %zu-byte read limit", path, r.max);
  }
  sbio__event_int(&ev, "bytes_out", (long long)r.len);
  rc = file_op_end(sb, &ev, failed, &bk, err);
  if (rc != SBIO_OK) {
    free(r.data);
    return rc;
  }
  if (!r.data && !(r.data = malloc(1))) return sbio__error_set(err, SBIO_E_INTERNAL, NULL, "out of memory");
  r.data[r.len] = '\0'; /* convenient for text; len is authoritative */
  *data = r.data;
  *len = r.len;
  return SBIO_OK;
}

sbio_code sbio_file_write(sbio_sandbox *sb, const char *path, const void *data, size_t len, sbio_error *err) {
  if (len && !data) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "data is NULL");
  sbio__event ev;
  sbio_code rc = file_op_begin(sb, path, sb && SBIO_OPS_HAS(sb->backend->ops, file_write), "file_write", &ev, err);
  if (rc != SBIO_OK) return rc;
  sbio__event_int(&ev, "bytes_in", (long long)len);
  sbio__call c;
  init_call(&c, sb);
  sbio_bk_error bk = {.size = sizeof bk};
  int failed = sb->backend->ops->file_write(sb->handle, path, len ? data : "", len, &c.call, &bk) != 0;
  return file_op_end(sb, &ev, failed, &bk, err);
}

static void list_entry(void *user, const sbio_bk_dirent *e) {
  struct sbio_file_list *l = user;
  if (!e || !e->name || !e->path) return;
  if (l->n == l->cap) {
    size_t ncap = l->cap ? l->cap * 2 : 16;
    struct entry *p = realloc(l->items, ncap * sizeof *p);
    if (!p) {
      l->oom = 1;
      return;
    }
    l->items = p;
    l->cap = ncap;
  }
  struct entry *it = &l->items[l->n];
  it->name = strdup(e->name);
  it->path = strdup(e->path);
  if (!it->name || !it->path) {
    free(it->name);
    free(it->path);
    l->oom = 1;
    return;
  }
  it->bytes = e->bytes;
  it->is_dir = e->is_dir != 0;
  l->n++;
}

sbio_code sbio_file_list_dir(sbio_sandbox *sb, const char *path, sbio_file_list **out, sbio_error *err) {
  if (!out) return sbio__error_set(err, SBIO_E_INVALID_ARGUMENT, NULL, "out is required");
  *out = NULL;
  sbio__event ev;
  sbio_code rc = file_op_begin(sb, path, sb && SBIO_OPS_HAS(sb->backend->ops, file_list), "file_list", &ev, err);
  if (rc != SBIO_OK) return rc;
  struct sbio_file_list *l = calloc(1, sizeof *l);
  sbio__call c;
  init_call(&c, sb);
  sbio_bk_error bk = {.size = sizeof bk};
  int failed;
  if (!l) {
    failed = 1;
    sbio_bk_error_set(&bk, SBIO_E_INTERNAL, NULL, "out of memory");
  } else {
    failed = sb->backend->ops->file_list(sb->handle, path, &c.call, list_entry, l, &bk) != 0;
    if (!failed && l->oom) {
      failed = 1;
      sbio_bk_error_set(&bk, SBIO_E_INTERNAL, NULL, "out of memory listing %s", path);
    }
  }
  rc = file_op_end(sb, &ev, failed, &bk, err);
  if (rc != SBIO_OK) {
    sbio_file_list_free(l);
    return rc;
  }
  *out = l;
  return SBIO_OK;
}

sbio_code sbio_file_mkdir(sbio_sandbox *sb, const char *path, int parents, sbio_error *err) {
  sbio__event ev;
  sbio_code rc = file_op_begin(sb, path, sb && SBIO_OPS_HAS(sb->backend->ops, file_mkdir), "file_mkdir", &ev, err);
  if (rc != SBIO_OK) return rc;
  sbio__call c;
  init_call(&c, sb);
  sbio_bk_error bk = {.size = sizeof bk};
  int failed = sb->backend->ops->file_mkdir(sb->handle, path, parents != 0, &c.call, &bk) != 0;
  return file_op_end(sb, &ev, failed, &bk, err);
}

sbio_code sbio_file_remove(sbio_sandbox *sb, const char *path, sbio_error *err) {
  sbio__event ev;
  sbio_code rc = file_op_begin(sb, path, sb && SBIO_OPS_HAS(sb->backend->ops, file_remove), "file_remove", &ev, err);
  if (rc != SBIO_OK) return rc;
  sbio__call c;
  init_call(&c, sb);
  sbio_bk_error bk = {.size = sizeof bk};
  int failed = sb->backend->ops->file_remove(sb->handle, path, &c.call, &bk) != 0;
  return file_op_end(sb, &ev, failed, &bk, err);
}

size_t sbio_file_list_count(const sbio_file_list *l) {
  return l ? l->n : 0;
}
const char *sbio_file_list_name(const sbio_file_list *l, size_t i) {
  return l && i < l->n ? l->items[i].name : "";
}
const char *sbio_file_list_path(const sbio_file_list *l, size_t i) {
  return l && i < l->n ? l->items[i].path : "";
}
int64_t sbio_file_list_size(const sbio_file_list *l, size_t i) {
  return l && i < l->n ? l->items[i].bytes : -1;
}
int sbio_file_list_is_dir(const sbio_file_list *l, size_t i) {
  return l && i < l->n ? l->items[i].is_dir : 0;
}
void sbio_file_list_free(sbio_file_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++) {
    free(l->items[i].name);
    free(l->items[i].path);
  }
  free(l->items);
  free(l);
}
