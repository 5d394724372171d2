/* SPDX-License-Identifier: MIT */
/* Frames of the agent protocol (proto.h): building and bounded reading. */
#include "proto.h"

#include <stdlib.h>
#include <string.h>

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int sbio__qm_header_parse(const uint8_t *buf, size_t n, qm_header *h) {
  if (n < QM_HEADER_SIZE) {
    /* Reject a bad prefix as early as it shows, not only once 12 bytes came. */
    if (n >= 1 && buf[0] != (QM_PROTO_MAGIC & 0xff)) return -1;
    if (n >= 2 && buf[1] != (QM_PROTO_MAGIC >> 8)) return -1;
    if (n >= 3 && buf[2] != QM_PROTO_VERSION) return -1;
    return 0;
  }
  if ((uint32_t)(buf[0] | buf[1] << 8) != QM_PROTO_MAGIC || buf[2] != QM_PROTO_VERSION) return -1;
  h->type = buf[3];
  h->id = le32(buf + 4);
  h->len = le32(buf + 8);
  if (h->len > QM_PAYLOAD_MAX) return -1;
  return n - QM_HEADER_SIZE >= h->len ? 1 : 0;
}

void sbio__qm_rd_init(qm_rd *r, const uint8_t *p, size_t len) {
  r->p = p;
  r->len = len;
  r->off = 0;
  r->bad = 0;
}

static const uint8_t *take(qm_rd *r, size_t n) {
  if (r->bad || r->len - r->off < n) {
    r->bad = 1;
    return NULL;
  }
  const uint8_t *q = r->p + r->off;
  r->off += n;
  return q;
}

int sbio__qm_get_u8(qm_rd *r, uint8_t *v) {
  const uint8_t *q = take(r, 1);
  if (!q) return -1;
  *v = q[0];
  return 0;
}

int sbio__qm_get_u32(qm_rd *r, uint32_t *v) {
  const uint8_t *q = take(r, 4);
  if (!q) return -1;
  *v = le32(q);
  return 0;
}

int sbio__qm_get_i32(qm_rd *r, int32_t *v) {
  uint32_t u;
  if (sbio__qm_get_u32(r, &u)) return -1;
  memcpy(v, &u, sizeof *v);
  return 0;
}

int sbio__qm_get_u64(qm_rd *r, uint64_t *v) {
  uint32_t lo, hi;
  if (sbio__qm_get_u32(r, &lo) || sbio__qm_get_u32(r, &hi)) return -1;
  *v = (uint64_t)hi << 32 | lo;
  return 0;
}

int sbio__qm_get_bytes(qm_rd *r, uint32_t max, const uint8_t **data, uint32_t *len) {
  uint32_t n;
  if (sbio__qm_get_u32(r, &n)) return -1;
  if (n > max) {
    r->bad = 1;
    return -1;
  }
  const uint8_t *q = take(r, n);
  if (!q) return -1;
  *data = q;
  *len = n;
  return 0;
}

int sbio__qm_get_str(qm_rd *r, char *out, size_t max) {
  const uint8_t *d;
  uint32_t n;
  if (max == 0 || sbio__qm_get_bytes(r, (uint32_t)(max - 1), &d, &n)) return -1;
  if (memchr(d, '\0', n)) {
    r->bad = 1;
    return -1;
  }
  memcpy(out, d, n);
  out[n] = '\0';
  return 0;
}

int sbio__qm_rd_end(const qm_rd *r) {
  return r->bad || r->off != r->len ? -1 : 0;
}

static void reserve(qm_wr *w, size_t more) {
  if (w->bad) return;
  if (w->len + more > QM_HEADER_SIZE + QM_PAYLOAD_MAX) {
    w->bad = 1;
    return;
  }
  if (w->len + more <= w->cap) return;
  size_t cap = w->cap ? w->cap : 256;
  while (cap < w->len + more) cap *= 2;
  uint8_t *b = realloc(w->buf, cap);
  if (!b) {
    w->bad = 1;
    return;
  }
  w->buf = b;
  w->cap = cap;
}

static void put(qm_wr *w, const void *p, size_t n) {
  reserve(w, n);
  if (w->bad) return;
  if (n) memcpy(w->buf + w->len, p, n);
  w->len += n;
}

void sbio__qm_put_u8(qm_wr *w, uint8_t v) {
  put(w, &v, 1);
}

void sbio__qm_put_u32(qm_wr *w, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  put(w, b, 4);
}

void sbio__qm_put_i32(qm_wr *w, int32_t v) {
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  sbio__qm_put_u32(w, u);
}

void sbio__qm_put_u64(qm_wr *w, uint64_t v) {
  sbio__qm_put_u32(w, (uint32_t)v);
  sbio__qm_put_u32(w, (uint32_t)(v >> 32));
}

void sbio__qm_put_bytes(qm_wr *w, const void *data, size_t len) {
  if (len > QM_PAYLOAD_MAX) {
    w->bad = 1;
    return;
  }
  sbio__qm_put_u32(w, (uint32_t)len);
  put(w, data, len);
}

void sbio__qm_put_str(qm_wr *w, const char *s) {
  sbio__qm_put_bytes(w, s ? s : "", s ? strlen(s) : 0);
}

void sbio__qm_wr_begin(qm_wr *w, uint8_t type, uint32_t id) {
  w->len = 0;
  w->bad = 0;
  uint8_t h[8] = {QM_PROTO_MAGIC & 0xff, QM_PROTO_MAGIC >> 8, QM_PROTO_VERSION,    type,
                  (uint8_t)id,           (uint8_t)(id >> 8),  (uint8_t)(id >> 16), (uint8_t)(id >> 24)};
  put(w, h, sizeof h);
  sbio__qm_put_u32(w, 0);
}

int sbio__qm_wr_finish(qm_wr *w) {
  if (w->bad || w->len < QM_HEADER_SIZE) return -1;
  uint32_t n = (uint32_t)(w->len - QM_HEADER_SIZE);
  uint8_t b[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
  memcpy(w->buf + 8, b, 4);
  return 0;
}

void sbio__qm_wr_free(qm_wr *w) {
  free(w->buf);
  w->buf = NULL;
  w->len = w->cap = 0;
}

/* Printable one-line text only: it ends up in logs and messages. */
static int printable(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) return 0;
  return 1;
}

int sbio__qm_decode_ready(const uint8_t *p, size_t len, qm_ready *out) {
  qm_rd r;
  sbio__qm_rd_init(&r, p, len);
  memset(out, 0, sizeof *out);
  sbio__qm_get_u32(&r, &out->version);
  sbio__qm_get_str(&r, out->kernel, sizeof out->kernel);
  sbio__qm_get_u8(&r, &out->hypervisor);
  sbio__qm_get_str(&r, out->clocksource, sizeof out->clocksource);
  if (sbio__qm_rd_end(&r) || out->hypervisor > 1 || !printable(out->kernel) || !printable(out->clocksource)) return -1;
  return 0;
}

int sbio__qm_decode_guest(const qm_header *h, const uint8_t *payload, qm_msg *out) {
  qm_rd r;
  sbio__qm_rd_init(&r, payload, h->len);
  out->type = h->type;
  out->text[0] = '\0';
  switch (h->type) {
  case QM_OUT:
    sbio__qm_get_u8(&r, &out->stream);
    sbio__qm_get_bytes(&r, QM_CHUNK, &out->data, &out->data_len);
    if (!r.bad && out->stream != 1 && out->stream != 2) return -1;
    break;
  case QM_DATA:
    sbio__qm_get_bytes(&r, QM_CHUNK, &out->data, &out->data_len);
    break;
  case QM_EXIT:
    sbio__qm_get_u8(&r, &out->exit_kind);
    sbio__qm_get_i32(&r, &out->exit_code);
    if (!r.bad && (out->exit_kind > 1 || out->exit_code < 0 || out->exit_code > 255)) return -1;
    break;
  case QM_ERR:
    sbio__qm_get_u32(&r, &out->err_code);
    sbio__qm_get_str(&r, out->text, sizeof out->text);
    if (!r.bad && !printable(out->text)) return -1;
    break;
  case QM_DIRENT:
    sbio__qm_get_str(&r, out->text, QM_NAME_MAX + 1);
    sbio__qm_get_u64(&r, &out->size);
    sbio__qm_get_u8(&r, &out->is_dir);
    /* A name, not a path: no separator, not . or .., not empty. */
    if (!r.bad && (!out->text[0] || strchr(out->text, '/') || !strcmp(out->text, ".") || !strcmp(out->text, "..") ||
                   out->is_dir > 1 || out->size > (uint64_t)INT64_MAX))
      return -1;
    break;
  case QM_DONE:
    break;
  default:
    return -1;
  }
  return sbio__qm_rd_end(&r);
}
