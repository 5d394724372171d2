/* SPDX-License-Identifier: MIT */
/* See attach.h. */
#include "attach.h"

#define STDIN_CHUNK 65536
/* The longest one wait blocks: how late a cancellation is noticed. */
#define SLICE_MS 100

static void pass_on(void *user, int stream, const char *data, size_t len) {
  dk_attach *a = user;
  if (a->req->output && len) a->req->output(a->req->output_user, stream, data, len);
}

static void deliver(void *user, int stream, const char *data, size_t len) {
  dk_attach *a = user;
  sbio__dk_startfail_feed(&a->startfail, stream, data, len, pass_on, a);
}

void sbio__dk_attach_begin(dk_attach *a, dk_instance *inst, sbio_sdk_http_conn *conn, const sbio_bk_exec_req *req,
                           const sbio_bk_call *call, int backstop) {
  a->inst = inst;
  a->req = req;
  a->call = call;
  a->conn = conn;
  a->stdin_sent = 0;
  a->stdin_closed = 0;
  a->garbled = DK_GARBLED_NO;
  sbio__dk_demux_init(&a->demux);
  if (backstop)
    sbio__dk_startfail_init_backstop(&a->startfail);
  else
    sbio__dk_startfail_init(&a->startfail);
  if (!req->has_stdin) {
    sbio_sdk_http_conn_shutdown_write(conn);
    a->stdin_closed = 1;
  }
  a->last_activity = sbio__dk_now(inst);
}

/* Drains what is readable now: DK_ATTACH_EOF, DK_ATTACH_LOST, or
 * DK_ATTACH_MORE once nothing more is there. */
static int drain(dk_attach *a) {
  unsigned char buf[65536];
  for (;;) {
    size_t n = 0;
    int io = sbio_sdk_http_conn_recv(a->conn, buf, sizeof buf, &n);
    if (io == SBIO_SDK_IO_AGAIN) return DK_ATTACH_MORE;
    if (io == SBIO_SDK_IO_EOF) {
      /* The engine writes whole frames: an end inside one lost output. */
      if (!sbio__dk_demux_at_boundary(&a->demux)) a->garbled = DK_GARBLED_CUT;
      return DK_ATTACH_EOF;
    }
    if (io == SBIO_SDK_IO_ERROR) return DK_ATTACH_LOST;
    a->last_activity = sbio__dk_now(a->inst);
    if (sbio__dk_demux_feed(&a->demux, buf, n, deliver, a) != 0) {
      a->garbled = DK_GARBLED_FRAME;
      return DK_ATTACH_LOST;
    }
  }
}

static void feed_stdin(dk_attach *a) {
  const sbio_bk_exec_req *req = a->req;
  size_t total = req->stdin_data ? req->stdin_len : 0;
  while (a->stdin_sent < total) {
    size_t want = total - a->stdin_sent, n = 0;
    if (want > STDIN_CHUNK) want = STDIN_CHUNK;
    int io = sbio_sdk_http_conn_send(a->conn, req->stdin_data + a->stdin_sent, want, &n);
    if (io == SBIO_SDK_IO_AGAIN) return;
    if (io == SBIO_SDK_IO_ERROR) break; /* the process stopped reading: nothing more to give */
    a->stdin_sent += n;
  }
  /* EOF for the process's stdin; its output keeps flowing back. */
  sbio_sdk_http_conn_shutdown_write(a->conn);
  a->stdin_closed = 1;
}

int sbio__dk_attach_step(dk_attach *a) {
  if (a->call->cancelled && a->call->cancelled(a->call)) return DK_ATTACH_CANCELLED;
  int64_t left = sbio_bk_remaining_ns(a->call);
  if (left == 0) return DK_ATTACH_DEADLINE;
  /* Rounded up: the last wait ends at (or just past) the deadline instead of
   * spinning on zero-millisecond waits until it comes. */
  long ms = left / 1000000 + 1;
  int wait_ms = ms < SLICE_MS ? (int)ms : SLICE_MS;
  int end = drain(a);
  if (end != DK_ATTACH_MORE) return end;
  if (!a->stdin_closed) feed_stdin(a);
  int want = SBIO_SDK_WAIT_READ | (a->stdin_closed ? 0 : SBIO_SDK_WAIT_WRITE);
  int ready = sbio_sdk_http_conn_wait(a->conn, want, wait_ms);
  if (ready < 0) return DK_ATTACH_LOST;
  return ready == 0 ? DK_ATTACH_IDLE : DK_ATTACH_MORE;
}

void sbio__dk_attach_close(dk_attach *a) {
  sbio_sdk_http_conn_close(a->conn);
  a->conn = NULL;
}

int sbio__dk_attach_finish(dk_attach *a, int exit_code, long pid, const char *program) {
  return sbio__dk_startfail_finish(&a->startfail, exit_code, pid, program, pass_on, a);
}

void sbio__dk_attach_flush(dk_attach *a) {
  sbio__dk_startfail_flush(&a->startfail, pass_on, a);
}

int sbio__dk_attach_check(const dk_attach *a, const char *sandbox, sbio_bk_error *err) {
  /* The command's own outcome may be known (the engine's exit code), but
   * its output is not whole: that is not a success to report. */
  if (a->garbled == DK_GARBLED_FRAME)
    return sbio_sdk_error(err, SBIO_E_EXEC, "check what answers on the engine's socket",
                          "docker: the output stream of sandbox %s is not docker's multiplexed framing (a frame "
                          "header with stream type %u); the command's output is incomplete",
                          sandbox, (unsigned)a->demux.hdr[0]);
  if (a->garbled == DK_GARBLED_CUT)
    return sbio_sdk_error(err, SBIO_E_EXEC, "check what answers on the engine's socket",
                          "docker: the output stream of sandbox %s ended inside a frame (%lu bytes of it missing); "
                          "the command's output is incomplete",
                          sandbox, (unsigned long)a->demux.remaining);
  return SBIO_OK;
}
