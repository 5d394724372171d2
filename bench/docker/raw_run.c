/* SPDX-License-Identifier: MIT */
/* The one-shot row's floor: one `docker run --rm` with the bench's hardening,
 * done as a whole process by the least a client can do. No HTTP library,
 * blocking sockets, the engine's answers read just far enough: create,
 * attach, wait for the removal, start, read the attach stream to its end,
 * read the wait's answer. What this process costs, on the wall and in CPU, is
 * the bound under which no client of this engine can go, so the row says how
 * much of `sbio run`'s time is sandboxio's and how much the engine's. It is
 * a measuring tool for a trusted local engine, not a client: it checks no
 * more than it needs to stop on an error. Built and driven by
 * bench/docker/run.sh.
 *
 *   raw_run SOCKET IMAGE
 *
 * Exits with the container's exit status (0 for `true`), 1 on any error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *sock_path;

static int dial(void) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || strlen(sock_path) >= sizeof a.sun_path) return -1;
  memcpy(a.sun_path, sock_path, strlen(sock_path) + 1);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static int send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Sends one request and reads until the head and, when `want` is given,
 * that text have arrived: enough for the short answers used here. */
static int exchange(int fd, const char *method, const char *path, const char *json, const char *want, char *out,
                    size_t size) {
  char req[2048];
  int n = snprintf(req, sizeof req,
                   "%s /v1.41%s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                   "Content-Length: %zu\r\n%s\r\n%s",
                   method, path, json ? strlen(json) : 0,
                   strstr(path, "/attach") ? "Connection: Upgrade\r\nUpgrade: tcp\r\n" : "", json ? json : "");
  if (n < 0 || (size_t)n >= sizeof req || send_all(fd, req, (size_t)n) != 0) return -1;
  size_t len = 0;
  for (;;) {
    ssize_t r = read(fd, out + len, size - 1 - len);
    if (r <= 0) return -1;
    len += (size_t)r;
    out[len] = '\0';
    char *head_end = strstr(out, "\r\n\r\n");
    if (head_end && (!want || strstr(head_end, want))) break;
    if (len == size - 1) return -1;
  }
  return atoi(out + 9); /* "HTTP/1.1 NNN" */
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: raw_run SOCKET IMAGE\n");
    return 1;
  }
  sock_path = argv[1];
  char body[1024], buf[8192], path[256], id[80];
  snprintf(body, sizeof body,
           "{\"Image\":\"%s\",\"Cmd\":[\"true\"],\"AttachStdout\":true,\"AttachStderr\":true,"
           "\"HostConfig\":{\"NetworkMode\":\"none\",\"CapDrop\":[\"ALL\"],\"SecurityOpt\":[\"no-new-privileges\"],"
           "\"PidsLimit\":512,\"Memory\":536870912,\"MemorySwap\":536870912,\"NanoCpus\":1000000000,"
           "\"Init\":true,\"AutoRemove\":true}}",
           argv[2]);
  int api = dial(), att = dial(), wait = dial();
  if (api < 0 || att < 0 || wait < 0) return 1;
  if (exchange(api, "POST", "/containers/create", body, "}", buf, sizeof buf) != 201) return 1;
  const char *p = strstr(buf, "\"Id\":\"");
  if (!p || sscanf(p + 6, "%64[0-9a-f]", id) != 1) return 1;
  snprintf(path, sizeof path, "/containers/%s/attach?stream=1&stdout=1&stderr=1", id);
  if (exchange(att, "POST", path, NULL, NULL, buf, sizeof buf) != 101) return 1;
  /* The wait's head arrives once the wait is registered, before the start:
   * the same order the docker CLI keeps, so the exit cannot be missed. */
  snprintf(path, sizeof path, "/containers/%s/wait?condition=removed", id);
  char wbuf[1024];
  if (exchange(wait, "POST", path, NULL, NULL, wbuf, sizeof wbuf) != 200) return 1;
  snprintf(path, sizeof path, "/containers/%s/start", id);
  if (exchange(api, "POST", path, NULL, NULL, buf, sizeof buf) != 204) return 1;
  while (read(att, buf, sizeof buf) > 0) {
  }
  size_t len = strlen(wbuf);
  while (!strstr(wbuf, "StatusCode")) {
    ssize_t r = read(wait, wbuf + len, sizeof wbuf - 1 - len);
    if (r <= 0) return 1;
    len += (size_t)r;
    wbuf[len] = '\0';
  }
  close(api);
  close(att);
  close(wait);
  return atoi(strstr(wbuf, "StatusCode") + 12);
}
