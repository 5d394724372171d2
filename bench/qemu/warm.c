/* SPDX-License-Identifier: MIT */
/* Client side of the qemu benchmark (bench/qemu/run.sh): in one process,
 * times one create (a TCG boot to the agent), N execs of `true` in that
 * warm guest (the channel's round trip plus the guest's fork and exec),
 * one exec streaming BYTES to stdout, and the destroy.
 *
 *   warm CONFIG N BYTES   prints one markdown table */
#include <sandboxio/sandboxio.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void discard(sbio_stream s, const char *d, size_t l, void *u) {
  (void)s, (void)d;
  *(size_t *)u += l;
}

static void die(const char *what, const sbio_error *err) {
  fprintf(stderr, "warm: %s: %s\n", what, sbio_error_message(err));
  exit(1);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: warm CONFIG N BYTES\n");
    return 64;
  }
  int n = atoi(argv[2]);
  long bytes = atol(argv[3]);
  if (n < 1 || bytes < 1) return 64;
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_config_file(o, argv[1]);
  sbio_error *err = sbio_error_new();
  sbio_host *host = NULL;
  if (sbio_host_open(o, &host, err) != SBIO_OK) die("host", err);
  double t0 = now_ms();
  sbio_sandbox *sb = NULL;
  if (sbio_sandbox_create(host, "qemu://", NULL, &sb, err) != SBIO_OK) die("create", err);
  double create_ms = now_ms() - t0;
  double *ms = calloc((size_t)n, sizeof *ms);
  const char *argv_true[] = {"true", NULL};
  for (int i = 0; i < n; i++) {
    sbio_exec_result *r = NULL;
    t0 = now_ms();
    if (sbio_sandbox_exec(sb, argv_true, NULL, &r, err) != SBIO_OK) die("exec", err);
    ms[i] = now_ms() - t0;
    sbio_exec_result_free(r);
  }
  qsort(ms, (size_t)n, sizeof *ms, cmp);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "head -c %ld /dev/zero", bytes);
  const char *argv_stream[] = {"sh", "-c", cmd, NULL};
  size_t got = 0;
  sbio_exec_options *xo = sbio_exec_options_new();
  sbio_exec_options_set_output_callback(xo, discard, &got);
  sbio_exec_result *r = NULL;
  t0 = now_ms();
  if (sbio_sandbox_exec(sb, argv_stream, xo, &r, err) != SBIO_OK) die("stream", err);
  double stream_ms = now_ms() - t0;
  sbio_exec_result_free(r);
  sbio_exec_options_free(xo);
  t0 = now_ms();
  if (sbio_sandbox_close(sb, err) != SBIO_OK) die("close", err);
  double close_ms = now_ms() - t0;
  printf("| create (TCG boot to the agent's READY), ms | %.0f |\n", create_ms);
  printf("| exec `true` in the warm guest, ms (median of %d; min, max) | %.1f (%.1f, %.1f) |\n", n, ms[n / 2], ms[0],
         ms[n - 1]);
  printf("| exec streaming %ld bytes of stdout, ms (%zu received) | %.0f |\n", bytes, got, stream_ms);
  printf("| close (kill and state removed), ms | %.0f |\n", close_ms);
  free(ms);
  sbio_error_free(err);
  sbio_host_close(host);
  sbio_host_options_free(o);
  return got == (size_t)bytes ? 0 : 1;
}
