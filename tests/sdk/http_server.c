/* SPDX-License-Identifier: MIT */
#include "http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATHS 64

struct test_server {
  int fd;
  int port;
  char unix_path[108];
  pthread_t thread;
  atomic_int stop;
  pthread_mutex_t lock;
  char paths[MAX_PATHS][128];
  int hits[MAX_PATHS];
  int n_paths;
};

static int count_hit(test_server *s, const char *path) {
  pthread_mutex_lock(&s->lock);
  int i = 0;
  while (i < s->n_paths && strcmp(s->paths[i], path) != 0) i++;
  if (i == s->n_paths && i < MAX_PATHS) {
    snprintf(s->paths[i], sizeof s->paths[i], "%s", path);
    s->n_paths++;
  }
  int n = i < MAX_PATHS ? ++s->hits[i] : 0;
  pthread_mutex_unlock(&s->lock);
  return n;
}

int test_server_hits(test_server *s, const char *path) {
  pthread_mutex_lock(&s->lock);
  int n = 0;
  for (int i = 0; i < s->n_paths; i++)
    if (!strcmp(s->paths[i], path)) n = s->hits[i];
  pthread_mutex_unlock(&s->lock);
  return n;
}

static void send_all(int fd, const char *data, size_t len) {
  while (len) {
    ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
    if (n <= 0) return;
    data += n;
    len -= (size_t)n;
  }
}

static void answer(int fd, int status, const char *extra_headers, const char *body, size_t len) {
  char head[512];
  int n = snprintf(head, sizeof head, "HTTP/1.1 %d Test\r\nContent-Length: %zu\r\nConnection: close\r\n%s\r\n", status,
                   len, extra_headers ? extra_headers : "");
  send_all(fd, head, (size_t)n);
  send_all(fd, body, len);
}

static void answer_text(int fd, int status, const char *headers, const char *body) {
  answer(fd, status, headers, body, strlen(body));
}

/* Waits until the client closes the connection (or the server stops). */
static void hang(test_server *s, int fd) {
  for (int waited = 0; waited < 20000 && !atomic_load(&s->stop); waited += 50) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 50) > 0) {
      char buf[256];
      if (recv(fd, buf, sizeof buf, 0) <= 0) return;
    }
  }
}

static const char *header_value(const char *head, const char *name, char *buf, size_t size) {
  buf[0] = '\0';
  size_t nlen = strlen(name);
  for (const char *line = strstr(head, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
    if (!strncasecmp(line + 2, name, nlen) && line[2 + nlen] == ':') {
      const char *v = line + 3 + nlen;
      while (*v == ' ') v++;
      size_t len = strcspn(v, "\r\n");
      snprintf(buf, size, "%.*s", (int)(len < size ? len : size - 1), v);
      break;
    }
  }
  return buf;
}

static void route(test_server *s, int fd, const char *method, const char *path, const char *head, const char *body,
                  size_t body_len) {
  int hit = count_hit(s, path);
  int a = 0, b = 0;
  char buf[512], v1[128], v2[128];
  if (!strcmp(path, "/ok")) {
    answer_text(fd, 200, "Content-Type: application/json\r\n", "{\"ok\":true}");
  } else if (sscanf(path, "/status/%d", &a) == 1) {
    snprintf(buf, sizeof buf, "{\"message\":\"status %d from the test server\"}", a);
    answer_text(fd, a, "Content-Type: application/json\r\n", buf);
  } else if (sscanf(path, "/flaky/%d/%d", &a, &b) == 2) {
    if (hit <= a)
      answer_text(fd, b, NULL, "{\"message\":\"try again\"}");
    else
      answer_text(fd, 200, NULL, "done");
  } else if (sscanf(path, "/retry-after/%d", &a) == 1) {
    snprintf(buf, sizeof buf, "Retry-After: %d\r\n", a);
    if (hit == 1)
      answer_text(fd, 429, buf, "{\"message\":\"slow down\"}");
    else
      answer_text(fd, 200, NULL, "done");
  } else if (!strcmp(path, "/retry-after-date")) {
    if (hit == 1)
      answer_text(fd, 503, "Retry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n", "busy");
    else
      answer_text(fd, 200, NULL, "done");
  } else if (!strcmp(path, "/hang")) {
    hang(s, fd);
  } else if (sscanf(path, "/big/%d", &a) == 1 && a >= 0) {
    char *big = malloc((size_t)a + 1);
    if (!big) return;
    memset(big, 'x', (size_t)a);
    answer(fd, 200, NULL, big, (size_t)a);
    free(big);
  } else if (!strcmp(path, "/binary")) {
    answer(fd, 200, NULL, "a\0b", 3);
  } else if (!strcmp(path, "/echo")) {
    snprintf(buf, sizeof buf, "%s|%s|%s|%.*s", method, header_value(head, "X-Test", v1, sizeof v1),
             header_value(head, "Content-Type", v2, sizeof v2), (int)body_len, body);
    answer_text(fd, 200, NULL, buf);
  } else if (!strcmp(path, "/leak")) {
    answer_text(fd, 400, NULL, "{\"message\":\"refused key sk-SECRET-123 and hostsecret\"}");
  } else if (!strcmp(path, "/html")) {
    answer_text(fd, 500, "Content-Type: text/html\r\n", "<html><body>Internal Server Error</body></html>");
  } else if (!strcmp(path, "/text")) {
    answer_text(fd, 502, NULL, "upstream down\nsecond line");
  } else if (!strcmp(path, "/nested-error")) {
    answer_text(fd, 409, NULL, "{\"error\":{\"message\":\"already exists\"}}");
  } else {
    answer_text(fd, 404, NULL, "{\"message\":\"no route\"}");
  }
}

static void serve(test_server *s, int fd) {
  char req[65536];
  size_t len = 0;
  char *end = NULL;
  while (!end && len < sizeof req - 1) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 2000) <= 0) return;
    ssize_t n = recv(fd, req + len, sizeof req - 1 - len, 0);
    if (n <= 0) return;
    len += (size_t)n;
    req[len] = '\0';
    end = strstr(req, "\r\n\r\n");
  }
  if (!end) return;
  char method[16] = "", path[256] = "", cl[32];
  if (sscanf(req, "%15s %255s", method, path) != 2) return;
  size_t head_len = (size_t)(end - req) + 4;
  char head[8192];
  snprintf(head, sizeof head, "%.*s", (int)(head_len < sizeof head ? head_len : sizeof head - 1), req);
  size_t want = (size_t)strtoul(header_value(head, "Content-Length", cl, sizeof cl), NULL, 10);
  while (len - head_len < want && len < sizeof req - 1) {
    ssize_t n = recv(fd, req + len, sizeof req - 1 - len, 0);
    if (n <= 0) break;
    len += (size_t)n;
  }
  req[len] = '\0';
  route(s, fd, method, path, head, req + head_len, len - head_len);
}

static void *loop(void *arg) {
  test_server *s = arg;
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

test_server *test_server_start(const char *unix_path) {
  test_server *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  pthread_mutex_init(&s->lock, NULL);
  int ok = 0;
  if (unix_path) {
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", unix_path);
    snprintf(s->unix_path, sizeof s->unix_path, "%s", unix_path);
    unlink(unix_path);
    s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ok = s->fd >= 0 && bind(s->fd, (struct sockaddr *)&addr, sizeof addr) == 0;
  } else {
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof addr;
    s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ok = s->fd >= 0 && bind(s->fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
         getsockname(s->fd, (struct sockaddr *)&addr, &alen) == 0;
    s->port = ntohs(addr.sin_port);
  }
  if (!ok || listen(s->fd, 16) != 0 || pthread_create(&s->thread, NULL, loop, s) != 0) {
    if (s->fd >= 0) close(s->fd);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
  }
  return s;
}

int test_server_port(const test_server *s) {
  return s->port;
}

void test_server_stop(test_server *s) {
  if (!s) return;
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  close(s->fd);
  if (s->unix_path[0]) unlink(s->unix_path);
  pthread_mutex_destroy(&s->lock);
  free(s);
}
