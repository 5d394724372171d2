/* SPDX-License-Identifier: MIT */
/* The warm-exec row's floor: N execs of `true` in a running container done
 * the minimal way with the Engine API and libcurl alone, as an expert would
 * write it, so the row compares sandboxio with what it wraps rather than
 * with the docker CLI. Built and driven by bench/docker/run.sh.
 *
 *   raw_exec SOCKET CONTAINER N
 *
 * Prints the same JSON line as sbio_bench's warm mode: median and p90 wall
 * per exec, and this process's CPU (user+sys) per exec. */
#include <curl/curl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
         (double)ru.ru_stime.tv_usec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Each response body, kept whole: the answers here are a few hundred bytes,
 * and `true` writes nothing to the exec stream. */
typedef struct body {
  char data[16384];
  size_t len;
} body;

static size_t keep(char *p, size_t size, size_t n, void *u) {
  body *b = u;
  size_t l = size * n, room = sizeof b->data - 1 - b->len;
  memcpy(b->data + b->len, p, l < room ? l : room);
  b->len += l < room ? l : room;
  b->data[b->len] = '\0';
  return l;
}

static CURL *curl;
static body resp;

/* One request on the shared handle: libcurl keeps its connection to the
 * socket between requests, as a long-lived client would. */
static long request(const char *path, const char *json) {
  char url[256];
  snprintf(url, sizeof url, "http://localhost%s", path);
  curl_easy_setopt(curl, CURLOPT_URL, url);
  if (json)
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, json);
  else
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  resp.len = 0;
  resp.data[0] = '\0';
  long status = 0;
  CURLcode rc = curl_easy_perform(curl);
  if (rc != CURLE_OK) {
    fprintf(stderr, "raw_exec: %s %s: %s\n", json ? "POST" : "GET", path, curl_easy_strerror(rc));
    exit(1);
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  return status;
}

static void fail(const char *what, long status) {
  fprintf(stderr, "raw_exec: %s: HTTP %ld: %s\n", what, status, resp.data);
  exit(1);
}

/* No JSON library: the two fields read here have fixed shapes, which is what
 * a minimal client would rely on. */
static void run_true(const char *container) {
  char path[256], id[128];
  snprintf(path, sizeof path, "/containers/%s/exec", container);
  long st = request(path, "{\"AttachStdout\":true,\"AttachStderr\":true,\"Cmd\":[\"true\"]}");
  const char *p = strstr(resp.data, "\"Id\":\"");
  if (st != 201 || !p || sscanf(p + 6, "%127[0-9a-f]", id) != 1) fail("exec create", st);
  /* Without "Upgrade: tcp" the engine still hijacks the connection: it
   * sends a 200 header, the multiplexed frames, and closes. libcurl reads
   * to that close and opens a new connection for the next request. */
  snprintf(path, sizeof path, "/exec/%s/start", id);
  st = request(path, "{\"Detach\":false,\"Tty\":false}");
  if (st != 200) fail("exec start", st);
  snprintf(path, sizeof path, "/exec/%s/json", id);
  /* The stream can end just before the engine records the exit: ask again
   * while it says running (the same wait sandboxio does). */
  for (int i = 0;; i++) {
    st = request(path, NULL);
    if (st != 200) fail("exec inspect", st);
    if (!strstr(resp.data, "\"Running\":true")) break;
    if (i == 100) fail("exec still running after its stream ended", st);
    nanosleep(&(struct timespec){0, 1000000L}, NULL);
  }
  p = strstr(resp.data, "\"ExitCode\":");
  if (!p || atoi(p + 11) != 0) fail("exit code of `true`", st);
}

int main(int argc, char **argv) {
  long n = argc == 4 ? atol(argv[3]) : 0;
  if (n <= 0) {
    fprintf(stderr, "usage: raw_exec SOCKET CONTAINER N\n");
    return 64;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  curl = curl_easy_init();
  struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, argv[1]);
  curl_easy_setopt(curl, CURLOPT_NOPROXY, "*"); /* a local socket: never the user's proxy */
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdr);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, keep);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &resp);
  run_true(argv[2]); /* warm: connection open, engine caches filled */
  double *t = calloc((size_t)n, sizeof *t), c0 = cpu();
  for (long i = 0; i < n; i++) {
    double t0 = now();
    run_true(argv[2]);
    t[i] = now() - t0;
  }
  double c = cpu() - c0;
  qsort(t, (size_t)n, sizeof *t, cmp);
  printf("{\"mode\":\"raw\",\"n\":%ld,\"median_ms\":%.2f,\"p90_ms\":%.2f,\"cpu_ms_per_op\":%.3f}\n", n, t[n / 2] * 1e3,
         t[(n * 9) / 10] * 1e3, c / (double)n * 1e3);
  free(t);
  curl_slist_free_all(hdr);
  curl_easy_cleanup(curl);
  curl_global_cleanup();
  return 0;
}
