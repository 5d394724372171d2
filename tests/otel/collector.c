/* SPDX-License-Identifier: MIT */
/* Test collector; see collector.h. */
#include "collector.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_HEADERS 64
#define MAX_HEAD_BYTES 65536
#define MAX_BODY_BYTES (64 * 1024 * 1024)

typedef struct request {
  char method[16];
  char path[512];
  char *names[MAX_HEADERS], *values[MAX_HEADERS];
  size_t n_headers;
  char *body;
  cJSON *json;
} request;

struct collector {
  collector_mode mode;
  int status, delay_ms;
  int listen_fd, stop_pipe[2];
  char url[64];
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t arrived;
  request *reqs;
  size_t n, cap;
};

static void fail_hard(const char *what) {
  fprintf(stderr, "collector: %s: %s\n", what, strerror(errno));
  abort();
}

/* Waits for fd to be readable or the stop pipe; 1 readable, 0 stop. */
static int wait_readable(collector *c, int fd) {
  struct pollfd p[2] = {{fd, POLLIN, 0}, {c->stop_pipe[0], POLLIN, 0}};
  for (;;) {
    int r = poll(p, 2, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_hard("poll");
    if (p[1].revents) return 0;
    if (p[0].revents) return 1;
  }
}

typedef struct conn {
  int fd;
  char *buf;
  size_t len, cap;
} conn;

/* Reads more bytes; 0 on EOF, error or stop. */
static int fill(collector *c, conn *k) {
  if (!wait_readable(c, k->fd)) return 0;
  if (k->cap - k->len < 65536) {
    k->cap = k->cap * 2 + 65536;
    k->buf = realloc(k->buf, k->cap);
    if (!k->buf) fail_hard("realloc");
  }
  ssize_t n = recv(k->fd, k->buf + k->len, k->cap - k->len - 1, 0);
  if (n <= 0) return 0;
  k->len += (size_t)n;
  k->buf[k->len] = '\0';
  return 1;
}

static void write_all(int fd, const char *s) {
  size_t len = strlen(s);
  while (len) {
    ssize_t n = send(fd, s, len, MSG_NOSIGNAL);
    if (n <= 0) return;
    s += n;
    len -= (size_t)n;
  }
}

static const char *find_header(const request *r, const char *name) {
  for (size_t i = 0; i < r->n_headers; i++)
    if (!strcasecmp(r->names[i], name)) return r->values[i];
  return NULL;
}

/* Parses one request head from k->buf; returns its length, 0 when more
 * bytes are needed, -1 when malformed. */
static long parse_head(conn *k, request *r) {
  char *end = strstr(k->buf, "\r\n\r\n");
  if (!end) return k->len > MAX_HEAD_BYTES ? -1 : 0;
  *end = '\0';
  char *line = k->buf, *next = strstr(line, "\r\n");
  if (next) *next = '\0';
  if (sscanf(line, "%15s %511s", r->method, r->path) != 2) return -1;
  while (next && r->n_headers < MAX_HEADERS) {
    line = next + 2;
    next = strstr(line, "\r\n");
    if (next) *next = '\0';
    char *colon = strchr(line, ':');
    if (!colon) continue;
    *colon = '\0';
    char *value = colon + 1;
    while (*value == ' ' || *value == '\t') value++;
    r->names[r->n_headers] = strdup(line);
    r->values[r->n_headers] = strdup(value);
    r->n_headers++;
  }
  return (long)(end - k->buf) + 4;
}

static void consume(conn *k, size_t n) {
  memmove(k->buf, k->buf + n, k->len - n);
  k->len -= n;
  k->buf[k->len] = '\0';
}

static void store(collector *c, request *r) {
  pthread_mutex_lock(&c->lock);
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 16;
    c->reqs = realloc(c->reqs, c->cap * sizeof *c->reqs);
    if (!c->reqs) fail_hard("realloc");
  }
  c->reqs[c->n++] = *r;
  pthread_cond_broadcast(&c->arrived);
  pthread_mutex_unlock(&c->lock);
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

/* Serves one connection until the peer closes it or we stop. */
static void serve(collector *c, int fd) {
  conn k = {fd, NULL, 0, 0};
  k.buf = calloc(1, 1); /* an empty, terminated buffer */
  if (!k.buf) fail_hard("calloc");
  k.cap = 1;
  for (;;) {
    request r;
    memset(&r, 0, sizeof r);
    long head;
    while ((head = parse_head(&k, &r)) == 0)
      if (!fill(c, &k)) goto done;
    if (head < 0) goto done;
    consume(&k, (size_t)head);
    const char *cl = find_header(&r, "Content-Length");
    size_t body_len = cl ? strtoul(cl, NULL, 10) : 0;
    if (body_len > MAX_BODY_BYTES) goto done;
    const char *expect = find_header(&r, "Expect");
    if (expect && !strcasecmp(expect, "100-continue")) write_all(fd, "HTTP/1.1 100 Continue\r\n\r\n");
    while (k.len < body_len)
      if (!fill(c, &k)) goto done;
    r.body = malloc(body_len + 1);
    memcpy(r.body, k.buf, body_len);
    r.body[body_len] = '\0';
    consume(&k, body_len);
    r.json = cJSON_Parse(r.body);
    store(c, &r);
    if (c->mode == COLLECTOR_BLACKHOLE) {
      while (fill(c, &k)) k.len = 0; /* swallow everything, answer nothing */
      goto done;
    }
    if (c->delay_ms) sleep_ms(c->delay_ms);
    char reply[160];
    snprintf(reply, sizeof reply, "HTTP/1.1 %d Test\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
             c->status);
    write_all(fd, reply);
  }
done:
  free(k.buf);
  close(fd);
}

static void *accept_loop(void *arg) {
  collector *c = arg;
  while (wait_readable(c, c->listen_fd)) {
    int fd = accept(c->listen_fd, NULL, NULL);
    if (fd < 0) continue;
    serve(c, fd);
  }
  return NULL;
}

static int bind_loopback(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail_hard("socket");
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
  socklen_t len = sizeof a;
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0)
    fail_hard("bind");
  *port = ntohs(a.sin_port);
  return fd;
}

collector *collector_start(collector_mode mode, int status, int delay_ms) {
  collector *c = calloc(1, sizeof *c);
  if (!c) fail_hard("calloc");
  c->mode = mode;
  c->status = status;
  c->delay_ms = delay_ms;
  int port;
  c->listen_fd = bind_loopback(&port);
  if (listen(c->listen_fd, 16) != 0 || pipe(c->stop_pipe) != 0) fail_hard("listen");
  snprintf(c->url, sizeof c->url, "http://127.0.0.1:%d", port);
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->arrived, NULL);
  if (pthread_create(&c->thread, NULL, accept_loop, c) != 0) fail_hard("pthread_create");
  return c;
}

const char *collector_url(const collector *c) {
  return c->url;
}

void collector_stop(collector *c) {
  if (!c) return;
  if (write(c->stop_pipe[1], "x", 1) != 1) fail_hard("write");
  pthread_join(c->thread, NULL);
  close(c->listen_fd);
  close(c->stop_pipe[0]);
  close(c->stop_pipe[1]);
  for (size_t i = 0; i < c->n; i++) {
    request *r = &c->reqs[i];
    for (size_t h = 0; h < r->n_headers; h++) {
      free(r->names[h]);
      free(r->values[h]);
    }
    free(r->body);
    cJSON_Delete(r->json);
  }
  free(c->reqs);
  pthread_cond_destroy(&c->arrived);
  pthread_mutex_destroy(&c->lock);
  free(c);
}

size_t collector_requests(collector *c) {
  pthread_mutex_lock(&c->lock);
  size_t n = c->n;
  pthread_mutex_unlock(&c->lock);
  return n;
}

static request *at(collector *c, size_t i) {
  pthread_mutex_lock(&c->lock);
  request *r = i < c->n ? &c->reqs[i] : NULL;
  pthread_mutex_unlock(&c->lock);
  return r;
}

const cJSON *collector_body(collector *c, size_t i) {
  request *r = at(c, i);
  return r ? r->json : NULL;
}
const char *collector_raw_body(collector *c, size_t i) {
  request *r = at(c, i);
  return r ? r->body : NULL;
}
const char *collector_path(collector *c, size_t i) {
  request *r = at(c, i);
  return r ? r->path : NULL;
}
const char *collector_method(collector *c, size_t i) {
  request *r = at(c, i);
  return r ? r->method : NULL;
}
const char *collector_header(collector *c, size_t i, const char *name) {
  request *r = at(c, i);
  return r ? find_header(r, name) : NULL;
}

static size_t spans_locked(collector *c, const cJSON **out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < c->n; i++) {
    const cJSON *rs, *ss, *span;
    cJSON_ArrayForEach(rs, cJSON_GetObjectItemCaseSensitive(c->reqs[i].json, "resourceSpans")) {
      cJSON_ArrayForEach(ss, cJSON_GetObjectItemCaseSensitive(rs, "scopeSpans")) {
        cJSON_ArrayForEach(span, cJSON_GetObjectItemCaseSensitive(ss, "spans")) {
          if (out && n < max) out[n] = span;
          n++;
        }
      }
    }
  }
  return n;
}

size_t collector_spans(collector *c, const cJSON **out, size_t max) {
  pthread_mutex_lock(&c->lock);
  size_t n = spans_locked(c, out, max);
  pthread_mutex_unlock(&c->lock);
  return n;
}

int collector_wait_spans(collector *c, size_t n, double seconds) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  long long ns = (long long)until.tv_nsec + (long long)(seconds * 1e9);
  until.tv_sec += (time_t)(ns / 1000000000LL);
  until.tv_nsec = (long)(ns % 1000000000LL);
  pthread_mutex_lock(&c->lock);
  int ok;
  while (!(ok = spans_locked(c, NULL, 0) >= n))
    if (pthread_cond_timedwait(&c->arrived, &c->lock, &until) == ETIMEDOUT) {
      ok = spans_locked(c, NULL, 0) >= n;
      break;
    }
  pthread_mutex_unlock(&c->lock);
  return ok;
}

int collector_unused_url(char *buf, size_t size) {
  int port;
  int fd = bind_loopback(&port); /* bound but not listening: connections are refused */
  snprintf(buf, size, "http://127.0.0.1:%d", port);
  return fd;
}
