/* SPDX-License-Identifier: MIT */
/* The streamable HTTP transport (MCP 2025-03-26 and later) on
 * libmicrohttpd.
 *
 * Why libmicrohttpd rather than a reader of our own: HTTP/1.1 framing
 * (chunked bodies both ways, keep-alive, Expect: 100-continue, pipelining,
 * header limits) is where hand-written servers get their bugs, and GNU
 * libmicrohttpd is a small, long-maintained C library built for exactly
 * this embedding, packaged by Debian, with its own bounds on headers,
 * connections and idle time. What MCP adds on top is here:
 *
 *   POST /mcp     one JSON-RPC frame (at most RPC_MAX_FRAME bytes: a
 *                 larger Content-Length is 413 before the body is read; a
 *                 chunked body past the bound is dropped as it arrives,
 *                 413 once it ends, and its connection closed if it goes
 *                 on past twice the bound). Answered with application/json
 *                 when every request in it is answered at once, with
 *                 text/event-stream when a tools/call runs (its progress
 *                 notifications, then its response, then the stream ends),
 *                 202 when it held only notifications.
 *   DELETE /mcp   ends the session; the last one ending destroys the
 *                 sandbox (the client went away).
 *   GET /mcp      405: this server never sends unsolicited messages.
 *
 * Every request first passes the Host/Origin guard (http_guard.h), then,
 * but for initialize, must carry a known Mcp-Session-Id (400 missing, 404
 * unknown). Thread per connection: a stream's reader may block waiting for
 * the worker, and says ": keepalive" every 15 s, which is also how a
 * vanished client is noticed. */
#include "http_guard.h"
#include "jsonrpc.h"
#include "protocol.h"
#include "sessions.h"
#include "transport.h"
#include "worker.h"

#include "exitcode.h"
#include "holder.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#define MCP_PATH "/mcp"
#define KEEPALIVE_S 15
#define MAX_CONNECTIONS 64
#define HEADER_MEMORY (64 * 1024)
#define IDLE_TIMEOUT_S 120 /* a connection silent this long is closed */

typedef struct http_server {
  mcp_server *srv;
  mcp_shutdown *sd;
  mcp_sessions *sessions;
  atomic_int live_sessions;
  mcp_http_guard guard;
  pthread_mutex_t lock; /* guards `stopping` and the channel list */
  int stopping;
  struct http_channel *channels;
} http_server;

/* ---------------------------------------------------------- channels */
typedef struct chunk {
  struct chunk *next;
  size_t len, off;
  char data[];
} chunk;

typedef struct http_channel {
  mcp_channel base;
  http_server *hs;
  struct http_channel *prev, *next; /* in hs->channels */
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int streaming; /* false: collecting the answers of the frame (JSON reply) */
  chunk *head, *tail;
  size_t n_messages;
  size_t pending;  /* deferred requests not finished */
  int reader_gone; /* the response is over (client left, or freed) */
  int stopping;
} http_channel;

static chunk *chunk_new(const char *prefix, const char *data, size_t len, const char *suffix) {
  size_t p = strlen(prefix), s = strlen(suffix);
  chunk *c = malloc(sizeof *c + p + len + s);
  if (!c) return NULL;
  c->next = NULL;
  c->off = 0;
  c->len = p + len + s;
  memcpy(c->data, prefix, p);
  memcpy(c->data + p, data, len);
  memcpy(c->data + p + len, suffix, s);
  return c;
}

static void push(http_channel *c, chunk *k) {
  if (c->tail)
    c->tail->next = k;
  else
    c->head = k;
  c->tail = k;
}

/* Our JSON never holds a raw newline (the writer escapes them), so each
 * message is one SSE data line. */
static int http_send(mcp_channel *ch, const char *json, size_t len) {
  http_channel *c = (http_channel *)ch;
  pthread_mutex_lock(&c->lock);
  int rc = -1;
  if (!c->reader_gone) {
    chunk *k = c->streaming ? chunk_new("event: message\ndata: ", json, len, "\n\n") : chunk_new("", json, len, "");
    if (k) {
      push(c, k);
      c->n_messages++;
      rc = 0;
      pthread_cond_broadcast(&c->cond);
    }
  }
  pthread_mutex_unlock(&c->lock);
  return rc;
}

static void http_request_done(mcp_channel *ch) {
  http_channel *c = (http_channel *)ch;
  pthread_mutex_lock(&c->lock);
  if (c->pending) c->pending--;
  pthread_cond_broadcast(&c->cond);
  pthread_mutex_unlock(&c->lock);
}

static void free_chunks(chunk *k) {
  while (k) {
    chunk *next = k->next;
    free(k);
    k = next;
  }
}

static void http_destroy(mcp_channel *ch) {
  http_channel *c = (http_channel *)ch;
  http_server *hs = c->hs;
  pthread_mutex_lock(&hs->lock);
  if (c->prev)
    c->prev->next = c->next;
  else if (hs->channels == c)
    hs->channels = c->next;
  if (c->next) c->next->prev = c->prev;
  pthread_mutex_unlock(&hs->lock);
  free_chunks(c->head);
  pthread_mutex_destroy(&c->lock);
  pthread_cond_destroy(&c->cond);
  free(c);
}

static const mcp_channel_ops http_ops = {http_send, http_request_done, http_destroy};

static http_channel *channel_new(http_server *hs) {
  http_channel *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  mcp_channel_init(&c->base, &http_ops);
  c->hs = hs;
  pthread_mutex_init(&c->lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&c->cond, &attr);
  pthread_condattr_destroy(&attr);
  pthread_mutex_lock(&hs->lock);
  if (hs->stopping) {
    pthread_mutex_unlock(&hs->lock);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->cond);
    free(c);
    return NULL;
  }
  c->next = hs->channels;
  if (c->next) c->next->prev = c;
  hs->channels = c;
  pthread_mutex_unlock(&hs->lock);
  return c;
}

/* SSE body, pulled by libmicrohttpd on the connection's own thread. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max) {
  (void)pos;
  http_channel *c = cls;
  pthread_mutex_lock(&c->lock);
  for (;;) {
    if (c->head) {
      chunk *k = c->head;
      size_t n = k->len - k->off;
      if (n > max) n = max;
      memcpy(buf, k->data + k->off, n);
      k->off += n;
      if (k->off == k->len) {
        c->head = k->next;
        if (!c->head) c->tail = NULL;
        free(k);
      }
      pthread_mutex_unlock(&c->lock);
      return (ssize_t)n;
    }
    if (c->pending == 0 || c->stopping) {
      pthread_mutex_unlock(&c->lock);
      return MHD_CONTENT_READER_END_OF_STREAM;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += KEEPALIVE_S;
    if (pthread_cond_timedwait(&c->cond, &c->lock, &until) == ETIMEDOUT && !c->head && c->pending && !c->stopping) {
      /* An SSE comment: keeps proxies from closing an idle stream, and a
       * write to a client that left fails, which ends this response. */
      static const char keepalive[] = ": keepalive\n\n";
      size_t n = sizeof keepalive - 1 < max ? sizeof keepalive - 1 : max;
      memcpy(buf, keepalive, n);
      pthread_mutex_unlock(&c->lock);
      return (ssize_t)n;
    }
  }
}

static void sse_free(void *cls) {
  http_channel *c = cls;
  pthread_mutex_lock(&c->lock);
  c->reader_gone = 1;
  free_chunks(c->head);
  c->head = c->tail = NULL;
  pthread_mutex_unlock(&c->lock);
  mcp_channel_unref(&c->base);
}

/* ---------------------------------------------------------- responses */
static enum MHD_Result respond(struct MHD_Connection *conn, unsigned status, const char *content_type, const char *body,
                               size_t len, const char *session_id) {
  struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (!r) return MHD_NO;
  if (content_type) MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
  if (session_id) MHD_add_response_header(r, "Mcp-Session-Id", session_id);
  if (status == MHD_HTTP_METHOD_NOT_ALLOWED) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST, DELETE");
  enum MHD_Result ok = MHD_queue_response(conn, status, r);
  MHD_destroy_response(r);
  return ok;
}

/* An HTTP-level refusal with a JSON-RPC error body without an id, as the
 * official SDK sends them. */
static enum MHD_Result refuse(struct MHD_Connection *conn, unsigned status, int code, const char *message) {
  mj_writer w;
  mj_w_init(&w, 4096);
  rpc_write_error(&w, NULL, code, message);
  size_t len = 0;
  char *body = mj_w_take(&w, &len);
  enum MHD_Result ok = respond(conn, status, "application/json", body ? body : "", body ? len : 0, NULL);
  free(body);
  return ok;
}

/* ------------------------------------------------------------ requests */
typedef struct http_req {
  char *body;
  size_t len, cap;
  int too_large;
  int answered; /* a response was queued */
} http_req;

static const char *header(struct MHD_Connection *conn, const char *name) {
  return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, name);
}

/* "application/json" with optional parameters, case-insensitive. */
static int json_media_type(const char *ct) {
  if (!ct) return 0;
  while (*ct == ' ') ct++;
  size_t n = strlen("application/json");
  if (strncasecmp(ct, "application/json", n) != 0) return 0;
  ct += n;
  while (*ct == ' ') ct++;
  return *ct == '\0' || *ct == ';';
}

static int accepts(const char *accept, const char *type) {
  return accept && strcasestr(accept, type) != NULL;
}

/* Checks that need only the headers; queues the refusal and returns 1. */
static int refused_early(http_server *hs, struct MHD_Connection *conn, const char *url, const char *method,
                         http_req *r) {
  char why[256];
  enum MHD_Result ok = MHD_YES;
  int refused = 1;
  const char *pv = header(conn, "MCP-Protocol-Version");
  const char *cl = header(conn, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (mcp_guard_check(&hs->guard, header(conn, MHD_HTTP_HEADER_HOST), header(conn, "Origin"), why, sizeof why) != 0)
    ok = refuse(conn, MHD_HTTP_FORBIDDEN, RPC_SERVER_ERROR, why);
  else if (strcmp(url, MCP_PATH) != 0)
    ok = refuse(conn, MHD_HTTP_NOT_FOUND, RPC_SERVER_ERROR, "Not Found: the MCP endpoint is " MCP_PATH);
  else if (strcmp(method, "POST") != 0 && strcmp(method, "DELETE") != 0)
    ok = refuse(conn, MHD_HTTP_METHOD_NOT_ALLOWED, RPC_SERVER_ERROR,
                "Method Not Allowed: this server takes POST and DELETE (it sends no unsolicited messages, so there "
                "is no GET stream)");
  else if (pv && !mcp_version_supported(pv))
    ok = refuse(conn, MHD_HTTP_BAD_REQUEST, RPC_SERVER_ERROR,
                "Bad Request: unsupported MCP-Protocol-Version (supported: 2025-11-25, 2025-06-18, 2025-03-26, "
                "2024-11-05, 2024-10-07)");
  else if (strcmp(method, "DELETE") == 0)
    refused = 0;
  else if (!accepts(header(conn, MHD_HTTP_HEADER_ACCEPT), "application/json") ||
           !accepts(header(conn, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
    ok = refuse(conn, MHD_HTTP_NOT_ACCEPTABLE, RPC_SERVER_ERROR,
                "Not Acceptable: the client must accept both application/json and text/event-stream");
  else if (!json_media_type(header(conn, MHD_HTTP_HEADER_CONTENT_TYPE)))
    ok = refuse(conn, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, RPC_SERVER_ERROR,
                "Unsupported Media Type: Content-Type must be application/json");
  else if (cl && strtoull(cl, NULL, 10) > RPC_MAX_FRAME) {
    snprintf(why, sizeof why, "Payload Too Large: a request body may have at most %zu bytes", RPC_MAX_FRAME);
    ok = refuse(conn, MHD_HTTP_CONTENT_TOO_LARGE, RPC_SERVER_ERROR, why);
  } else
    refused = 0;
  if (refused) r->answered = 1;
  (void)ok;
  return refused;
}

static enum MHD_Result handle_delete(http_server *hs, struct MHD_Connection *conn) {
  const char *sid = header(conn, "Mcp-Session-Id");
  if (!sid)
    return refuse(conn, MHD_HTTP_BAD_REQUEST, RPC_SERVER_ERROR, "Bad Request: Mcp-Session-Id header is required");
  int left = mcp_sessions_remove(hs->sessions, sid);
  if (left < 0) return refuse(conn, MHD_HTTP_NOT_FOUND, -32001, "Session not found");
  atomic_fetch_sub(&hs->live_sessions, 1);
  /* The last client went away: so goes the sandbox (a new one is made if
   * a client comes back). */
  if (left == 0) mcp_worker_submit_reset(hs->srv->worker, &hs->live_sessions);
  return respond(conn, MHD_HTTP_OK, NULL, "", 0, NULL);
}

/* Answers a frame whose requests were all answered at once. */
static enum MHD_Result reply_collected(struct MHD_Connection *conn, http_channel *c, int batch, const char *sid) {
  pthread_mutex_lock(&c->lock);
  size_t total = 2, n = c->n_messages;
  for (chunk *k = c->head; k; k = k->next) total += k->len + 1;
  char *body = malloc(total + 1);
  size_t len = 0;
  if (body) {
    if (batch && n > 1) body[len++] = '[';
    for (chunk *k = c->head; k; k = k->next) {
      if (k != c->head) body[len++] = ',';
      memcpy(body + len, k->data, k->len);
      len += k->len;
    }
    if (batch && n > 1) body[len++] = ']';
  }
  pthread_mutex_unlock(&c->lock);
  if (!body) return refuse(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, RPC_INTERNAL_ERROR, "Internal error: out of memory");
  enum MHD_Result ok = respond(conn, MHD_HTTP_OK, "application/json", body, len, sid);
  free(body);
  return ok;
}

/* Turns the collected answers into SSE events and streams the rest. */
static enum MHD_Result reply_stream(struct MHD_Connection *conn, http_channel *c, const char *sid) {
  pthread_mutex_lock(&c->lock);
  chunk *old = c->head;
  c->head = c->tail = NULL;
  c->streaming = 1;
  int oom = 0;
  for (chunk *k = old; k; k = k->next) {
    chunk *e = chunk_new("event: message\ndata: ", k->data, k->len, "\n\n");
    if (!e) {
      oom = 1;
      break;
    }
    push(c, e);
  }
  pthread_mutex_unlock(&c->lock);
  free_chunks(old);
  if (oom) return refuse(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, RPC_INTERNAL_ERROR, "Internal error: out of memory");
  struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, c, sse_free);
  if (!r) return MHD_NO;
  mcp_channel_ref(&c->base); /* the response's; sse_free drops it */
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache, no-transform");
  if (sid) MHD_add_response_header(r, "Mcp-Session-Id", sid);
  enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_OK, r);
  MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result handle_post(http_server *hs, struct MHD_Connection *conn, http_req *r) {
  rpc_frame frame;
  if (rpc_frame_parse(r->body ? r->body : "", r->len, &frame) != 0)
    return refuse(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, RPC_INTERNAL_ERROR, "Internal error: out of memory");
  if (frame.n == 1 && frame.msgs[0].kind == RPC_INVALID && frame.msgs[0].error == RPC_PARSE_ERROR) {
    enum MHD_Result ok = refuse(conn, MHD_HTTP_BAD_REQUEST, RPC_PARSE_ERROR, frame.msgs[0].why);
    rpc_frame_free(&frame);
    return ok;
  }
  mcp_session *s = NULL;
  const char *sid = header(conn, "Mcp-Session-Id");
  int init = mcp_frame_has_initialize(&frame);
  enum MHD_Result ok = MHD_YES;
  if (init && frame.n > 1) {
    ok = refuse(conn, MHD_HTTP_BAD_REQUEST, RPC_INVALID_REQUEST,
                "Invalid Request: initialize must be the only message of its request");
  } else if (init) {
    s = mcp_session_new(hs->srv);
    if (!s) ok = refuse(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, RPC_INTERNAL_ERROR, "Internal error: out of memory");
  } else if (!sid) {
    ok = refuse(conn, MHD_HTTP_BAD_REQUEST, RPC_SERVER_ERROR, "Bad Request: Mcp-Session-Id header is required");
  } else if (!(s = mcp_sessions_get(hs->sessions, sid))) {
    ok = refuse(conn, MHD_HTTP_NOT_FOUND, -32001, "Session not found");
  }
  if (!s) {
    rpc_frame_free(&frame);
    return ok;
  }
  http_channel *c = channel_new(hs);
  if (!c) {
    mcp_session_unref(s);
    rpc_frame_free(&frame);
    return refuse(conn, MHD_HTTP_SERVICE_UNAVAILABLE, RPC_SERVER_ERROR, "Service Unavailable: the server is stopping");
  }
  mcp_frame_result res;
  /* Deferred requests are counted before the worker can finish one. */
  pthread_mutex_lock(&c->lock);
  c->pending = (size_t)-1 / 2;
  pthread_mutex_unlock(&c->lock);
  mcp_session_handle(s, &frame, &c->base, &res);
  pthread_mutex_lock(&c->lock);
  size_t finished = (size_t)-1 / 2 - c->pending;
  c->pending = res.deferred - finished;
  pthread_mutex_unlock(&c->lock);
  char new_sid[MCP_SESSION_ID_LEN + 1];
  const char *reply_sid = NULL;
  if (init && res.initialized) {
    if (mcp_sessions_add(hs->sessions, s, new_sid) == 0) {
      atomic_fetch_add(&hs->live_sessions, 1);
      reply_sid = new_sid;
    } else {
      ok = refuse(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, RPC_INTERNAL_ERROR,
                  "Internal error: no session id could be made");
      mcp_session_close(s);
      mcp_session_unref(s);
      mcp_channel_unref(&c->base);
      rpc_frame_free(&frame);
      return ok;
    }
  }
  if (res.deferred)
    ok = reply_stream(conn, c, reply_sid);
  else if (res.answered)
    ok = reply_collected(conn, c, frame.batch, reply_sid);
  else
    ok = respond(conn, MHD_HTTP_ACCEPTED, NULL, "", 0, reply_sid); /* notifications only */
  if (init && !res.initialized) mcp_session_close(s);              /* a failed initialize made no session */
  mcp_session_unref(s);
  mcp_channel_unref(&c->base);
  rpc_frame_free(&frame);
  return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
  (void)version;
  http_server *hs = cls;
  http_req *r = *con_cls;
  if (!r) {
    r = calloc(1, sizeof *r);
    if (!r) return MHD_NO;
    *con_cls = r;
    if (refused_early(hs, conn, url, method, r)) return MHD_YES;
    if (strcmp(method, "DELETE") == 0) {
      r->answered = 1;
      return handle_delete(hs, conn);
    }
    return MHD_YES;
  }
  if (r->answered) {
    *upload_data_size = 0; /* a refused request's body is dropped unread */
    return MHD_YES;
  }
  if (*upload_data_size) {
    size_t n = *upload_data_size;
    *upload_data_size = 0;
    if (r->too_large || r->len + n > RPC_MAX_FRAME) {
      /* Only a chunked body gets here (a Content-Length over the bound was
       * refused before any of it was read), and libmicrohttpd can answer
       * only once the body is in: the rest is counted, not kept, up to as
       * much again, then the connection is closed without an answer. */
      if (!r->too_large) {
        free(r->body);
        r->body = NULL;
        r->cap = 0;
        r->too_large = 1;
      }
      r->len += n;
      return r->len > 2 * RPC_MAX_FRAME ? MHD_NO : MHD_YES;
    }
    if (r->len + n > r->cap) {
      size_t ncap = r->cap ? r->cap : 4096;
      while (ncap < r->len + n) ncap *= 2;
      if (ncap > RPC_MAX_FRAME) ncap = RPC_MAX_FRAME;
      char *p = realloc(r->body, ncap);
      if (!p) return MHD_NO;
      r->body = p;
      r->cap = ncap;
    }
    memcpy(r->body + r->len, upload_data, n);
    r->len += n;
    return MHD_YES;
  }
  r->answered = 1;
  if (r->too_large) {
    char why[128];
    snprintf(why, sizeof why, "Payload Too Large: a request body may have at most %zu bytes", RPC_MAX_FRAME);
    return refuse(conn, MHD_HTTP_CONTENT_TOO_LARGE, RPC_SERVER_ERROR, why);
  }
  return handle_post(hs, conn, r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe) {
  (void)cls, (void)conn, (void)toe;
  http_req *r = *con_cls;
  if (!r) return;
  free(r->body);
  free(r);
  *con_cls = NULL;
}

/* libmicrohttpd's own diagnostics (bind failures, protocol errors). */
static void mhd_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void mhd_log(void *cls, const char *fmt, va_list ap) {
  (void)cls;
  fputs("sbio mcp: http: ", stderr);
  vfprintf(stderr, fmt, ap);
}

/* ------------------------------------------------------------ serving */
static int resolve(const char *host, int port, struct sockaddr_storage *out, socklen_t *len) {
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  char service[8];
  snprintf(service, sizeof service, "%d", port);
  const char *h = host;
  char unbracketed[64];
  size_t n = strlen(host);
  if (n > 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof unbracketed) {
    memcpy(unbracketed, host + 1, n - 2);
    unbracketed[n - 2] = '\0';
    h = unbracketed;
  }
  if (getaddrinfo(h, service, &hints, &ai) != 0 || !ai) return -1;
  memcpy(out, ai->ai_addr, ai->ai_addrlen);
  *len = ai->ai_addrlen;
  freeaddrinfo(ai);
  return 0;
}

int mcp_http_serve(mcp_server *srv, mcp_shutdown *sd) {
  const mcp_config *cfg = srv->cfg;
  http_server hs;
  memset(&hs, 0, sizeof hs);
  hs.srv = srv;
  hs.sd = sd;
  atomic_init(&hs.live_sessions, 0);
  pthread_mutex_init(&hs.lock, NULL);
  hs.guard.loopback = mcp_guard_is_loopback(cfg->host);
  hs.guard.allow_origins = cfg->allow_origins;
  hs.guard.n_allow_origins = cfg->n_allow_origins;
  hs.sessions = mcp_sessions_new();
  struct sockaddr_storage addr;
  socklen_t addr_len = 0;
  if (!hs.sessions) {
    pthread_mutex_destroy(&hs.lock);
    fputs("sbio mcp: error: out of memory\n", stderr);
    return CLI_EXIT_INTERNAL;
  }
  if (resolve(cfg->host, cfg->port, &addr, &addr_len) != 0) {
    mcp_sessions_free(hs.sessions);
    pthread_mutex_destroy(&hs.lock);
    fprintf(stderr, "sbio mcp: error: --host %s is not an address this machine can listen on\n", cfg->host);
    return CLI_EXIT_USAGE;
  }
  if (!hs.guard.loopback)
    fprintf(stderr,
            "sbio mcp: warning: listening on %s, which is not a loopback address: MCP has no authentication here, "
            "so anyone who can reach it can run code in the sandbox\n",
            cfg->host);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG |
                   (addr.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
  /* The logger first, so even the option parsing reports through it. */
  struct MHD_Daemon *d = MHD_start_daemon(
      flags, (uint16_t)cfg->port, NULL, NULL, on_request, &hs, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HEADER_MEMORY, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)IDLE_TIMEOUT_S, MHD_OPTION_NOTIFY_COMPLETED, on_completed, &hs, MHD_OPTION_END);
  if (!d) {
    mcp_sessions_free(hs.sessions);
    pthread_mutex_destroy(&hs.lock);
    fprintf(stderr, "sbio mcp: error: cannot listen on %s port %d (in use, or not allowed)\n", cfg->host, cfg->port);
    return CLI_EXIT_UNAVAILABLE;
  }
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  hs.guard.port = info ? info->port : cfg->port;
  int v6 = strchr(cfg->host, ':') != NULL && cfg->host[0] != '[';
  fprintf(stderr, "sbio mcp: serving MCP over streamable HTTP at http://%s%s%s:%d%s\n", v6 ? "[" : "", cfg->host,
          v6 ? "]" : "", hs.guard.port, MCP_PATH);
  fflush(stderr);

  struct pollfd p = {mcp_shutdown_fd(sd), POLLIN, 0};
  while (!mcp_shutdown_requested(sd)) {
    if (poll(&p, 1, -1) < 0 && errno != EINTR) break;
  }

  /* Streams end now (their readers wake and finish), then the daemon
   * joins its connection threads, then the sessions go. */
  pthread_mutex_lock(&hs.lock);
  hs.stopping = 1;
  for (http_channel *c = hs.channels; c; c = c->next) {
    pthread_mutex_lock(&c->lock);
    c->stopping = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
  }
  pthread_mutex_unlock(&hs.lock);
  MHD_stop_daemon(d);
  /* Ending the sessions drops their queued calls and cancels the running
   * one; the kill makes sure a command that cannot be cancelled alone ends
   * too. The worker then lets go of the last channels, which point into
   * `hs`: wait for them before it goes. */
  mcp_sessions_free(hs.sessions);
  mcp_holder_shutdown(srv->holder);
  for (;;) {
    pthread_mutex_lock(&hs.lock);
    int left = hs.channels != NULL;
    pthread_mutex_unlock(&hs.lock);
    if (!left) break;
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  pthread_mutex_destroy(&hs.lock);
  return 0;
}
