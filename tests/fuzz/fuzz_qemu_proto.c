/* SPDX-License-Identifier: MIT */
/* Fuzz target: the host side of the qemu backend's agent protocol
 * (plugins/qemu/proto.c) on arbitrary bytes posing as what a guest sends.
 * The bytes are cut into frames as the backend's channel does, and every
 * frame is decoded as a message and as a READY greeting. Whatever the
 * input, nothing reads outside it and what is accepted keeps its bounds. */
#include "proto.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_msg(const qm_header *h, const uint8_t *payload) {
  qm_msg m;
  if (sbio__qm_decode_guest(h, payload, &m) == 0) {
    if (m.type != h->type) __builtin_trap();
    if (m.type == QM_OUT || m.type == QM_DATA) {
      if (m.data_len > QM_CHUNK || m.data < payload || m.data + m.data_len > payload + h->len) __builtin_trap();
      if (m.type == QM_OUT && m.stream != 1 && m.stream != 2) __builtin_trap();
    }
    if (m.type == QM_EXIT && (m.exit_code < 0 || m.exit_code > 255 || m.exit_kind > 1)) __builtin_trap();
    if (m.type == QM_DIRENT && (strchr(m.text, '/') || !m.text[0] || strlen(m.text) > QM_NAME_MAX)) __builtin_trap();
    if (memchr(m.text, '\0', sizeof m.text) == NULL) __builtin_trap();
  }
  qm_ready r;
  if (sbio__qm_decode_ready(payload, h->len, &r) == 0) {
    if (memchr(r.kernel, '\0', sizeof r.kernel) == NULL || memchr(r.clocksource, '\0', sizeof r.clocksource) == NULL)
      __builtin_trap();
    for (const char *p = r.kernel; *p; p++)
      if ((unsigned char)*p < 0x20) __builtin_trap();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t off = 0;
  while (off < size) {
    qm_header h;
    int p = sbio__qm_header_parse(data + off, size - off, &h);
    if (p < 0) return 0; /* the channel would stop trusting the guest here */
    if (p == 0) {
      if (size - off >= QM_HEADER_SIZE + QM_PAYLOAD_MAX) __builtin_trap(); /* a whole frame was there */
      return 0;
    }
    if (h.len > QM_PAYLOAD_MAX || off + QM_HEADER_SIZE + h.len > size) __builtin_trap();
    check_msg(&h, data + off + QM_HEADER_SIZE);
    off += QM_HEADER_SIZE + h.len;
  }
  /* The bounded reader on the raw bytes as one payload, field by field. */
  qm_rd r;
  sbio__qm_rd_init(&r, data, size);
  char text[64];
  const uint8_t *d;
  uint32_t n;
  while (!r.bad) {
    uint8_t kind;
    if (sbio__qm_get_u8(&r, &kind)) break;
    if (kind % 3 == 0) {
      if (sbio__qm_get_str(&r, text, sizeof text) == 0 && strlen(text) >= sizeof text) __builtin_trap();
    } else if (kind % 3 == 1) {
      if (sbio__qm_get_bytes(&r, 100, &d, &n) == 0 && (n > 100 || d + n > data + size)) __builtin_trap();
    } else {
      uint64_t v;
      sbio__qm_get_u64(&r, &v);
    }
    if (r.off > r.len) __builtin_trap();
  }
  return 0;
}
