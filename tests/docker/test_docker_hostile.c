/* SPDX-License-Identifier: MIT */
/* The docker backend against an engine that answers badly: a scripted fake
 * Engine API (hostile_engine.py) on a private socket, one misbehaviour per
 * mode, on the one-shot sbio_run path, on the create/exec path, on the
 * files path (read, write, list through the archive endpoints and the
 * listing exec), on the pull (pull: always) and on what the backend asks
 * the engine about itself (/_ping, /version, /info, /libpod). Each
 * mode must end in a catalogue error (or, for the control and the answers
 * the backend is documented to tolerate, in success) within the call's
 * deadline, with a message of one line that names what was wrong, without
 * the secret the test planted in the create's environment (a credential-
 * looking env key, which the core promises to redact) in the message, the
 * hint, the log or the audit events; and a container the engine said it
 * made is removed (a DELETE reaches the engine) unless the engine itself
 * confirmed its removal, and afterwards the engine holds no container (it
 * keeps the ones it made, as an engine does: a 201 whose answer the
 * backend cannot use made one too, which only the name the backend gave it
 * can still remove). Where the engine's DELETE fails (MODE+delete_500,
 * MODE+delete_drop) the container stays, and the error must name the
 * sandbox and hint at `sbio reap --kill --backend docker`. The test's own file descriptors are counted
 * around every mode, and under ASan a leak ends the test. A read returns
 * exactly the bytes of the entry that is the file, or nothing; a claimed
 * size is never allocated up front (the process's peak memory is checked
 * around every mode, and under ASan a 4 TiB allocation would abort). No
 * real engine is needed. */
#include "docker_support.h"
#include "hostile_start.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SECRET "s3cr3t-value-123"
#define CID "c0ffee0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
#define EXEC_TIMEOUT_S 4.0
#define SANDBOX_TIMEOUT_S 8.0
/* Not a timing assertion: a hang (the bug this catches) is unbounded; a
 * run that ends is far below this whatever the machine's load. */
#define HANG_S 40.0

typedef enum path_kind {
  P_RUN,   /* sbio_run */
  P_EXEC,  /* sbio_sandbox_create + sbio_sandbox_exec */
  P_READ,  /* create + sbio_file_read("/tmp/f.txt") */
  P_WRITE, /* create + sbio_file_write("/tmp/f.txt") */
  P_LIST   /* create + sbio_file_list_dir("/tmp/d") */
} path_kind;

static const char *const path_names[] = {"run", "exec", "read", "write", "list"};

/* What the engine must have been asked to do about the container. */
typedef enum removal {
  DELETE_ANY,  /* the engine's own answer may have confirmed it (the removed wait) */
  DELETE_SENT, /* a DELETE of the container must have been sent */
  DELETE_NONE, /* nothing was made: no DELETE */
  DELETE_NAME  /* the answer had no usable id: a DELETE by the name the backend gave it */
} removal;

typedef struct mode_case {
  const char *mode;
  path_kind path;
  sbio_code want;
  const char *names[3]; /* the message must contain each (what was wrong, where) */
  removal removal;
  const char *runtime;   /* the runtime setting; NULL: runc */
  const char *extra;     /* more settings lines, or NULL */
  size_t max_bytes;      /* P_READ: the read limit (0: the API's default, 256 MiB) */
  const char *bytes;     /* P_READ that succeeds: exactly what it must return */
  const char *mechanism; /* an audit event must name this mechanism, or NULL */
  int left;              /* the engine's DELETE fails: the container stays (and the error says so) */
  const char *hint;      /* the hint must contain this, or NULL */
  const char *logged;    /* a log line must contain this, or NULL */
  int want_exit;         /* P_EXEC that succeeds: the exit code it must give (0: not checked) */
} mode_case;

/* What hostile_engine.py sends (FILE_BYTES, OUTSIDE_BYTES). */
#define FILE_BYTES "the right bytes of f.txt\n"
#define OUTSIDE_BYTES "the file /outside inside the sandbox\n"
#define PULL_ALWAYS "      pull: always\n"
#define REAP_HINT "`sbio reap --kill --backend docker`"
#define SHORT_ID "c0ffee012345"
/* Peak memory a mode may add; every claim here is far larger (4 TiB) or
 * a 10 MiB line, so buffering what was claimed fails this. */
#define RSS_BOUND_KB (160L * 1024)

/* ------------------------------------------------------------- the fake */
typedef struct fake {
  char dir[64];
  char sock[128];
  char log[128];
  char containers[160]; /* what it holds: one "ID NAME" a line */
  pid_t pid;
} fake;

static void fake_start(fake *f, const char *mode) {
  memset(f, 0, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "/tmp/sbio-hostile-XXXXXX");
  assert_non_null(mkdtemp(f->dir));
  snprintf(f->sock, sizeof f->sock, "%s/docker.sock", f->dir);
  snprintf(f->log, sizeof f->log, "%s/requests.log", f->dir);
  snprintf(f->containers, sizeof f->containers, "%s.containers", f->log);
  f->pid = dx_hostile_start(f->sock, f->log, mode);
}

static char *read_text(const char *path) {
  FILE *fp = fopen(path, "r");
  if (!fp) return strdup("");
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  rewind(fp);
  char *text = calloc(1, (size_t)n + 1);
  if (text && fread(text, 1, (size_t)n, fp) != (size_t)n) text[0] = '\0';
  fclose(fp);
  return text;
}

/* The requests it got, one "METHOD PATH" a line (malloc'd). */
static char *fake_log(const fake *f) {
  return read_text(f->log);
}

/* The containers it holds, one "ID NAME" a line (malloc'd; NULL when it
 * never said, which fails the test). */
static char *fake_containers(const fake *f) {
  return access(f->containers, F_OK) == 0 ? read_text(f->containers) : NULL;
}

static void fake_stop(fake *f) {
  kill(f->pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 200 && waitpid(f->pid, &status, WNOHANG) == 0; i++) {
    struct timespec ts = {0, 25 * 1000000L};
    nanosleep(&ts, NULL);
    if (i == 160) kill(f->pid, SIGKILL); /* a thread stuck in a write */
  }
  waitpid(f->pid, &status, WNOHANG);
  unlink(f->sock);
  unlink(f->log);
  unlink(f->containers);
  rmdir(f->dir);
}

/* ---------------------------------------------------------- recording */
typedef struct audit_rec {
  char **lines;
  size_t n;
} audit_rec;

static int on_audit(const char *json_line, void *user) {
  audit_rec *r = user;
  char **p = realloc(r->lines, (r->n + 1) * sizeof *p);
  if (!p) return 0;
  r->lines = p;
  r->lines[r->n++] = strdup(json_line);
  return 0;
}

static void audit_free(audit_rec *r) {
  for (size_t i = 0; i < r->n; i++) free(r->lines[i]);
  free(r->lines);
}

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  if (!d) return -1;
  while (readdir(d)) n++;
  closedir(d);
  return n;
}

/* ---------------------------------------------------------- one mode */
typedef struct outcome {
  sbio_code rc;
  char message[2048];
  char hint[1024];
  double elapsed;
  int exit_code;
  unsigned char *data; /* P_READ: what the read returned */
  size_t len;
  int n_entries; /* P_LIST */
  char entries[256];
} outcome;

static void capture(outcome *o, sbio_code rc, const sbio_error *err) {
  o->rc = rc;
  snprintf(o->message, sizeof o->message, "%s", rc == SBIO_OK ? "" : sbio_error_message(err));
  snprintf(o->hint, sizeof o->hint, "%s", rc == SBIO_OK ? "" : sbio_error_hint(err));
}

static void file_op(sbio_sandbox *sb, const mode_case *m, outcome *o, sbio_error *err) {
  sbio_code rc = SBIO_OK;
  if (m->path == P_READ) {
    rc = sbio_file_read(sb, "/tmp/f.txt", m->max_bytes, &o->data, &o->len, err);
  } else if (m->path == P_WRITE) {
    rc = sbio_file_write(sb, "/tmp/f.txt", FILE_BYTES, strlen(FILE_BYTES), err);
  } else {
    sbio_file_list *l = NULL;
    rc = sbio_file_list_dir(sb, "/tmp/d", &l, err);
    o->n_entries = l ? (int)sbio_file_list_count(l) : -1;
    size_t used = 0;
    for (int i = 0; l && i < o->n_entries && used < sizeof o->entries; i++)
      used += (size_t)snprintf(o->entries + used, sizeof o->entries - used, "%s%s=%s:%lld:%d", i ? "," : "",
                               sbio_file_list_name(l, (size_t)i), sbio_file_list_path(l, (size_t)i),
                               (long long)sbio_file_list_size(l, (size_t)i), sbio_file_list_is_dir(l, (size_t)i));
    sbio_file_list_free(l);
  }
  capture(o, rc, err);
}

static void run_path(dx_host *h, const mode_case *m, outcome *o) {
  path_kind path = m->path;
  sbio_create_options *co = sbio_create_options_new();
  assert_int_equal(sbio_create_options_set_env(co, "SECRET_TOKEN", SECRET), SBIO_OK);
  assert_int_equal(sbio_create_options_set_timeout(co, SANDBOX_TIMEOUT_S), SBIO_OK);
  sbio_exec_options *eo = sbio_exec_options_new();
  assert_int_equal(sbio_exec_options_set_timeout(eo, EXEC_TIMEOUT_S), SBIO_OK);
  const char *argv[] = {"echo", "hi", NULL};
  sbio_error *err = sbio_error_new();
  sbio_exec_result *r = NULL;
  o->exit_code = -1;
  double t0 = dx_now();
  if (path == P_RUN) {
    capture(o, sbio_run(h->host, "docker://", co, argv, eo, &r, err), err);
  } else {
    sbio_sandbox *sb = NULL;
    sbio_code rc = sbio_sandbox_create(h->host, "docker://", co, &sb, err);
    if (rc == SBIO_OK && path == P_EXEC) rc = sbio_sandbox_exec(sb, argv, eo, &r, err);
    if (rc == SBIO_OK && path != P_EXEC)
      file_op(sb, m, o, err);
    else
      capture(o, rc, err);
    /* When everything else worked, the close's removal is the outcome. */
    if (sb && o->rc == SBIO_OK)
      capture(o, sbio_sandbox_close(sb, err), err);
    else if (sb)
      sbio_sandbox_close(sb, NULL);
  }
  o->elapsed = dx_now() - t0;
  if (r) o->exit_code = sbio_exec_result_exit_code(r);
  sbio_exec_result_free(r);
  sbio_error_free(err);
  sbio_exec_options_free(eo);
  sbio_create_options_free(co);
}

static int log_has(const char *log, const char *line) {
  size_t n = strlen(line);
  for (const char *p = log; (p = strstr(p, line)) != NULL; p++)
    if ((p == log || p[-1] == '\n') && (p[n] == '\n' || p[n] == '?' || p[n] == '\0')) return 1;
  return 0;
}

static long peak_rss_kb(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

static void check_mode(const mode_case *m) {
  fprintf(stderr, "-- %s (%s)\n", m->mode, path_names[m->path]);
  int fds_before = count_fds();
  fake f;
  fake_start(&f, m->mode);
  dx_env e;
  memset(&e, 0, sizeof e);
  snprintf(e.host, sizeof e.host, "unix://%s", f.sock);
  snprintf(e.image, sizeof e.image, "busybox:latest");
  audit_rec audit = {0};
  dx_host h;
  assert_int_equal(dx_open_audited(&h, &e, m->runtime ? m->runtime : "runc", m->extra, on_audit, &audit), 0);
  outcome o;
  memset(&o, 0, sizeof o);
  long rss_before = peak_rss_kb();
  run_path(&h, m, &o);
  long rss_grew = peak_rss_kb() - rss_before;
  int leaked_secret = 0, mechanism_seen = 0, logged = 0;
  for (size_t i = 0; m->logged && i < h.n_log; i++)
    if (h.log[i] && strstr(h.log[i], m->logged)) logged = 1;
  char mech_field[96] = "";
  if (m->mechanism) snprintf(mech_field, sizeof mech_field, "\"mechanism\":\"%s\"", m->mechanism);
  for (size_t i = 0; i < audit.n; i++)
    if (m->mechanism && audit.lines[i] && strstr(audit.lines[i], mech_field)) mechanism_seen = 1;
  for (size_t i = 0; i < h.n_log; i++)
    if (h.log[i] && strstr(h.log[i], SECRET)) leaked_secret = fprintf(stderr, "log line: %s\n", h.log[i]);
  for (size_t i = 0; i < audit.n; i++)
    if (audit.lines[i] && strstr(audit.lines[i], SECRET))
      leaked_secret = fprintf(stderr, "audit: %s\n", audit.lines[i]);
  dx_close(&h);
  audit_free(&audit);
  char *log = fake_log(&f);
  char *held = fake_containers(&f);
  fake_stop(&f);
  int fds_after = count_fds();

  fprintf(stderr, "   -> [%s] %s\n      hint: %s\n      %.2f s, exit code %d, fds %d -> %d, peak +%ld KiB\n",
          sbio_code_name(o.rc), o.message, o.hint, o.elapsed, o.exit_code, fds_before, fds_after, rss_grew);
  if (m->path == P_READ) fprintf(stderr, "      read %zu bytes: %.*s\n", o.len, (int)(o.len < 80 ? o.len : 80), o.data);
  if (m->path == P_LIST) fprintf(stderr, "      %d entries: %s\n", o.n_entries, o.entries);
  fprintf(stderr, "   requests:\n%s   the engine holds:\n%s", log, held ? held : "(it never said)\n");

  if (o.rc != m->want)
    fail_msg("%s: wanted %s, got %s: %s", m->mode, sbio_code_name(m->want), sbio_code_name(o.rc), o.message);
  assert_true(o.elapsed < HANG_S);
  if (m->mechanism && !mechanism_seen) fail_msg("%s: no audit event names mechanism %s", m->mode, m->mechanism);
  if (m->want != SBIO_OK) {
    assert_true(o.message[0]);
    if (strchr(o.message, '\n')) fail_msg("%s: the message is more than one line: %s", m->mode, o.message);
    for (int i = 0; i < 3 && m->names[i]; i++)
      if (!strstr(o.message, m->names[i]))
        fail_msg("%s: the message does not say '%s': %s", m->mode, m->names[i], o.message);
  }
  if (strstr(o.message, SECRET) || strstr(o.hint, SECRET))
    fail_msg("%s: the planted secret is in the error: %s (hint: %s)", m->mode, o.message, o.hint);
  if (leaked_secret) fail_msg("%s: the planted secret is in the log or the audit events", m->mode);
  if (m->logged && !logged) fail_msg("%s: no log line says '%s'", m->mode, m->logged);
  if (m->want_exit && o.exit_code != m->want_exit)
    fail_msg("%s: wanted exit code %d, got %d", m->mode, m->want_exit, o.exit_code);
  if (m->hint && !strstr(o.hint, m->hint)) fail_msg("%s: the hint does not say '%s': %s", m->mode, m->hint, o.hint);
  int deleted = log_has(log, "DELETE /containers/" CID);
  if (m->removal == DELETE_SENT && !deleted) fail_msg("%s: the container was made and no DELETE was sent", m->mode);
  if (m->removal == DELETE_NAME && !strstr(log, "DELETE /containers/sbio-"))
    fail_msg("%s: the container was made, its id unusable, and no DELETE by its name was sent", m->mode);
  if (!held) fail_msg("%s: the hostile engine did not say which containers it holds", m->mode);
  if (!m->left && held[0]) fail_msg("%s: the engine still holds a container:\n%s", m->mode, held);
  if (m->left && !strstr(held, CID)) fail_msg("%s: the engine's DELETE failed, yet its container is gone", m->mode);
  if (m->removal == DELETE_NONE && strstr(log, "DELETE "))
    fail_msg("%s: nothing was made, yet a DELETE was sent:\n%s", m->mode, log);
  if (rss_grew > RSS_BOUND_KB) fail_msg("%s: the peak memory grew by %ld KiB", m->mode, rss_grew);
  if (m->path == P_READ) {
    /* Only the file's own bytes, and on failure none at all. */
    if (o.rc == SBIO_OK && (o.len != strlen(m->bytes) || memcmp(o.data, m->bytes, o.len) != 0))
      fail_msg("%s: the read returned %zu bytes that are not the file's", m->mode, o.len);
    if (o.rc != SBIO_OK && (o.data || o.len)) fail_msg("%s: a failed read returned %zu bytes", m->mode, o.len);
  }
  if (m->path == P_LIST && o.rc == SBIO_OK && strcmp(o.entries, "a.txt=/tmp/d/a.txt:5:0,sub=/tmp/d/sub:0:1") != 0)
    fail_msg("%s: the listing is not the engine's two entries: %s", m->mode, o.entries);
  if (m->path == P_LIST && o.rc != SBIO_OK && o.n_entries != -1)
    fail_msg("%s: a failed listing returned entries", m->mode);
  free(o.data);
  free(log);
  free(held);
  assert_int_equal(fds_after, fds_before);
}

/* ------------------------------------------------------------ the modes */
static const mode_case cases[] = {
    {"good", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .runtime = NULL, .mechanism = "runc"},
    {"good", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .runtime = "runsc", .mechanism = "runsc"},
    {"good", P_EXEC, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL},
    /* ---- create answers 201 with no usable id: the name removes what it made */
    {"create_not_json",
     P_RUN,
     SBIO_E_CREATE,
     {"create the container", "HTTP 201", "not JSON"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_not_json",
     P_EXEC,
     SBIO_E_CREATE,
     {"create the container", "HTTP 201", "not JSON"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_no_id", P_RUN, SBIO_E_CREATE, {"create the container", "HTTP 201", "no Id"}, DELETE_NAME, .runtime = NULL},
    {"create_no_id",
     P_EXEC,
     SBIO_E_CREATE,
     {"create the container", "HTTP 201", "no Id"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_id_empty",
     P_RUN,
     SBIO_E_CREATE,
     {"create the container", "not 64 hex digits"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_id_empty",
     P_EXEC,
     SBIO_E_CREATE,
     {"create the container", "not 64 hex digits"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_id_dotdot",
     P_RUN,
     SBIO_E_CREATE,
     {"create the container", "not 64 hex digits"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_id_dotdot",
     P_EXEC,
     SBIO_E_CREATE,
     {"create the container", "not 64 hex digits"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_id_not_hex",
     P_RUN,
     SBIO_E_CREATE,
     {"create the container", "not 64 hex digits"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_id_huge",
     P_RUN,
     SBIO_E_CREATE,
     {"create the container", "not 64 hex digits"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_id_short",
     P_RUN,
     SBIO_E_CREATE,
     {"create the container", "not 64 hex digits"},
     DELETE_NAME,
     .runtime = NULL},
    /* ---- create made the container and its answer never came: the name removes it */
    {"create_drop",
     P_RUN,
     SBIO_E_CREATE,
     {"create the container", "answer to it was lost"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_drop",
     P_EXEC,
     SBIO_E_CREATE,
     {"create the container", "answer to it was lost"},
     DELETE_NAME,
     .runtime = NULL},
    {"create_hangs", P_RUN, SBIO_E_CREATE_TIMEOUT, {"create the container"}, DELETE_NAME, .runtime = NULL},
    {"create_hangs", P_EXEC, SBIO_E_CREATE_TIMEOUT, {"create the container"}, DELETE_NAME, .runtime = NULL},
    /* ... and when that DELETE fails too, the error names the container */
    {"create_no_id+delete_500",
     P_RUN,
     SBIO_E_CREATE,
     {"no Id", "removing container sbio-", "also failed"},
     DELETE_NAME,
     .left = 1,
     .hint = REAP_HINT},
    {"create_id_empty+delete_drop",
     P_EXEC,
     SBIO_E_CREATE,
     {"not 64 hex digits", "removing container sbio-", "also failed"},
     DELETE_NAME,
     .left = 1,
     .hint = REAP_HINT},
    /* ---- the removal of a sandbox fails (close; the one-shot run's branches) */
    {"good+delete_500",
     P_EXEC,
     SBIO_E_CONNECT,
     {SHORT_ID, "remove container", "HTTP 500"},
     DELETE_SENT,
     .left = 1,
     .hint = REAP_HINT},
    {"good+delete_drop",
     P_EXEC,
     SBIO_E_CONNECT,
     {SHORT_ID, "remove container", "lost the connection"},
     DELETE_SENT,
     .left = 1,
     .hint = REAP_HINT},
    {"inspect_echo_secret+delete_500",
     P_RUN,
     SBIO_E_CREATE,
     {"inspect the new container", "removing container " SHORT_ID " also failed"},
     DELETE_SENT,
     .left = 1,
     .hint = REAP_HINT},
    {"wait_status_string+delete_500",
     P_RUN,
     SBIO_E_EXEC,
     {"wait answer", SHORT_ID, "may remain"},
     DELETE_SENT,
     .left = 1,
     .hint = REAP_HINT},
    {"command_hangs", P_RUN, SBIO_E_EXEC_TIMEOUT, {"deadline"}, DELETE_SENT, .runtime = NULL},
    {"command_hangs+delete_500",
     P_RUN,
     SBIO_E_EXEC_TIMEOUT,
     {"deadline", SHORT_ID, "not confirmed"},
     DELETE_SENT,
     .left = 1,
     .hint = REAP_HINT},
    {"command_hangs+delete_drop",
     P_RUN,
     SBIO_E_EXEC_TIMEOUT,
     {"deadline", SHORT_ID, "not confirmed"},
     DELETE_SENT,
     .left = 1,
     .hint = REAP_HINT},
    {"autoremove_fails", P_RUN, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL},
    {"good+delete_500",
     P_RUN,
     SBIO_OK,
     {NULL},
     DELETE_SENT,
     .left = 1,
     .logged = "teardown failed: sandbox docker:" SHORT_ID " may still exist; `sbio reap --kill`"},
    {"wait_status_string+delete_drop",
     P_RUN,
     SBIO_E_EXEC,
     {"wait answer", SHORT_ID, "may remain"},
     DELETE_SENT,
     .left = 1,
     .hint = REAP_HINT},
    {"create_echo_secret", P_RUN, SBIO_E_CREATE, {"create the container", "HTTP 500"}, DELETE_NONE, .runtime = NULL},
    {"inspect_echo_secret",
     P_RUN,
     SBIO_E_CREATE,
     {"inspect the new container", "HTTP 500"},
     DELETE_SENT,
     .runtime = NULL},
    {"inspect_echo_secret",
     P_EXEC,
     SBIO_E_CREATE,
     {"inspect the new container", "HTTP 500"},
     DELETE_SENT,
     .runtime = NULL},
    {"inspect_runtime_missing",
     P_RUN,
     SBIO_E_CREATE,
     {"HostConfig.Runtime", "not confirmed"},
     DELETE_SENT,
     .runtime = NULL},
    {"inspect_runtime_missing",
     P_EXEC,
     SBIO_E_CREATE,
     {"HostConfig.Runtime", "not confirmed"},
     DELETE_SENT,
     .runtime = NULL},
    {"inspect_runtime_not_string",
     P_RUN,
     SBIO_E_CREATE,
     {"HostConfig.Runtime", "not confirmed"},
     DELETE_SENT,
     .runtime = NULL},
    {"inspect_huge_body",
     P_RUN,
     SBIO_E_CREATE,
     {"inspect the new container", "too large"},
     DELETE_SENT,
     .runtime = NULL},
    {"inspect_huge_headers", P_RUN, SBIO_E_CREATE, {"inspect the new container"}, DELETE_SENT, .runtime = NULL},
    {"inspect_cut", P_RUN, SBIO_E_CREATE, {"inspect the new container"}, DELETE_SENT, .runtime = NULL},
    {"inspect_cut", P_EXEC, SBIO_E_CREATE, {"inspect the new container"}, DELETE_SENT, .runtime = NULL},
    {"wait_status_string", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT, .runtime = NULL},
    {"wait_status_negative", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT, .runtime = NULL},
    {"wait_status_huge", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT, .runtime = NULL},
    {"wait_status_missing", P_RUN, SBIO_E_EXEC, {"wait answer", "StatusCode"}, DELETE_SENT, .runtime = NULL},
    {"attach_200", P_RUN, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_ANY, .runtime = NULL},
    {"attach_bad_stream_type", P_RUN, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_ANY, .runtime = NULL},
    {"attach_huge_frame", P_RUN, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_ANY, .runtime = NULL},
    {"exec_create_no_id", P_EXEC, SBIO_E_EXEC, {"create the exec", "no exec id"}, DELETE_SENT, .runtime = NULL},
    {"exec_start_200", P_EXEC, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_SENT, .runtime = NULL},
    {"exec_bad_stream_type", P_EXEC, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_SENT, .runtime = NULL},
    {"exec_huge_frame", P_EXEC, SBIO_E_EXEC, {"output stream", "incomplete"}, DELETE_SENT, .runtime = NULL},
    {"exec_inspect_exit_string", P_EXEC, SBIO_E_EXEC, {"exec inspect", "ExitCode"}, DELETE_SENT, .runtime = NULL},
    /* Podman's answers while the container dies: gone, not an exec error;
     * a command not found in a running one stays the command's answer. */
    {"exec_create_removing", P_EXEC, SBIO_E_GONE, {"no longer exists"}, DELETE_ANY, .runtime = NULL},
    {"exec_start_stopped", P_EXEC, SBIO_E_GONE, {"no longer exists"}, DELETE_ANY, .runtime = NULL},
    {"exec_start_lost_removed", P_EXEC, SBIO_E_GONE, {"no longer exists"}, DELETE_ANY, .runtime = NULL},
    {"exec_not_found_running", P_EXEC, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL, .want_exit = 127},
    /* ---- engine facts */
    {"ping_no_version", P_RUN, SBIO_E_CREATE, {"API 1.23", "needs API"}, DELETE_NONE, .runtime = NULL},
    {"ping_version_abc", P_RUN, SBIO_E_CREATE, {"API abc", "needs API"}, DELETE_NONE, .runtime = NULL},
    {"ping_version_old", P_RUN, SBIO_E_CREATE, {"API 1.2;", "needs API"}, DELETE_NONE, .runtime = NULL},
    {"ping_version_future", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .runtime = NULL},
    {"ping_version_long", P_RUN, SBIO_E_CREATE, {"needs API"}, DELETE_NONE, .runtime = NULL},
    {"version_not_json", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .runtime = NULL},
    {"version_min_huge", P_RUN, SBIO_E_CREATE, {"accepts API 99.0"}, DELETE_NONE, .runtime = NULL},
    {"version_min_long", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .runtime = NULL},
    {"info_not_json", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .runtime = "runsc", .mechanism = "unverified-runsc"},
    {"info_runtimes_not_object",
     P_RUN,
     SBIO_OK,
     {NULL},
     DELETE_ANY,
     .runtime = "runsc",
     .mechanism = "unverified-runsc"},
    {"info_runtime_lies", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .runtime = "runsc", .mechanism = "runc"},
    {"podman_lies",
     P_RUN,
     SBIO_E_CREATE,
     {"runtime 'crun'", "not the configured 'runc'"},
     DELETE_SENT,
     .runtime = NULL},
    {"podman_runtime_huge",
     P_RUN,
     SBIO_E_CREATE,
     {"runtime 'oci'", "not the configured 'runc'"},
     DELETE_SENT,
     .runtime = NULL},
    {"podman_not_json",
     P_RUN,
     SBIO_E_CREATE,
     {"runtime 'oci'", "not the configured 'runc'"},
     DELETE_SENT,
     .runtime = NULL},
    /* ---- files: reads through GET /archive */
    {"archive_good", P_READ, SBIO_OK, {NULL}, DELETE_SENT, .bytes = FILE_BYTES},
    {"archive_entry_dotdot", P_READ, SBIO_E_FS, {"read /tmp/f.txt", "entry"}, DELETE_SENT, .runtime = NULL},
    {"archive_entry_absolute", P_READ, SBIO_E_FS, {"read /tmp/f.txt", "entry"}, DELETE_SENT, .runtime = NULL},
    {"archive_entry_other", P_READ, SBIO_E_FS, {"read /tmp/f.txt", "entry"}, DELETE_SENT, .runtime = NULL},
    {"archive_symlink_out", P_READ, SBIO_OK, {NULL}, DELETE_SENT, .bytes = OUTSIDE_BYTES},
    {"archive_symlink_loop",
     P_READ,
     SBIO_E_FS,
     {"/tmp/f.txt", "too many symbolic links"},
     DELETE_SENT,
     .runtime = NULL},
    {"archive_two_entries", P_READ, SBIO_OK, {NULL}, DELETE_SENT, .bytes = FILE_BYTES},
    {"archive_size_lies", P_READ, SBIO_E_FS, {"read /tmp/f.txt"}, DELETE_SENT, .runtime = NULL},
    {"archive_size_huge", P_READ, SBIO_E_FS, {"/tmp/f.txt", "read limit"}, DELETE_SENT, .max_bytes = 1 << 20},
    {"archive_size_huge_eof", P_READ, SBIO_E_FS, {"read /tmp/f.txt"}, DELETE_SENT, .runtime = NULL},
    {"archive_not_tar", P_READ, SBIO_E_FS, {"read /tmp/f.txt", "not a readable tar"}, DELETE_SENT, .runtime = NULL},
    {"archive_empty", P_READ, SBIO_E_FS, {"read /tmp/f.txt", "not a readable tar"}, DELETE_SENT, .runtime = NULL},
    {"archive_good", P_WRITE, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL},
    {"archive_put_404",
     P_WRITE,
     SBIO_E_PATH_NOT_FOUND,
     {"write /tmp/f.txt", "/tmp does not exist"},
     DELETE_SENT,
     .runtime = NULL},
    /* ---- files: the stat (HEAD /archive) before a listing */
    {"stat_good", P_LIST, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL},
    {"stat_not_base64",
     P_LIST,
     SBIO_E_FS,
     {"stat /tmp/d", "X-Docker-Container-Path-Stat"},
     DELETE_SENT,
     .runtime = NULL},
    {"stat_not_json", P_LIST, SBIO_E_FS, {"stat /tmp/d", "X-Docker-Container-Path-Stat"}, DELETE_SENT, .runtime = NULL},
    {"stat_missing", P_LIST, SBIO_E_FS, {"stat /tmp/d", "X-Docker-Container-Path-Stat"}, DELETE_SENT, .runtime = NULL},
    {"stat_size_negative", P_LIST, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL},
    {"stat_size_huge", P_LIST, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL},
    {"stat_mode_huge",
     P_LIST,
     SBIO_E_FS,
     {"stat /tmp/d", "X-Docker-Container-Path-Stat"},
     DELETE_SENT,
     .runtime = NULL},
    {"stat_name_newline", P_LIST, SBIO_OK, {NULL}, DELETE_SENT, .runtime = NULL},
    /* ---- files: the listing's output */
    {"list_garbage", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    {"list_no_nul", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    {"list_name_slash", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    {"list_name_dotdot", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    {"list_name_empty", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    {"list_size_negative", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    {"list_size_huge", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    {"list_type_other", P_LIST, SBIO_E_FS, {"list /tmp/d", "malformed"}, DELETE_SENT, .runtime = NULL},
    /* ---- the pull (pull: always) */
    {"pull_good", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .extra = PULL_ALWAYS},
    {"pull_not_json", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .extra = PULL_ALWAYS},
    {"pull_error_line", P_RUN, SBIO_E_CREATE, {"pull image", "pull access denied"}, DELETE_NONE, .extra = PULL_ALWAYS},
    {"pull_error_newline", P_RUN, SBIO_E_CREATE, {"pull image", "pull failed"}, DELETE_NONE, .extra = PULL_ALWAYS},
    {"pull_error_no_newline",
     P_RUN,
     SBIO_E_CREATE,
     {"pull image", "pull access denied"},
     DELETE_NONE,
     .extra = PULL_ALWAYS},
    {"pull_long_line", P_RUN, SBIO_E_CREATE, {"pull image", "pull access denied"}, DELETE_NONE, .extra = PULL_ALWAYS},
    {"pull_long_no_newline", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .extra = PULL_ALWAYS},
    {"pull_no_final_status", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .extra = PULL_ALWAYS},
    {"pull_cut", P_RUN, SBIO_E_CREATE, {"pull image"}, DELETE_NONE, .extra = PULL_ALWAYS},
    {"pull_progress_weird", P_RUN, SBIO_OK, {NULL}, DELETE_ANY, .extra = PULL_ALWAYS},
};

static void test_mode(void **state) {
  check_mode(*state);
}

int main(void) {
  if (access("/usr/bin/python3", X_OK) != 0) {
    fprintf(stderr, "SKIP: /usr/bin/python3 is needed for the hostile engine\n");
    return 77;
  }
  /* Only this file's backend, whatever the caller's environment says. */
  unsetenv("DOCKER_HOST");
  enum { N = sizeof cases / sizeof cases[0] };
  struct CMUnitTest tests[N];
  static char names[N][96];
  /* SBIO_TEST_HOSTILE_MODE=mode runs that mode's cases only (debugging). */
  const char *only = getenv("SBIO_TEST_HOSTILE_MODE");
  size_t n = 0;
  for (size_t i = 0; i < N; i++) {
    if (only && only[0] && strcmp(only, cases[i].mode) != 0) continue;
    snprintf(names[n], sizeof names[n], "%s/%s", cases[i].mode, path_names[cases[i].path]);
    tests[n] = (struct CMUnitTest){names[n], test_mode, NULL, NULL, (void *)(uintptr_t)&cases[i]};
    n++;
  }
  return _cmocka_run_group_tests("test_docker_hostile", tests, n, NULL, NULL);
}
