/* SPDX-License-Identifier: MIT */
/* The stdio transport: one JSON-RPC frame per line on stdin, one message
 * per line on stdout, nothing else on stdout (diagnostics go to stderr).
 *
 * Bounded: a line longer than RPC_MAX_FRAME is skipped up to its newline,
 * never buffered whole, and answered with an error. Writes to stdout wait
 * in one-second slices and give up once the server is stopping, so a
 * client that stops reading cannot hold the teardown forever. */
#include "transport.h"

#include "jsonrpc.h"
#include "protocol.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_CHUNK 65536

typedef struct stdio_channel {
  mcp_channel base;
  pthread_mutex_t lock; /* one message at a time on stdout */
  mcp_shutdown *sd;
  int gone; /* stdout is closed: the client went away */
} stdio_channel;

/* Waits for room in one-second slices, then writes at most PIPE_BUF
 * bytes, which a pipe with room takes without blocking: stdout stays a
 * blocking descriptor (it may be shared with a terminal), yet a stalled
 * reader cannot hold a stopping server. */
static int write_bounded(stdio_channel *c, const char *data, size_t len) {
  while (len) {
    struct pollfd p = {STDOUT_FILENO, POLLOUT, 0};
    int r = poll(&p, 1, 1000);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) {
      if (mcp_shutdown_requested(c->sd)) return -1;
      continue;
    }
    if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) return -1;
    ssize_t n = write(STDOUT_FILENO, data, len < PIPE_BUF ? len : PIPE_BUF);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return -1;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

static int stdio_send(mcp_channel *ch, const char *json, size_t len) {
  stdio_channel *c = (stdio_channel *)ch;
  pthread_mutex_lock(&c->lock);
  int rc = -1;
  if (!c->gone) {
    rc = write_bounded(c, json, len) == 0 && write_bounded(c, "\n", 1) == 0 ? 0 : -1;
    if (rc != 0) c->gone = 1;
  }
  pthread_mutex_unlock(&c->lock);
  /* The reader of stdout went away: so did the client. */
  if (rc != 0) mcp_shutdown_request(c->sd);
  return rc;
}

static void stdio_request_done(mcp_channel *ch) {
  (void)ch; /* stdio has no per-request stream to end */
}

/* The last reference may be the worker's, after serve() returned. */
static void stdio_destroy(mcp_channel *ch) {
  stdio_channel *c = (stdio_channel *)ch;
  pthread_mutex_destroy(&c->lock);
  free(c);
}

static const mcp_channel_ops stdio_ops = {stdio_send, stdio_request_done, stdio_destroy};

/* Only whitespace (an empty line is no message). */
static int blank(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r') return 0;
  return 1;
}

static void handle_line(mcp_session *s, stdio_channel *c, const char *line, size_t len) {
  if (blank(line, len)) return;
  rpc_frame frame;
  if (rpc_frame_parse(line, len, &frame) != 0) {
    mcp_send_error(&c->base, NULL, RPC_INTERNAL_ERROR, "Internal error: out of memory reading the message");
    return;
  }
  mcp_frame_result res;
  mcp_session_handle(s, &frame, &c->base, &res);
  rpc_frame_free(&frame);
}

static void refuse_long(stdio_channel *c) {
  char why[128];
  snprintf(why, sizeof why, "Invalid Request: a message of more than %zu bytes was refused unread", RPC_MAX_FRAME);
  mcp_send_error(&c->base, NULL, RPC_INVALID_REQUEST, why);
}

int mcp_stdio_serve(mcp_server *srv, mcp_shutdown *sd) {
  stdio_channel *cp = calloc(1, sizeof *cp);
  mcp_session *s = mcp_session_new(srv);
  char *buf = malloc(RPC_MAX_FRAME + READ_CHUNK);
  if (!cp || !s || !buf) {
    fputs("sbio mcp: error: out of memory\n", stderr);
    free(buf);
    free(cp);
    mcp_session_unref(s);
    return -1;
  }
  mcp_channel_init(&cp->base, &stdio_ops);
  pthread_mutex_init(&cp->lock, NULL);
  cp->sd = sd;
  stdio_channel *c = cp;
  size_t len = 0;
  int discarding = 0; /* inside a line that is too long */
  struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {mcp_shutdown_fd(sd), POLLIN, 0}};
  while (!mcp_shutdown_requested(sd)) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents) break;
    if (!fds[0].revents) continue;
    ssize_t n = read(STDIN_FILENO, buf + len, READ_CHUNK);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      /* EOF (or a read error): the client went away. A last message
       * without its newline is still a message: answered like the others
       * (a tool call in it is dropped with the session, as at every EOF). */
      if (n == 0 && (discarding || len > RPC_MAX_FRAME))
        refuse_long(c);
      else if (n == 0 && len)
        handle_line(s, c, buf, len);
      break;
    }
    size_t start = 0, end = len + (size_t)n;
    for (size_t i = len; i < end; i++) {
      if (buf[i] != '\n') continue;
      /* The bound holds whatever the reads were: a line that reached
       * past it within the chunk that held its newline is refused too. */
      if (discarding || i - start > RPC_MAX_FRAME) {
        discarding = 0;
        refuse_long(c);
      } else {
        handle_line(s, c, buf + start, i - start);
      }
      start = i + 1;
    }
    len = end - start;
    memmove(buf, buf + start, len);
    if (len > RPC_MAX_FRAME) {
      /* No newline within the limit: drop what we hold and the rest of
       * the line as it arrives. */
      discarding = 1;
      len = 0;
    } else if (discarding) {
      len = 0;
    }
  }
  /* Whatever ended the loop, the client is gone or we are stopping. */
  mcp_shutdown_request(sd);
  mcp_session_close(s);
  mcp_session_unref(s);
  free(buf);
  mcp_channel_unref(&c->base); /* the worker may hold it a little longer */
  return 0;
}
