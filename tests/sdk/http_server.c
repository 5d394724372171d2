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
  atomic_int active;      /* connection threads still running */
  atomic_int connections; /* accepted so far */
  pthread_mutex_t lock;
  pthread_cond_t opened; /* /open was requested */
  int open_hits;
  char paths[MAX_PATHS][128];
  int hits[MAX_PATHS];
  int n_paths;
};

typedef struct conn {
  test_server *s;
  int fd;
} conn;

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

/* Keep-alive: the connection serves the next request (route() returns 1
 * for the answers after which it must close). */
static void answer(int fd, int status, const char *extra_headers, const char *body, size_t len) {
  char head[512];
  int n = snprintf(head, sizeof head, "HTTP/1.1 %d Test\r\nContent-Length: %zu\r\n%s\r\n", status, len,
                   extra_headers ? extra_headers : "");
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

static void http_date(time_t when, char *buf, size_t size) {
  struct tm tm;
  gmtime_r(&when, &tm);
  strftime(buf, size, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static void chunk(int fd, const char *text) {
  char head[32];
  int n = snprintf(head, sizeof head, "%zx\r\n", strlen(text));
  send_all(fd, head, (size_t)n);
  send_all(fd, text, strlen(text));
  send_all(fd, "\r\n", 2);
}

/* /gate: a streamed answer that only ends once /open was requested, which
 * a client can only do on another connection while this one is open. */
static void gate(test_server *s, int fd) {
  static const char head[] = "HTTP/1.1 200 Test\r\nTransfer-Encoding: chunked\r\n\r\n";
  send_all(fd, head, sizeof head - 1);
  chunk(fd, "waiting\n");
  pthread_mutex_lock(&s->lock);
  int before = s->open_hits, waited = 0;
  while (s->open_hits == before && waited++ < 200 && !atomic_load(&s->stop)) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 50 * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&s->opened, &s->lock, &until);
  }
  int opened = s->open_hits != before;
  pthread_mutex_unlock(&s->lock);
  chunk(fd, opened ? "opened\n" : "timed out\n");
  send_all(fd, "0\r\n\r\n", 5);
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Answers one request; returns 1 when the connection must close after it. */
static int route(test_server *s, int fd, const char *method, const char *path, const char *head, const char *body,
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
  } else if (sscanf(path, "/retry-after-date-in/%d", &a) == 1) {
    char date[64], header[96];
    http_date(time(NULL) + a, date, sizeof date);
    snprintf(header, sizeof header, "Retry-After: %s\r\n", date);
    if (hit == 1)
      answer_text(fd, 429, header, "{\"message\":\"slow down\"}");
    else
      answer_text(fd, 200, NULL, "done");
  } else if (!strcmp(path, "/hang")) {
    hang(s, fd);
    return 1;
  } else if (!strcmp(path, "/reset")) {
    return 1; /* closes without a word */
  } else if (sscanf(path, "/slow/%d", &a) == 1) {
    sleep_ms(a);
    answer_text(fd, 200, NULL, "slow");
  } else if (!strcmp(path, "/gate")) {
    gate(s, fd);
    return 1;
  } else if (!strcmp(path, "/open")) {
    pthread_mutex_lock(&s->lock);
    s->open_hits++;
    pthread_cond_broadcast(&s->opened);
    pthread_mutex_unlock(&s->lock);
    answer_text(fd, 200, NULL, "open");
  } else if (!strcmp(path, "/multipart")) {
    /* "<Content-Type>\n<body>", binary-safe. */
    size_t n = strlen(header_value(head, "Content-Type", v1, sizeof v1));
    char *out = malloc(n + 1 + body_len);
    if (!out) return 1;
    memcpy(out, v1, n);
    out[n] = '\n';
    memcpy(out + n + 1, body, body_len);
    answer(fd, 200, NULL, out, n + 1 + body_len);
    free(out);
  } else if (sscanf(path, "/big/%d", &a) == 1 && a >= 0) {
    char *big = malloc((size_t)a + 1);
    if (!big) return 1;
    memset(big, 'x', (size_t)a);
    answer(fd, 200, NULL, big, (size_t)a);
    free(big);
  } else if (!strcmp(path, "/binary")) {
    answer(fd, 200, NULL, "a\0b", 3);
  } else if (!strcmp(path, "/echo")) {
    snprintf(buf, sizeof buf, "%s|%s|%s|%.*s", method, header_value(head, "X-Test", v1, sizeof v1),
             header_value(head, "Content-Type", v2, sizeof v2), (int)body_len, body);
    answer_text(fd, 200, NULL, buf);
  } else if (!strcmp(path, "/leak-at-the-cut")) {
    /* The key begins 7 bytes before the 240 the SDK quotes. */
    char leak[400];
    snprintf(leak, sizeof leak, "{\"message\":\"%0232d sk-SECRET-123 was refused\"}", 0);
    answer_text(fd, 400, NULL, leak);
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
  return 0;
}

/* Reads one request (head and Content-Length body) into a malloc'd
 * buffer. 0, or -1 when the client went away, the server stops, or it
 * stayed silent for idle_ms. */
static int read_request(test_server *s, int fd, char **out, size_t *out_len, size_t *head_len, int idle_ms) {
  size_t cap = 65536, len = 0;
  char *req = malloc(cap + 1), *end = NULL;
  if (!req) return -1;
  int idle = 0;
  while (!end) {
    if (len == cap || atomic_load(&s->stop)) goto fail;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int ready = poll(&p, 1, 50);
    if (ready == 0) {
      if ((idle += 50) >= idle_ms) goto fail;
      continue;
    }
    ssize_t n = ready > 0 ? recv(fd, req + len, cap - len, 0) : -1;
    if (n <= 0) goto fail;
    len += (size_t)n;
    req[len] = '\0';
    end = strstr(req, "\r\n\r\n");
  }
  *head_len = (size_t)(end - req) + 4;
  char cl[32], head[8192];
  snprintf(head, sizeof head, "%.*s", (int)(*head_len < sizeof head ? *head_len : sizeof head - 1), req);
  size_t want = (size_t)strtoul(header_value(head, "Content-Length", cl, sizeof cl), NULL, 10);
  if (want > cap - *head_len) goto fail;
  while (len - *head_len < want) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 2000) <= 0) goto fail;
    ssize_t n = recv(fd, req + len, cap - len, 0);
    if (n <= 0) goto fail;
    len += (size_t)n;
  }
  req[len] = '\0';
  *out = req;
  *out_len = len;
  return 0;
fail:
  free(req);
  return -1;
}

/* One connection: requests one after the other until the client closes,
 * goes quiet, or an answer ends the connection. */
static void *serve(void *arg) {
  conn *cn = arg;
  test_server *s = cn->s;
  for (;;) {
    char *req = NULL;
    size_t len = 0, head_len = 0;
    if (read_request(s, cn->fd, &req, &len, &head_len, 5000) != 0) break;
    char method[16] = "", path[256] = "", head[8192];
    int close_after = sscanf(req, "%15s %255s", method, path) != 2;
    snprintf(head, sizeof head, "%.*s", (int)(head_len < sizeof head ? head_len : sizeof head - 1), req);
    if (!close_after) close_after = route(s, cn->fd, method, path, head, req + head_len, len - head_len);
    free(req);
    if (close_after) break;
  }
  close(cn->fd);
  free(cn);
  atomic_fetch_sub(&s->active, 1);
  return NULL;
}

static void *loop(void *arg) {
  test_server *s = arg;
  while (!atomic_load(&s->stop)) {
    struct pollfd p = {.fd = s->fd, .events = POLLIN};
    if (poll(&p, 1, 50) <= 0) continue;
    int fd = accept(s->fd, NULL, NULL);
    if (fd < 0) continue;
    atomic_fetch_add(&s->connections, 1);
    conn *cn = malloc(sizeof *cn);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    atomic_fetch_add(&s->active, 1);
    if (cn) *cn = (conn){.s = s, .fd = fd};
    if (!cn || pthread_create(&t, &attr, serve, cn) != 0) {
      atomic_fetch_sub(&s->active, 1);
      close(fd);
      free(cn);
    }
    pthread_attr_destroy(&attr);
  }
  return NULL;
}

test_server *test_server_start(const char *unix_path) {
  test_server *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->opened, NULL);
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
    pthread_cond_destroy(&s->opened);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
  }
  return s;
}

int test_server_port(const test_server *s) {
  return s->port;
}

int test_server_connections(test_server *s) {
  return atomic_load(&s->connections);
}

void test_server_stop(test_server *s) {
  if (!s) return;
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  /* Connection threads notice the flag within a poll (50 ms). */
  for (int i = 0; i < 400 && atomic_load(&s->active) > 0; i++) sleep_ms(25);
  close(s->fd);
  if (s->unix_path[0]) unlink(s->unix_path);
  pthread_cond_destroy(&s->opened);
  pthread_mutex_destroy(&s->lock);
  free(s);
}
