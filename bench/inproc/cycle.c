/* SPDX-License-Identifier: MIT */
/* create + exec + close on the fake backend, in-process through the public
 * API: the cost of the library's own work on an operation, the backend
 * doing almost nothing. Usage:
 *
 *   cycle [-n N] [--audit-callback] [--config FILE]
 *
 * Runs one warm-up cycle (the backend is loaded and instantiated on the
 * first create), then N cycles (default 1) inside sbio_bench_cycles, the
 * function bench/inproc/run.sh tells callgrind to count
 * (--toggle-collect=sbio_bench_cycles), and prints the wall time per cycle.
 * --audit-callback registers an audit callback, so the events are built
 * (the cost when someone listens); without it nobody listens. */
#include <sandboxio/sandboxio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int on_audit(const char *json, void *user) {
  (void)json;
  (*(long *)user)++;
  return 0;
}

static void die(const char *what, sbio_error *err) {
  fprintf(stderr, "cycle: %s: %s\n", what, sbio_error_message(err));
  exit(1);
}

static void one_cycle(sbio_host *host, sbio_error *err) {
  static const char *const argv[] = {"true", NULL};
  sbio_sandbox *sb = NULL;
  sbio_exec_result *r = NULL;
  if (sbio_sandbox_create(host, "fake://", NULL, &sb, err) != SBIO_OK) die("create", err);
  if (sbio_sandbox_exec(sb, argv, NULL, &r, err) != SBIO_OK) die("exec", err);
  if (sbio_exec_result_exit_code(r) != 0) die("exec exit code", err);
  sbio_exec_result_free(r);
  if (sbio_sandbox_close(sb, err) != SBIO_OK) die("close", err);
}

/* Not inlined, and external, so callgrind can name it. */
__attribute__((noinline)) void sbio_bench_cycles(sbio_host *host, sbio_error *err, long n);
__attribute__((noinline)) void sbio_bench_cycles(sbio_host *host, sbio_error *err, long n) {
  for (long i = 0; i < n; i++) one_cycle(host, err);
}

int main(int argc, char **argv) {
  long n = 1, events = 0;
  int audit = 0;
  const char *config = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-n") && i + 1 < argc)
      n = strtol(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--audit-callback"))
      audit = 1;
    else if (!strcmp(argv[i], "--config") && i + 1 < argc)
      config = argv[++i];
    else {
      fprintf(stderr, "usage: cycle [-n N] [--audit-callback] [--config FILE]\n");
      return 2;
    }
  }
  if (n < 1) n = 1;
  sbio_host_options *o = sbio_host_options_new();
  if (config)
    sbio_host_options_set_config_file(o, config);
  else
    sbio_host_options_set_no_config(o, 1);
  if (audit) sbio_host_options_add_audit_callback(o, on_audit, &events);
  sbio_error *err = sbio_error_new();
  sbio_host *host = NULL;
  if (sbio_host_open(o, &host, err) != SBIO_OK) die("host open", err);
  sbio_host_options_free(o);
  one_cycle(host, err); /* warm-up: loads and instantiates the backend */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  sbio_bench_cycles(host, err, n);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double us = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)n;
  printf("{\"cycles\":%ld,\"us_per_cycle\":%.2f,\"audit_events\":%ld}\n", n, us, events);
  sbio_host_close(host);
  sbio_error_free(err);
  return 0;
}
