/* SPDX-License-Identifier: MIT */
/* sbio run: create a sandbox, run one command in it with its output
 * streamed live, destroy the sandbox, exit with the command's status.
 *
 * Order matters: everything that can be refused on the command line is
 * refused before the host opens, and the isolation requirement and every
 * capability the flags imply (run_needs) are checked by the library before
 * anything is provisioned. The whole run is one sbio_run call, which uses
 * the backend's one-shot operation when it has one (docker: the command is
 * the container's own process) and create, exec, close otherwise. The
 * sandbox is destroyed on every path, including Ctrl-C (interrupt.c
 * requests the run's cancellation token). */
#include "args.h"
#include "cli.h"
#include "errors.h"
#include "exitcode.h"
#include "host_open.h"
#include "interrupt.h"
#include "output.h"
#include "progress.h"
#include "run_options.h"
#include "run_writer.h"
#include "stderr_bound.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --stdin is buffered whole (the API takes bytes, not a stream). */
#define RUN_STDIN_MAX ((size_t)64 * 1024 * 1024)

static const char fake_notice[] = "sbio: no backend chosen; using the built-in fake backend, which executes nothing "
                                  "(choose one with --backend docker://IMAGE or default_backend in the config)\n";

typedef struct run_output {
  run_writer *writer;
  int started; /* output arrived: a pull's progress bar is done */
} run_output;

/* Called on the exec's thread as bytes arrive: queued for the writer
 * thread, straight to fd 1 or 2 from there with no stdio buffer in between,
 * so interleaving and latency match the command; never blocked past the
 * deadline by a reader that stops reading (run_writer.h). */
static void on_output(sbio_stream stream, const char *data, size_t len, void *user) {
  run_output *out = user;
  if (!out->started) {
    out->started = 1;
    cli_progress_clear();
  }
  run_writer_put(out->writer, stream == SBIO_STDERR ? STDERR_FILENO : STDOUT_FILENO, data, len);
}

/* The exec's timeout as the library applies it: --timeout, else the
 * target's ?timeout= (the URI's grammar has no other parameter, and the
 * library validates it), else the default. */
static double exec_timeout_s(const run_options *o, sbio_host *host) {
  if (o->timeout_set) return o->timeout;
  const char *uri = o->uri ? o->uri : sbio_host_default_backend(host);
  const char *rest = uri ? strstr(uri, "://") : NULL;
  const char *q = rest ? strchr(rest, '?') : NULL;
  if (q && strncmp(q + 1, "timeout=", 8) == 0) {
    char *end = NULL;
    double t = strtod(q + 9, &end);
    if (end != q + 9 && t > 0) return t;
  }
  return SBIO_DEFAULT_TIMEOUT_S;
}

static int report_setter(sbio_code rc, const char *what, const char *key) {
  char message[512];
  snprintf(message, sizeof message, "cannot use %s '%s'", what, key);
  cli_error_view v = {rc, message, NULL, NULL, NULL};
  return cli_error_report(&v, 0);
}

/* The only value the parser lets through and the library refuses: one
 * above the maximum (the message says which maximum, not just "no"). */
static int report_timeout(sbio_code rc) {
  cli_error_view v = {rc, "cannot use --timeout: it is above the maximum of 86400 seconds (24 hours)",
                      "give at most --timeout 86400; a longer lifetime is refused, not shortened", NULL, NULL};
  return cli_error_report(&v, 0);
}

/* What running CMD the way the flags say takes of a backend. (--allow
 * implies the allow-list capability through the option itself; stdout and
 * stderr are written as they come, so a backend that merges them or
 * delivers them at the end is fine.) */
static sbio_caps run_needs(const run_options *o) {
  sbio_caps caps = SBIO_CAP_RUN_COMMAND;
  if (o->use_stdin) caps |= SBIO_CAP_STDIN;
  return caps;
}

static int build_create_options(const run_options *o, sbio_create_options **out) {
  sbio_create_options *c = sbio_create_options_new();
  sbio_code rc = SBIO_OK;
  int exit_code = 0;
  *out = NULL;
  if (!c) return cli_error_oom(0);
  if (o->require_set) rc = sbio_create_options_require_isolation(c, o->require);
  if (rc != SBIO_OK) exit_code = report_setter(rc, "--require-isolation", sbio_tier_name(o->require));
  if (!exit_code && o->timeout_set && (rc = sbio_create_options_set_timeout(c, o->timeout)) != SBIO_OK)
    exit_code = report_timeout(rc);
  for (size_t i = 0; !exit_code && i < o->env.n; i++) {
    if ((rc = sbio_create_options_set_env(c, o->env.items[i].key, o->env.items[i].value)) != SBIO_OK)
      exit_code = report_setter(rc, "--env", o->env.items[i].key);
  }
  for (size_t i = 0; !exit_code && i < o->secrets.n; i++) {
    /* The message names the key only. */
    if ((rc = sbio_create_options_set_secret(c, o->secrets.items[i].key, o->secrets.items[i].value)) != SBIO_OK)
      exit_code = report_setter(rc, "--secret", o->secrets.items[i].key);
  }
  for (size_t i = 0; !exit_code && i < o->labels.n; i++) {
    if ((rc = sbio_create_options_set_label(c, o->labels.items[i].key, o->labels.items[i].value)) != SBIO_OK)
      exit_code = report_setter(rc, "--label", o->labels.items[i].key);
  }
  for (size_t i = 0; !exit_code && i < o->n_allow; i++) {
    if ((rc = sbio_create_options_allow_host(c, o->allow[i])) != SBIO_OK)
      exit_code = report_setter(rc, "--allow", o->allow[i]);
  }
  /* Everything the flags imply, declared up front: the library refuses a
   * backend that lacks any of it before anything is created, instead of
   * the exec finding out inside a sandbox that already exists. */
  if (!exit_code && (rc = sbio_create_options_require_capabilities(c, run_needs(o))) != SBIO_OK)
    exit_code = report_setter(rc, "the capabilities", "of this command line");
  if (exit_code) {
    sbio_create_options_free(c);
    return exit_code;
  }
  *out = c;
  return 0;
}

static int read_stdin(unsigned char **data, size_t *len) {
  size_t cap = 65536, n = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) return cli_error_oom(0);
  for (;;) {
    if (n == cap) {
      if (cap >= RUN_STDIN_MAX) {
        free(buf);
        return cli_usage_error("run", "--stdin: standard input is larger than %zu MiB", RUN_STDIN_MAX >> 20);
      }
      unsigned char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        return cli_error_oom(0);
      }
      buf = bigger;
      cap *= 2;
    }
    ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "sbio: error: cannot read standard input: %s\n", strerror(errno));
      free(buf);
      return CLI_EXIT_IOERR;
    }
    n += (size_t)r;
  }
  *data = buf;
  *len = n;
  return 0;
}

static int build_exec_options(const run_options *o, const unsigned char *in, size_t in_len, run_output *out,
                              sbio_cancel *cancel, sbio_exec_options **result) {
  sbio_exec_options *e = sbio_exec_options_new();
  sbio_code rc = SBIO_OK;
  const char *what = NULL, *key = NULL;
  *result = NULL;
  if (!e) return cli_error_oom(0);
  if (o->workdir && (rc = sbio_exec_options_set_cwd(e, o->workdir)) != SBIO_OK) {
    what = "--workdir";
    key = o->workdir;
  } else if (o->timeout_set && (rc = sbio_exec_options_set_timeout(e, o->timeout)) != SBIO_OK) {
    what = "--timeout";
    key = "value";
  } else if (o->use_stdin && (rc = sbio_exec_options_set_stdin(e, in, in_len)) != SBIO_OK) {
    what = "--stdin";
    key = "input";
  } else if ((rc = sbio_exec_options_set_cancel(e, cancel)) != SBIO_OK) {
    what = "the interrupt";
    key = "token";
  } else if ((rc = sbio_exec_options_set_output_callback(e, on_output, out)) != SBIO_OK ||
             /* Everything is streamed to fd 1 and 2; a buffered copy in the
              * result would only cost memory (up to 16 MiB per stream). */
             (rc = sbio_exec_options_set_output_cap(e, 0)) != SBIO_OK) {
    what = "the output";
    key = "callback";
  }
  if (rc != SBIO_OK) {
    sbio_exec_options_free(e);
    return report_setter(rc, what, key);
  }
  *result = e;
  return 0;
}

/* The run: create, the command, destroy, in one library call whose
 * cancellation token the watcher requests on a signal. Returns the exit
 * code. */
static int run_command(sbio_host *host, const run_options *o, const sbio_create_options *copts,
                       const sbio_exec_options *e, cli_interrupt *watcher, run_writer *writer, double timeout_s) {
  sbio_error *err = sbio_error_new();
  sbio_exec_result *result = NULL;
  if (!err) return cli_error_oom(0);
  /* The writer waits for a slow reader until the run's own deadline, and
   * gives up with it (a little later, so the library's deadline fires first).
   * A timeout above the library's maximum (from the target's ?timeout=,
   * which only the library validates) is refused before any output exists;
   * it must not overflow the deadline on its way there. */
  if (timeout_s > 0 && timeout_s <= SBIO_MAX_TIMEOUT_S)
    run_writer_set_deadline(writer, run_writer_now_ns() + (int64_t)(timeout_s * 1e9) + 250000000);
  sbio_code rc = o->shell ? sbio_run_shell(host, o->uri, copts, o->cmd[0], e, &result, err)
                          : sbio_run(host, o->uri, copts, (const char *const *)o->cmd, e, &result, err);
  /* Everything the command wrote goes out before anything of ours. */
  int drained = run_writer_drain(writer) == 0;
  cli_progress_clear();
  int exit_code;
  if (cli_interrupt_signal(watcher)) {
    /* Whatever the run returned is the consequence of our own cancel. */
    exit_code = CLI_EXIT_SIGNAL_BASE + cli_interrupt_signal(watcher);
  } else if (rc != SBIO_OK) {
    exit_code = cli_error_report_sbio(err, 0);
  } else if (!drained) {
    /* The command ended in time, but its output could not be delivered
     * before the deadline: the deadline passed all the same. */
    char message[200];
    snprintf(message, sizeof message,
             "the command's output was not read before its %.3g s deadline; the rest of it was dropped", timeout_s);
    cli_error_view v = {SBIO_E_EXEC_TIMEOUT, message, "read sbio's output, or raise --timeout", NULL, NULL};
    exit_code = cli_error_report(&v, 0);
  } else {
    exit_code = sbio_exec_result_exit_code(result);
    if (exit_code < 0 || exit_code > 255) {
      fprintf(stderr, "sbio: warning: the command's exit status %d does not fit an exit code; exiting %d\n", exit_code,
              CLI_EXIT_INTERNAL);
      exit_code = CLI_EXIT_INTERNAL;
    }
  }
  sbio_exec_result_free(result);
  sbio_error_free(err);
  return exit_code;
}

static int create_and_run(sbio_host *host, const run_options *o, const unsigned char *in, size_t in_len,
                          cli_interrupt *watcher) {
  sbio_create_options *copts = NULL;
  sbio_exec_options *eopts = NULL;
  run_output out = {NULL, 0};
  sbio_cancel *cancel = sbio_cancel_new();
  if (!cancel) return cli_error_oom(0);
  int exit_code = build_create_options(o, &copts);
  if (!exit_code) exit_code = build_exec_options(o, in, in_len, &out, cancel, &eopts);
  if (exit_code) {
    sbio_create_options_free(copts);
    sbio_cancel_free(cancel);
    return exit_code;
  }
  /* The library falls back to fake:// itself; saying so is ours to do. */
  if (!o->uri && !sbio_host_default_backend(host)) fputs(fake_notice, stderr);

  cli_interrupt_set_cancel(watcher, cancel);
  if (cli_interrupt_signal(watcher)) {
    exit_code = CLI_EXIT_SIGNAL_BASE + cli_interrupt_signal(watcher);
  } else if (!(out.writer = run_writer_start(watcher))) {
    fprintf(stderr, "sbio: error: cannot start the output writer: %s\n", strerror(errno));
    exit_code = CLI_EXIT_INTERNAL;
  } else {
    exit_code = run_command(host, o, copts, eopts, watcher, out.writer, exec_timeout_s(o, host));
    run_writer_stop(out.writer);
  }
  cli_interrupt_set_cancel(watcher, NULL);
  sbio_exec_options_free(eopts);
  sbio_create_options_free(copts);
  sbio_cancel_free(cancel);
  return exit_code;
}

int cli_cmd_run(cli_globals *g, int argc, char **argv) {
  run_options o;
  int help_shown = 0;
  int exit_code = run_options_parse(&o, g, argc, argv, &help_shown);
  if (exit_code != 0 || help_shown) {
    run_options_free(&o);
    return exit_code;
  }
  unsigned char *in = NULL;
  size_t in_len = 0;
  if (o.use_stdin && (exit_code = read_stdin(&in, &in_len)) != 0) {
    run_options_free(&o);
    return exit_code;
  }
  /* A closed stdout must be an error we see (EPIPE), not a silent death
   * that leaves the sandbox behind. */
  signal(SIGPIPE, SIG_IGN);
  /* From here on a stderr nobody reads cannot hold sbio past its deadline
   * (stderr_bound.h): before any thread that writes to it starts. */
  cli_stderr_bound();
  cli_interrupt *watcher = cli_interrupt_start();
  if (!watcher) {
    fprintf(stderr, "sbio: error: cannot watch for signals: %s\n", strerror(errno));
    exit_code = CLI_EXIT_INTERNAL;
  } else {
    sbio_host *host = NULL;
    exit_code = cli_host_open_with_progress(g, &host);
    if (exit_code == 0) {
      exit_code = create_and_run(host, &o, in, in_len, watcher);
      sbio_host_close(host);
    }
    cli_interrupt_stop(watcher);
  }
  free(in);
  run_options_free(&o);
  return exit_code;
}
