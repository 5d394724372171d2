/* SPDX-License-Identifier: MIT */
/* Client side of the docker benchmark: times sandboxio operations in one
 * process and reports wall time and this process's CPU time (user+sys)
 * as one JSON line. Built and driven by bench/docker/run.sh.
 *
 *   sbio_bench CONFIG warm N         N execs of `true` in one warm sandbox
 *   sbio_bench CONFIG cycle N        N x (create, exec `true`, destroy)
 *   sbio_bench CONFIG stream BYTES   one exec writing BYTES to stdout
 *   sbio_bench CONFIG concurrent K   K threads, each create/exec/destroy */
#include <sandboxio/sandboxio.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static sbio_host *host;

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

static sbio_sandbox *create(void) {
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  if (sbio_sandbox_create(host, "docker://", NULL, &sb, err) != SBIO_OK) {
    fprintf(stderr, "create: %s\n", sbio_error_message(err));
    exit(1);
  }
  sbio_error_free(err);
  return sb;
}

static void run_true(sbio_sandbox *sb) {
  const char *argv[] = {"true", NULL};
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  if (sbio_sandbox_exec(sb, argv, NULL, &r, err) != SBIO_OK || sbio_exec_result_exit_code(r) != 0) {
    fprintf(stderr, "exec: %s\n", sbio_error_message(err));
    exit(1);
  }
  sbio_exec_result_free(r);
  sbio_error_free(err);
}

static void report(const char *mode, double *t, int n, double cpu_total) {
  qsort(t, (size_t)n, sizeof *t, cmp);
  printf("{\"mode\":\"%s\",\"n\":%d,\"median_ms\":%.2f,\"p90_ms\":%.2f,\"cpu_ms_per_op\":%.3f}\n", mode, n,
         t[n / 2] * 1e3, t[(n * 9) / 10] * 1e3, cpu_total / n * 1e3);
}

static void discard(sbio_stream s, const char *d, size_t l, void *u) {
  (void)s, (void)d;
  *(size_t *)u += l;
}

typedef struct worker {
  double wall;
  int ok;
} worker;

static void *one_cycle(void *p) {
  worker *w = p;
  double t0 = now();
  sbio_sandbox *sb = create();
  run_true(sb);
  w->ok = sbio_sandbox_close(sb, NULL) == SBIO_OK;
  w->wall = now() - t0;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: sbio_bench CONFIG warm|cycle|stream|concurrent N\n");
    return 64;
  }
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_config_file(o, argv[1]);
  sbio_error *err = sbio_error_new();
  if (sbio_host_open(o, &host, err) != SBIO_OK) {
    fprintf(stderr, "host: %s\n", sbio_error_message(err));
    return 1;
  }
  const char *mode = argv[2];
  long n = atol(argv[3]);
  if (n <= 0) return 64;
  if (!strcmp(mode, "warm")) {
    sbio_sandbox *sb = create();
    run_true(sb); /* warm: connections open, engine caches filled */
    double *t = calloc((size_t)n, sizeof *t), c0 = cpu();
    for (long i = 0; i < n; i++) {
      double t0 = now();
      run_true(sb);
      t[i] = now() - t0;
    }
    report(mode, t, (int)n, cpu() - c0);
    sbio_sandbox_close(sb, NULL);
    free(t);
  } else if (!strcmp(mode, "cycle")) {
    double *t = calloc((size_t)n, sizeof *t), c0 = cpu();
    for (long i = 0; i < n; i++) {
      double t0 = now();
      sbio_sandbox *sb = create();
      run_true(sb);
      sbio_sandbox_close(sb, NULL);
      t[i] = now() - t0;
    }
    report(mode, t, (int)n, cpu() - c0);
    free(t);
  } else if (!strcmp(mode, "stream")) {
    sbio_sandbox *sb = create();
    size_t got = 0;
    sbio_exec_options *eo = sbio_exec_options_new();
    sbio_exec_options_set_output_callback(eo, discard, &got);
    sbio_exec_options_set_output_cap(eo, 65536);
    char script[128];
    snprintf(script, sizeof script, "head -c %ld /dev/zero", n);
    double c0 = cpu(), t0 = now();
    sbio_exec_result *r = NULL;
    if (sbio_sandbox_exec_shell(sb, script, eo, &r, err) != SBIO_OK || got != (size_t)n) {
      fprintf(stderr, "stream: %s (%zu bytes)\n", sbio_error_message(err), got);
      return 1;
    }
    double dt = now() - t0;
    printf("{\"mode\":\"stream\",\"bytes\":%ld,\"seconds\":%.3f,\"mib_per_s\":%.1f,\"cpu_s\":%.3f}\n", n, dt,
           (double)n / 1048576.0 / dt, cpu() - c0);
    sbio_exec_result_free(r);
    sbio_exec_options_free(eo);
    sbio_sandbox_close(sb, NULL);
  } else if (!strcmp(mode, "concurrent")) {
    pthread_t *th = calloc((size_t)n, sizeof *th);
    worker *w = calloc((size_t)n, sizeof *w);
    double c0 = cpu(), t0 = now();
    for (long i = 0; i < n; i++) pthread_create(&th[i], NULL, one_cycle, &w[i]);
    int ok = 0;
    for (long i = 0; i < n; i++) {
      pthread_join(th[i], NULL);
      ok += w[i].ok;
    }
    printf("{\"mode\":\"concurrent\",\"n\":%ld,\"ok\":%d,\"wall_s\":%.3f,\"cpu_s\":%.3f}\n", n, ok, now() - t0,
           cpu() - c0);
    free(th);
    free(w);
  } else {
    return 64;
  }
  sbio_error_free(err);
  sbio_host_close(host);
  sbio_host_options_free(o);
  return 0;
}
