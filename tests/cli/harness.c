/* SPDX-License-Identifier: MIT */
/* CLI test harness; see harness.h. */
#include "harness.h"

#include "../support/freshness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SBIO_CLI_PATH
#error "SBIO_CLI_PATH must name the sbio binary"
#endif

#define H_DEADLINE_S 60

static char scratch[4096];

static void remove_tree(const char *path) {
  /* The scratch dir only holds files this harness wrote; rm -r keeps the
   * cleanup simple and out of the assertions. */
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  if (system(cmd) != 0) fprintf(stderr, "harness: could not remove %s\n", path);
}

static void cleanup(void) {
  if (scratch[0] && !getenv("SBIO_TEST_KEEP")) remove_tree(scratch);
}

const char *h_scratch(void) {
  if (!scratch[0]) {
    snprintf(scratch, sizeof scratch, "%s/scratch-XXXXXX", SBIO_TEST_BINARY_DIR);
    if (!mkdtemp(scratch)) {
      fprintf(stderr, "harness: mkdtemp %s: %s\n", scratch, strerror(errno));
      abort();
    }
    /* Group/other-writable directories would make the library refuse
     * backends; the scratch dir is ours alone. */
    chmod(scratch, 0700);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/home", scratch);
    mkdir(sub, 0700);
    snprintf(sub, sizeof sub, "%s/xdg", scratch);
    mkdir(sub, 0700);
    atexit(cleanup);
  }
  return scratch;
}

char *h_path(const char *name) {
  size_t len = strlen(h_scratch()) + strlen(name) + 2;
  char *p = malloc(len);
  assert_non_null(p);
  snprintf(p, len, "%s/%s", scratch, name);
  return p;
}

char *h_write(const char *name, const char *text) {
  char *p = h_path(name);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
  return p;
}

char *h_read(const char *path) {
  FILE *f = fopen(path, "rb");
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  assert_non_null(buf);
  if (f) {
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
      n += r;
      if (cap - n - 1 == 0) {
        cap *= 2;
        buf = realloc(buf, cap);
        assert_non_null(buf);
      }
    }
    fclose(f);
  }
  buf[n] = '\0';
  return buf;
}

extern char **environ;

/* The environment sbio sees: nothing from the caller except what the
 * sanitizers and the dynamic loader need, and a fake clock (libfaketime's
 * LD_PRELOAD and FAKETIME* variables): the suite is run with the clock set
 * past the sources' freshness window, and sbio must see that clock too. */
static char **build_env(const h_opts *opts) {
  static const char *const passthrough[] = {"ASAN_OPTIONS",    "UBSAN_OPTIONS", "LSAN_OPTIONS",
                                            "LD_LIBRARY_PATH", "LD_PRELOAD",    NULL};
  size_t n = 0, cap = 48;
  char **env = calloc(cap, sizeof *env);
  assert_non_null(env);
  char buf[4200];
  env[n++] = strdup("PATH=/usr/local/bin:/usr/bin:/bin");
  snprintf(buf, sizeof buf, "HOME=%s/home", h_scratch());
  env[n++] = strdup(buf);
  snprintf(buf, sizeof buf, "XDG_CONFIG_HOME=%s/xdg", h_scratch());
  env[n++] = strdup(buf);
  env[n++] = strdup("LC_ALL=C");
  for (size_t i = 0; passthrough[i]; i++) {
    const char *v = getenv(passthrough[i]);
    if (!v) continue;
    snprintf(buf, sizeof buf, "%s=%s", passthrough[i], v);
    env[n++] = strdup(buf);
  }
  for (char **e = environ; *e; e++) {
    if (strncmp(*e, "FAKETIME", 8) != 0) continue;
    assert_true(n + 2 < cap);
    env[n++] = strdup(*e);
  }
  for (size_t i = 0; opts && opts->env && opts->env[i]; i++) {
    assert_true(n + 2 < cap);
    env[n++] = strdup(opts->env[i]);
  }
  env[n] = NULL;
  return env;
}

static void free_env(char **env) {
  for (size_t i = 0; env[i]; i++) free(env[i]);
  free(env);
}

static int open_pty(int *slave) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  assert_true(master >= 0);
  assert_int_equal(grantpt(master), 0);
  assert_int_equal(unlockpt(master), 0);
  *slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  assert_true(*slave >= 0);
  return master;
}

static void start_proc(h_proc *p, const h_opts *opts, int pty_stderr, const char *const *argv) {
  int out[2], err[2], slave = -1;
  if (opts && opts->pty_stdout) {
    out[0] = open_pty(&slave);
    out[1] = slave;
  } else {
    assert_int_equal(pipe(out), 0);
  }
  if (pty_stderr) {
    err[0] = open_pty(&slave);
    err[1] = slave;
  } else if (opts && opts->stderr_packets) {
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, err), 0);
  } else {
    assert_int_equal(pipe(err), 0);
  }

  size_t argc = 0;
  while (argv[argc]) argc++;
  const char **args = calloc(argc + 2, sizeof *args);
  assert_non_null(args);
  args[0] = SBIO_CLI_PATH;
  for (size_t i = 0; i < argc; i++) args[i + 1] = argv[i];

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, opts && opts->stdin_file ? opts->stdin_file : "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawn_file_actions_addclose(&fa, out[0]);
  posix_spawn_file_actions_addclose(&fa, err[0]);
  posix_spawn_file_actions_addclose(&fa, out[1]);
  posix_spawn_file_actions_addclose(&fa, err[1]);
  /* Default signal dispositions and an empty mask, whatever ctest gave us. */
  posix_spawnattr_t attr;
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  char **env = build_env(opts);
  int rc = posix_spawn(&p->pid, SBIO_CLI_PATH, &fa, &attr, (char *const *)args, env);
  if (rc != 0) fprintf(stderr, "harness: posix_spawn %s: %s\n", SBIO_CLI_PATH, strerror(rc));
  assert_int_equal(rc, 0);
  free_env(env);
  free(args);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(out[1]);
  close(err[1]);
  p->out_fd = out[0];
  p->err_fd = err[0];
}

void h_start(h_proc *p, const h_opts *opts, const char *const *argv) {
  start_proc(p, opts, 0, argv);
}

static void append(char **buf, size_t *len, size_t *cap, const char *data, size_t n) {
  if (*len + n + 1 > *cap) {
    while (*len + n + 1 > *cap) *cap = *cap ? *cap * 2 : 4096;
    *buf = realloc(*buf, *cap);
    assert_non_null(*buf);
  }
  memcpy(*buf + *len, data, n);
  *len += n;
  (*buf)[*len] = '\0';
}

/* Removes the freshness warnings from r->err, line by line. */
static void set_aside_stale_lines(h_result *r) {
  size_t kept = 0;
  for (size_t at = 0; at < r->err_len;) {
    const char *nl = memchr(r->err + at, '\n', r->err_len - at);
    size_t len = nl ? (size_t)(nl - (r->err + at)) + 1 : r->err_len - at;
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)len, r->err + at);
    if (sbio_test_is_freshness_warning(line)) {
      r->stale_lines++;
    } else {
      memmove(r->err + kept, r->err + at, len);
      kept += len;
    }
    at += len;
  }
  r->err_len = kept;
  r->err[kept] = '\0';
}

void h_finish(h_proc *p, h_result *r) {
  size_t out_cap = 0, err_cap = 0;
  memset(r, 0, sizeof *r);
  append(&r->out, &r->out_len, &out_cap, "", 0);
  append(&r->err, &r->err_len, &err_cap, "", 0);
  time_t deadline = time(NULL) + H_DEADLINE_S;
  int open_fds = 2;
  struct pollfd fds[2] = {{p->out_fd, POLLIN, 0}, {p->err_fd, POLLIN, 0}};
  while (open_fds > 0) {
    if (time(NULL) > deadline) {
      kill(p->pid, SIGKILL);
      fail_msg("sbio did not finish within %d s", H_DEADLINE_S);
    }
    int n = poll(fds, 2, 1000);
    if (n < 0 && errno == EINTR) continue;
    assert_true(n >= 0);
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[8192];
      ssize_t got = read(fds[i].fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) { /* EOF; EIO on a pty whose slave side closed */
        close(fds[i].fd);
        fds[i].fd = -1;
        open_fds--;
        continue;
      }
      if (i == 0) {
        append(&r->out, &r->out_len, &out_cap, chunk, (size_t)got);
      } else {
        /* On a SOCK_SEQPACKET stderr one read is one of sbio's writes. */
        const char *nl = memchr(chunk, '\n', (size_t)got);
        if (nl != chunk + got - 1) r->err_writes_not_one_line++;
        append(&r->err, &r->err_len, &err_cap, chunk, (size_t)got);
      }
    }
  }
  int status = 0;
  while (waitpid(p->pid, &status, 0) < 0) assert_int_equal(errno, EINTR);
  r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  set_aside_stale_lines(r);
}

void h_run(h_result *r, const h_opts *opts, const char *const *argv) {
  h_proc p;
  h_start(&p, opts, argv);
  h_finish(&p, r);
}

void h_run_pty_stderr(h_result *r, const h_opts *opts, const char *const *argv) {
  h_proc p;
  start_proc(&p, opts, 1, argv);
  h_finish(&p, r);
}

void h_result_free(h_result *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

int h_contains(const char *hay, size_t len, const char *needle) {
  size_t n = strlen(needle);
  if (n == 0) return 1;
  for (size_t i = 0; i + n <= len; i++) {
    if (memcmp(hay + i, needle, n) == 0) return 1;
  }
  return 0;
}

cJSON *h_json(const h_result *r) {
  if (r->out_len == 0 || r->out[r->out_len - 1] != '\n' || memchr(r->out, '\n', r->out_len) != r->out + r->out_len - 1)
    fail_msg("expected one JSON document and one newline on stdout, got:\n%s\nstderr:\n%s", r->out, r->err);
  const char *end = NULL;
  cJSON *doc = cJSON_ParseWithOpts(r->out, &end, 0);
  if (!doc) fail_msg("stdout is not JSON:\n%s", r->out);
  /* Only the newline may follow the document. */
  assert_ptr_equal(end, r->out + r->out_len - 1);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "schema_version");
  assert_true(cJSON_IsNumber(v));
  assert_int_equal(v->valueint, 1);
  assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(doc, "ok")));
  return doc;
}

void h_assert_status(const h_result *r, int expected, const char *file, int line) {
  if (r->status != expected) {
    fail_msg("%s:%d: exit status %d, expected %d\n--- stdout ---\n%s\n--- stderr ---\n%s", file, line, r->status,
             expected, r->out, r->err);
  }
}

int h_wait_for(const char *path, const char *needle, double seconds) {
  struct timespec step = {0, 20 * 1000 * 1000};
  for (double waited = 0; waited < seconds; waited += 0.02) {
    char *text = h_read(path);
    int found = strstr(text, needle) != NULL;
    free(text);
    if (found) return 1;
    nanosleep(&step, NULL);
  }
  return 0;
}
