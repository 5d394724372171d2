/* SPDX-License-Identifier: MIT */
/* The agent protocol between the host (this backend) and the guest's
 * agent (agent/agent.c), over one virtio-serial port. Both sides compile
 * this file. docs/backends/qemu.md#agent-protocol describes it.
 *
 * A frame is a 12-byte header, little-endian:
 *   u16 magic 0x5153 ("SQ"), u8 version (QM_PROTO_VERSION), u8 type,
 *   u32 id (the request it belongs to), u32 length of the payload,
 * then the payload: fields in a fixed order per type, integers
 * little-endian, byte strings as u32 length + bytes. Every length is
 * checked against a bound before use, on both sides: the host treats every
 * byte from the guest as hostile input (tests/fuzz/fuzz_qemu_proto.c). */
#ifndef SBIO_QEMU_PROTO_H
#define SBIO_QEMU_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define QM_PROTO_MAGIC 0x5153u
#define QM_PROTO_VERSION 1u
#define QM_HEADER_SIZE 12u
#define QM_PAYLOAD_MAX (256u * 1024u) /* one frame's payload */
#define QM_CHUNK 65536u               /* data per OUT/DATA/STDIN/WRITE frame */
#define QM_STR_MAX 4096u              /* paths, messages, cwd */
#define QM_ARG_MAX 65536u             /* one argv or env entry, or a shell command */
#define QM_ARGC_MAX 1024u             /* argv and env entries each */
#define QM_NAME_MAX 255u              /* a directory entry's name */

enum qm_type {
  /* guest -> host */
  QM_READY = 1,  /* u32 version, str kernel release, u8 hypervisor flag, str clocksource */
  QM_OUT = 2,    /* u8 stream (1 stdout, 2 stderr), bytes */
  QM_EXIT = 3,   /* u8 kind (0 exited, 1 killed by a signal), i32 code */
  QM_ERR = 4,    /* u32 QM_E_*, str message */
  QM_DATA = 5,   /* bytes: a piece of a file being read */
  QM_DIRENT = 6, /* str name, u64 size, u8 is_dir */
  QM_DONE = 7,   /* the request succeeded */
  /* host -> guest */
  QM_EXEC = 16,       /* u8 shell, u32 argc, str[argc], u32 envc, str[envc] "K=V", str cwd, u8 has_stdin */
  QM_STDIN = 17,      /* bytes */
  QM_STDIN_EOF = 18,  /* - */
  QM_KILL = 19,       /* - : SIGKILL to the exec's process group */
  QM_READ = 20,       /* str path */
  QM_WRITE_OPEN = 21, /* str path */
  QM_WRITE_DATA = 22, /* bytes */
  QM_WRITE_END = 23,  /* - */
  QM_LIST = 24,       /* str path */
  QM_MKDIR = 25,      /* str path, u8 parents */
  QM_REMOVE = 26,     /* str path (recursive) */
  QM_POWEROFF = 27    /* - */
};

/* QM_ERR codes: what the host maps to the error catalogue. */
enum qm_errcode { QM_E_IO = 1, QM_E_NOENT = 2, QM_E_INVAL = 3, QM_E_BUSY = 4, QM_E_PERM = 5 };

typedef struct qm_header {
  uint8_t type;
  uint32_t id;
  uint32_t len;
} qm_header;

/* Parses a header from `n` bytes. Returns 1 with *h filled when a whole
 * frame of QM_HEADER_SIZE + h->len bytes is available, 0 when more bytes
 * are needed, -1 when the bytes are not a frame of this protocol (bad
 * magic, version, or a length over QM_PAYLOAD_MAX). */
int sbio__qm_header_parse(const uint8_t *buf, size_t n, qm_header *h);

/* A bounded reader over one payload. Every getter fails (returns -1) and
 * latches `bad` when the field does not fit or exceeds its bound. */
typedef struct qm_rd {
  const uint8_t *p;
  size_t len, off;
  int bad;
} qm_rd;
void sbio__qm_rd_init(qm_rd *r, const uint8_t *p, size_t len);
int sbio__qm_get_u8(qm_rd *r, uint8_t *v);
int sbio__qm_get_u32(qm_rd *r, uint32_t *v);
int sbio__qm_get_i32(qm_rd *r, int32_t *v);
int sbio__qm_get_u64(qm_rd *r, uint64_t *v);
/* Bytes of at most `max`: *data points into the payload (not copied). */
int sbio__qm_get_bytes(qm_rd *r, uint32_t max, const uint8_t **data, uint32_t *len);
/* A text field of at most max-1 bytes, copied NUL-terminated into out[max];
 * refuses embedded NULs. */
int sbio__qm_get_str(qm_rd *r, char *out, size_t max);
/* 0 when the whole payload was consumed and nothing failed. */
int sbio__qm_rd_end(const qm_rd *r);

/* A growable writer for one frame (header included). */
typedef struct qm_wr {
  uint8_t *buf;
  size_t len, cap;
  int bad; /* out of memory or over QM_PAYLOAD_MAX */
} qm_wr;
void sbio__qm_wr_begin(qm_wr *w, uint8_t type, uint32_t id);
void sbio__qm_put_u8(qm_wr *w, uint8_t v);
void sbio__qm_put_u32(qm_wr *w, uint32_t v);
void sbio__qm_put_i32(qm_wr *w, int32_t v);
void sbio__qm_put_u64(qm_wr *w, uint64_t v);
void sbio__qm_put_bytes(qm_wr *w, const void *data, size_t len);
void sbio__qm_put_str(qm_wr *w, const char *s);
/* Writes the payload length; returns 0 when the frame is complete. */
int sbio__qm_wr_finish(qm_wr *w);
void sbio__qm_wr_free(qm_wr *w);

/* Host side: the facts a READY frame carries, validated. */
typedef struct qm_ready {
  uint32_t version;
  char kernel[256];
  uint8_t hypervisor;
  char clocksource[64];
} qm_ready;
int sbio__qm_decode_ready(const uint8_t *p, size_t len, qm_ready *out);

/* Host side: one message of a running request, validated by type. */
typedef struct qm_msg {
  uint8_t type;
  uint8_t stream;      /* OUT */
  const uint8_t *data; /* OUT, DATA: into the payload */
  uint32_t data_len;
  uint8_t exit_kind; /* EXIT */
  int32_t exit_code;
  uint32_t err_code;     /* ERR */
  char text[QM_STR_MAX]; /* ERR message, DIRENT name */
  uint64_t size;         /* DIRENT */
  uint8_t is_dir;
} qm_msg;
/* Returns 0 for a well-formed guest message of a known type, -1 otherwise. */
int sbio__qm_decode_guest(const qm_header *h, const uint8_t *payload, qm_msg *out);

#endif
