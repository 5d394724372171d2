/* SPDX-License-Identifier: MIT */
#include "stream_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PATHS 32
#define REQ_MAX (4 << 20)

struct stream_server {
  int fd, port;
  pthread_t thread;
  atomic_int stop;
  atomic_int released; /* stream_server_release(): /wait sends its body */
  pthread_mutex_t lock;
  char paths[MAX_PATHS][128];
  int hits[MAX_PATHS];
  int n_paths;
};

static int count_hit(stream_server *s, const char *path) {
  pthread_mutex_lock(&s->lock);
  int i = 0;
  while (i < s->n_paths && strcmp(s->paths[i], path) != 0) i++;
  if (i == s->n_paths && i < MAX_PATHS) snprintf(s->paths[s->n_paths++], sizeof s->paths[0], "%s", path);
  int n = i < MAX_PATHS ? ++s->hits[i] : 0;
  pthread_mutex_unlock(&s->lock);
  return n;
}

int stream_server_hits(stream_server *s, const char *path) {
  pthread_mutex_lock(&s->lock);
  int n = 0;
  for (int i = 0; i < s->n_paths; i++)
    if (!strcmp(s->paths[i], path)) n = s->hits[i];
  pthread_mutex_unlock(&s->lock);
  return n;
}

static int send_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

static void answer(int fd, int status, const char *body, size_t len) {
  char head[256];
  int n =
      snprintf(head, sizeof head, "HTTP/1.1 %d Test\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", status, len);
  send_all(fd, head, (size_t)n);
  send_all(fd, body, len);
}

/* Reads what arrives next into buf (growing len): -1 when nothing came
 * within 2 s, the peer closed, or buf is full. */
static int read_more(int fd, char *buf, size_t *len, size_t cap) {
  struct pollfd p = {.fd = fd, .events = POLLIN};
  if (*len >= cap || poll(&p, 1, 2000) <= 0) return -1;
  ssize_t n = recv(fd, buf + *len, cap - *len, 0);
  if (n <= 0) return -1;
  *len += (size_t)n;
  return 0;
}

static const char *header(const char *head, const char *name, char *out, size_t size) {
  size_t nlen = strlen(name);
  for (const char *line = strstr(head, "\r\n"); line && line[2] != '\r'; line = strstr(line + 2, "\r\n"))
    if (!strncasecmp(line + 2, name, nlen) && line[2 + nlen] == ':') {
      const char *v = line + 3 + nlen;
      while (*v == ' ') v++;
      size_t k = strcspn(v, "\r\n");
      snprintf(out, size, "%.*s", (int)(k < size ? k : size - 1), v);
      return out;
    }
  return NULL;
}

/* The request's body (Content-Length or chunked), decoded, after the head
 * at buf[0..head_len). */
static char *read_body(int fd, char *buf, size_t *len, size_t head_len, const char *head, size_t *body_len) {
  char v[64];
  *body_len = 0;
  if (header(head, "Content-Length", v, sizeof v)) {
    size_t want = strtoul(v, NULL, 10);
    while (*len - head_len < want)
      if (read_more(fd, buf, len, REQ_MAX) != 0) break;
    *body_len = *len - head_len < want ? *len - head_len : want;
    return buf + head_len;
  }
  if (!header(head, "Transfer-Encoding", v, sizeof v) || strcasecmp(v, "chunked") != 0) return buf + head_len;
  char *out = malloc(REQ_MAX);
  size_t pos = head_len, o = 0;
  for (;;) {
    char *eol;
    while (!(eol = memmem(buf + pos, *len - pos, "\r\n", 2)))
      if (read_more(fd, buf, len, REQ_MAX) != 0) return out;
    size_t size = strtoul(buf + pos, NULL, 16);
    pos = (size_t)(eol - buf) + 2;
    while (*len - pos < size + 2)
      if (read_more(fd, buf, len, REQ_MAX) != 0) return out;
    if (size == 0) return out;
    memcpy(out + o, buf + pos, size);
    o += size;
    *body_len = o;
    pos += size + 2;
  }
}

static void upgraded(int fd, int status, const char *body, size_t body_len) {
  const char *head = status == 101 ? "HTTP/1.1 101 UPGRADED\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n"
                                   : "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.docker.raw-stream\r\n\r\n";
  char hello[512];
  int n = snprintf(hello, sizeof hello, "%shello:%.*s", head, (int)body_len, body);
  if (send_all(fd, hello, (size_t)n) != 0) return;
  char buf[4096];
  for (;;) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 5000) <= 0) return;
    ssize_t k = recv(fd, buf, sizeof buf, 0);
    if (k < 0) return;
    if (k == 0) break; /* the client half-closed */
    if (send_all(fd, buf, (size_t)k) != 0) return;
  }
  send_all(fd, "bye", 3);
}

static void stream(int fd, size_t total) {
  char head[128];
  int n = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", total);
  if (send_all(fd, head, (size_t)n) != 0) return;
  unsigned char piece[16384];
  for (size_t off = 0; off < total;) {
    size_t k = total - off < sizeof piece ? total - off : sizeof piece;
    for (size_t i = 0; i < k; i++) piece[i] = (unsigned char)((off + i) % 251);
    if (send_all(fd, piece, k) != 0) return;
    off += k;
  }
}

static void stall(stream_server *s, int fd) {
  const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n0123456789";
  send_all(fd, head, strlen(head));
  for (int waited = 0; waited < 20000 && !atomic_load(&s->stop); waited += 50) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char b[64];
    if (poll(&p, 1, 50) > 0 && recv(fd, b, sizeof b, 0) <= 0) return;
  }
}

/* Docker's container wait, in miniature: the head at once, the body only
 * when the test says the awaited thing happened (or the client leaves). */
static void wait_route(stream_server *s, int fd) {
  const char *head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
  if (send_all(fd, head, strlen(head)) != 0) return;
  for (int waited = 0; waited < 20000 && !atomic_load(&s->stop); waited += 20) {
    if (atomic_load(&s->released)) {
      const char *body = "10\r\n{\"StatusCode\":7}\r\n0\r\n\r\n";
      send_all(fd, body, strlen(body));
      return;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char b[64];
    if (poll(&p, 1, 20) > 0 && recv(fd, b, sizeof b, 0) <= 0) return;
  }
}

static void serve(stream_server *s, int fd) {
  char *buf = malloc(REQ_MAX + 1);
  size_t len = 0;
  char *end = NULL;
  while (!end) {
    if (read_more(fd, buf, &len, REQ_MAX) != 0) goto out;
    buf[len] = '\0';
    end = strstr(buf, "\r\n\r\n");
  }
  size_t head_len = (size_t)(end - buf) + 4;
  char head[8192], method[16] = "", path[256] = "";
  snprintf(head, sizeof head, "%.*s", (int)(head_len < sizeof head ? head_len : sizeof head - 1), buf);
  if (sscanf(head, "%15s %255s", method, path) != 2) goto out;
  int hit = count_hit(s, path);
  size_t body_len = 0;
  char *body = read_body(fd, buf, &len, head_len, head, &body_len);
  int a = 0;
  char v1[64], v2[64];
  int flaky = !strncmp(path, "/flaky-upload/", 14);
  if (!strcmp(path, "/upload") || (flaky && hit > 1)) {
    size_t cap = body_len + 200;
    char *out = malloc(cap);
    int n = snprintf(out, cap, "%s|%s|", header(head, "Content-Length", v1, sizeof v1) ? v1 : "-",
                     header(head, "Transfer-Encoding", v2, sizeof v2) ? v2 : "-");
    memcpy(out + n, body, body_len);
    answer(fd, 200, out, (size_t)n + body_len);
    free(out);
  } else if (flaky) {
    answer(fd, 503, "{\"message\":\"busy\"}", 18);
  } else if (sscanf(path, "/stream/%d", &a) == 1 && a >= 0) {
    stream(fd, (size_t)a);
  } else if (!strcmp(path, "/wait")) {
    wait_route(s, fd);
  } else if (!strcmp(path, "/stall")) {
    stall(s, fd);
  } else if (sscanf(path, "/status/%d", &a) == 1) {
    char msg[128];
    int n = snprintf(msg, sizeof msg, "{\"message\":\"status %d from the stream server\"}", a);
    answer(fd, a, msg, (size_t)n);
  } else if (!strcmp(path, "/upgrade") || !strcmp(path, "/upgrade-200")) {
    upgraded(fd, strcmp(path, "/upgrade") ? 200 : 101, body, body_len);
  } else if (!strcmp(path, "/upgrade-refused")) {
    answer(fd, 404, "{\"message\":\"no such exec\"}", 26);
  } else {
    answer(fd, 404, "{\"message\":\"no route\"}", 22);
  }
  if (body < buf || body > buf + REQ_MAX) free(body);
out:
  free(buf);
}

static void *loop(void *arg) {
  stream_server *s = arg;
  while (!atomic_load(&s->stop)) {
    struct pollfd p = {.fd = s->fd, .events = POLLIN};
    if (poll(&p, 1, 50) <= 0) continue;
    int fd = accept(s->fd, NULL, NULL);
    if (fd < 0) continue;
    serve(s, fd);
    close(fd);
  }
  return NULL;
}

stream_server *stream_server_start(void) {
  stream_server *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  pthread_mutex_init(&s->lock, NULL);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof addr;
  s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int ok = s->fd >= 0 && bind(s->fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
           getsockname(s->fd, (struct sockaddr *)&addr, &alen) == 0 && listen(s->fd, 16) == 0;
  s->port = ntohs(addr.sin_port);
  if (!ok || pthread_create(&s->thread, NULL, loop, s) != 0) {
    if (s->fd >= 0) close(s->fd);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
  }
  return s;
}

void stream_server_release(stream_server *s) {
  atomic_store(&s->released, 1);
}

int stream_server_port(const stream_server *s) {
  return s->port;
}

void stream_server_stop(stream_server *s) {
  if (!s) return;
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  close(s->fd);
  pthread_mutex_destroy(&s->lock);
  free(s);
}
