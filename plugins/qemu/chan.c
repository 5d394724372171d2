/* SPDX-License-Identifier: MIT */
/* The agent channel: one request at a time, frames sent while answers are
 * read (so neither side can block the other), every wait bounded by the
 * call, every received byte checked (proto.c) before it is used. A guest
 * that breaks the protocol gets no further requests. */
#include "qm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RX_CAP (QM_HEADER_SIZE + QM_PAYLOAD_MAX)
#define SLICE_MS 50

int sbio__qm_errcode(uint32_t qm_code, int fallback) {
  return qm_code == QM_E_NOENT ? SBIO_E_PATH_NOT_FOUND : fallback;
}

static int gone(qm_sandbox *sb, sbio_bk_error *err) {
  return sbio_sdk_error(err, SBIO_E_GONE, "create a new sandbox",
                        atomic_load(&sb->killed) ? "qemu sandbox %s was killed"
                                                 : "qemu sandbox %s has ended "
                                                   "(its guest powered off or QEMU "
                                                   "exited)",
                        sb->id);
}

static int broken(qm_sandbox *sb, int code, sbio_bk_error *err) {
  sb->broken = 1;
  return sbio_sdk_error(err, code, "kill this sandbox and create a new one",
                        "qemu sandbox %s: the guest agent sent a malformed frame; the channel is no longer trusted",
                        sb->id);
}

/* Reads what is there (non-blocking). 1 read something, 0 nothing, -1 EOF/error. */
static int receive(qm_sandbox *sb) {
  if (!sb->rx) {
    sb->rx = malloc(RX_CAP);
    if (!sb->rx) return -1;
  }
  if (sb->rx_len == RX_CAP) return 1; /* a whole frame is buffered: drain first */
  ssize_t n = recv(sb->fd, sb->rx + sb->rx_len, RX_CAP - sb->rx_len, MSG_DONTWAIT);
  if (n > 0) {
    sb->rx_len += (size_t)n;
    return 1;
  }
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
  return -1;
}

static void consume(qm_sandbox *sb, size_t n) {
  memmove(sb->rx, sb->rx + n, sb->rx_len - n);
  sb->rx_len -= n;
}

/* Dispatches every whole frame buffered: 1 finished, 0 go on, or a
 * catalogue code (>= 1000) with err filled. */
static int drain(qm_sandbox *sb, qm_req *q, int fail_code, sbio_bk_error *err) {
  for (;;) {
    qm_header h;
    int p = sbio__qm_header_parse(sb->rx, sb->rx_len, &h);
    if (p < 0) return broken(sb, fail_code, err);
    if (p == 0) return 0;
    size_t whole = QM_HEADER_SIZE + h.len;
    if (h.id != q->id || q->done) {
      /* A late answer to an earlier request (one that timed out): skipped,
       * but still checked, so that garbage cannot hide behind an old id. */
      qm_msg m;
      if (h.type != QM_READY && sbio__qm_decode_guest(&h, sb->rx + QM_HEADER_SIZE, &m) != 0)
        return broken(sb, fail_code, err);
      consume(sb, whole);
      continue;
    }
    qm_msg m;
    if (sbio__qm_decode_guest(&h, sb->rx + QM_HEADER_SIZE, &m) != 0) return broken(sb, fail_code, err);
    int r = q->on_msg(q, &m);
    consume(sb, whole);
    if (r > 1) return r;
    if (r == 1) {
      q->done = 1;
      return 1;
    }
  }
}

int sbio__qm_chan_run(qm_sandbox *sb, qm_req *q, const sbio_bk_call *call, int timeout_code, sbio_bk_error *err) {
  int fail_code = timeout_code == SBIO_E_EXEC_TIMEOUT ? SBIO_E_EXEC : SBIO_E_FS;
  if (atomic_load(&sb->killed) || sb->fd < 0) return gone(sb, err);
  if (sb->broken) return broken(sb, fail_code, err);
  qm_wr out = {0};
  size_t off = 0;
  int have_out = 0, more = q->next != NULL, rc = SBIO_OK;
  for (;;) {
    if (!have_out && more) {
      if (q->next(q, &out) == 1) {
        if (sbio__qm_wr_finish(&out) != 0) {
          rc = sbio_sdk_error(err, fail_code, NULL, "qemu: a request frame is over the protocol's bounds");
          break;
        }
        have_out = 1;
        off = 0;
      } else {
        more = 0;
      }
    }
    int d = drain(sb, q, fail_code, err);
    if (d != 0) {
      rc = d == 1 ? SBIO_OK : d;
      break;
    }
    if (atomic_load(&sb->killed)) {
      rc = gone(sb, err);
      break;
    }
    if (call->cancelled(call)) {
      rc = sbio_sdk_error(err, SBIO_E_CANCELLED, NULL, "qemu: the call was cancelled");
      break;
    }
    int64_t left = sbio_bk_remaining_ns(call);
    if (left == 0) {
      rc = sbio_sdk_error(err, timeout_code, "give the operation more time", "qemu: the deadline passed");
      break;
    }
    int ms = left / 1000000 < SLICE_MS ? (int)(left / 1000000) + 1 : SLICE_MS;
    struct pollfd pfd = {.fd = sb->fd, .events = (short)(POLLIN | (have_out ? POLLOUT : 0))};
    int pr = poll(&pfd, 1, ms);
    if (pr < 0 && errno != EINTR) {
      rc = gone(sb, err);
      break;
    }
    if (pr <= 0) continue;
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
      int r = receive(sb);
      if (r < 0) {
        /* EOF: whatever is still buffered is dispatched first. */
        d = drain(sb, q, fail_code, err);
        rc = d == 1 ? SBIO_OK : d > 1 ? d : gone(sb, err);
        break;
      }
    }
    if (have_out && (pfd.revents & POLLOUT)) {
      ssize_t n = send(sb->fd, out.buf + off, out.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) off += (size_t)n;
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        rc = gone(sb, err);
        break;
      }
      if (off == out.len) have_out = 0;
    }
  }
  sbio__qm_wr_free(&out);
  return rc;
}

int sbio__qm_chan_send(qm_sandbox *sb, uint8_t type, uint32_t id, const sbio_bk_call *call) {
  if (sb->fd < 0 || atomic_load(&sb->killed)) return -1;
  qm_wr w = {0};
  sbio__qm_wr_begin(&w, type, id);
  if (sbio__qm_wr_finish(&w) != 0) {
    sbio__qm_wr_free(&w);
    return -1;
  }
  size_t off = 0;
  while (off < w.len && sbio_bk_remaining_ns(call) > 0) {
    struct pollfd pfd = {.fd = sb->fd, .events = POLLOUT};
    if (poll(&pfd, 1, SLICE_MS) <= 0) continue;
    ssize_t n = send(sb->fd, w.buf + off, w.len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) off += (size_t)n;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
  }
  int ok = off == w.len;
  sbio__qm_wr_free(&w);
  return ok ? 0 : -1;
}

/* The last line of the guest's console (what the agent says before it
 * powers off), as printable text of at most size-1 bytes: it comes from
 * the guest, so it is bounded and stripped of control characters. */
static void console_tail(const qm_sandbox *sb, char *out, size_t size) {
  char path[3200], buf[512];
  out[0] = '\0';
  snprintf(path, sizeof path, "%s/console.log", sb->dir);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  off_t end = lseek(fd, 0, SEEK_END);
  off_t from = end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
  ssize_t n = pread(fd, buf, sizeof buf - 1, from);
  close(fd);
  if (n <= 0) return;
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) n--;
  buf[n] = '\0';
  char *line = strrchr(buf, '\n');
  line = line ? line + 1 : buf;
  size_t k = 0;
  for (const char *p = line; *p && k + 1 < size; p++) out[k++] = ((unsigned char)*p < 0x20 || *p == 0x7f) ? ' ' : *p;
  out[k] = '\0';
}

int sbio__qm_chan_ready(qm_sandbox *sb, const sbio_bk_call *call, sbio_bk_error *err) {
  int fl = fcntl(sb->fd, F_GETFL);
  if (fl >= 0) fcntl(sb->fd, F_SETFL, fl | O_NONBLOCK);
  for (;;) {
    qm_header h;
    int p = sbio__qm_header_parse(sb->rx ? sb->rx : (const uint8_t *)"", sb->rx_len, &h);
    if (p < 0 || (p == 1 && h.type != QM_READY))
      return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: the guest agent did not greet with a READY frame");
    if (p == 1) {
      int ok = sbio__qm_decode_ready(sb->rx + QM_HEADER_SIZE, h.len, &sb->ready) == 0;
      consume(sb, QM_HEADER_SIZE + h.len);
      if (!ok) return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu: the guest agent's READY frame is malformed");
      if (sb->ready.version != QM_PROTO_VERSION)
        return sbio_sdk_error(err, SBIO_E_CREATE, "rebuild the guest with this backend's agent",
                              "qemu: the guest agent speaks protocol %u, this backend %u", sb->ready.version,
                              QM_PROTO_VERSION);
      return SBIO_OK;
    }
    if (call->cancelled(call)) return sbio_sdk_error(err, SBIO_E_CREATE, NULL, "qemu create: cancelled");
    int64_t left = sbio_bk_remaining_ns(call);
    if (left == 0)
      return sbio_sdk_error(err, SBIO_E_CREATE_TIMEOUT, "give create more time (a TCG boot takes seconds)",
                            "qemu: the guest agent was not ready in time (see %s/console.log)", sb->dir);
    struct pollfd pfd = {.fd = sb->fd, .events = POLLIN};
    int ms = left / 1000000 < SLICE_MS ? (int)(left / 1000000) + 1 : SLICE_MS;
    if (poll(&pfd, 1, ms) > 0 && receive(sb) < 0) {
      char tail[200];
      console_tail(sb, tail, sizeof tail);
      return sbio_sdk_error(err, SBIO_E_CREATE, "see the guest's console.log in the state directory",
                            "qemu: the VM ended before its agent was ready%s%s", tail[0] ? "; its console: " : "",
                            tail);
    }
  }
}
