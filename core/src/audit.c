/* SPDX-License-Identifier: MIT */
#include "audit.h"

#include "clock.h"
#include "error_internal.h"
#include "host_internal.h"
#include "trace.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int64_t realtime_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int sbio__audit_listening(const sbio_host *host) {
  return host->audit.path || host->audit.to_stderr || host->audit.n_cbs || host->tracer;
}

void sbio__event_begin(sbio__event *ev, sbio_host *host, const char *name) {
  char ts[40];
  ev->listening = sbio__audit_listening(host);
  ev->obj = NULL;
  if (!ev->listening) return;
  ev->obj = cJSON_CreateObject();
  ev->started_ns = sbio__monotonic_ns();
  ev->started_unix_ns = realtime_ns();
  ev->redactor = &host->redactor;
  sbio__utc_timestamp(ts, sizeof ts);
  sbio__event_str(ev, "ts", ts);
  sbio__event_str(ev, "event", name);
  sbio__event_str(ev, "session", host->session_id);
}

void sbio__event_str(sbio__event *ev, const char *key, const char *value) {
  if (!ev->obj) return;
  cJSON_DeleteItemFromObjectCaseSensitive(ev->obj, key);
  if (!value) {
    cJSON_AddNullToObject(ev->obj, key);
    return;
  }
  char *clean = sbio__redact(ev->redactor, value);
  cJSON_AddStringToObject(ev->obj, key, clean ? clean : SBIO_REDACTED);
  free(clean);
}

void sbio__event_int(sbio__event *ev, const char *key, long long value) {
  if (!ev->obj) return;
  cJSON_DeleteItemFromObjectCaseSensitive(ev->obj, key);
  cJSON_AddNumberToObject(ev->obj, key, (double)value);
}

void sbio__event_argv(sbio__event *ev, const char *const *argv, size_t argc) {
  if (!ev->obj) return;
  cJSON_DeleteItemFromObjectCaseSensitive(ev->obj, "argv");
  cJSON *arr = cJSON_AddArrayToObject(ev->obj, "argv");
  for (size_t i = 0; arr && i < argc; i++) {
    char *clean = sbio__redact(ev->redactor, argv[i]);
    cJSON_AddItemToArray(arr, cJSON_CreateString(clean ? clean : SBIO_REDACTED));
    free(clean);
  }
}

void sbio__event_backend(sbio__event *ev, const struct sbio_backend_info *b, const sbio__mechanism *m) {
  sbio__event_str(ev, "backend", b->name);
  sbio__event_str(ev, "mechanism", m ? m->name : NULL);
  sbio__event_str(ev, "tier", sbio_tier_name(m ? m->effective : b->tier));
  sbio__event_str(ev, "claimed_tier", sbio_tier_name(m ? m->claimed : b->claimed_tier));
  sbio__event_str(ev, "source_url", m ? m->url : NULL);
  sbio__event_str(ev, "verified_on", m ? m->verified_on : NULL);
}

void sbio__event_sandbox(sbio__event *ev, const struct sbio_sandbox *sb) {
  sbio__event_str(ev, "sandbox_id", sb->id);
  sbio__event_backend(ev, sb->backend, sb->mech);
  sbio__event_str(ev, "mechanism", sb->mechanism);
  sbio__event_str(ev, "tier", sbio_tier_name(sb->tier));
  sbio__event_str(ev, "tenant_id", sbio__kvlist_get(&sb->labels, "tenant_id"));
  sbio__event_str(ev, "session_id", sbio__kvlist_get(&sb->labels, "session_id"));
}

void sbio__event_outcome(sbio__event *ev, sbio_code code, const sbio_error *err) {
  sbio__event_str(ev, "outcome", code == SBIO_OK ? "ok" : "error");
  if (code != SBIO_OK) {
    sbio__event_str(ev, "error_code", sbio_code_name(code));
    sbio__event_str(ev, "error", err ? sbio_error_message(err) : NULL);
  }
}

/* Every event carries every field of the schema, so a reader never has to
 * guess whether a missing key means "none" or "this version does not say":
 * absent values are null, byte counts 0. */
static void complete_record(sbio__event *ev, int op_failed) {
  static const char *const nullable[] = {
      "backend",   "mechanism",  "tier", "claimed_tier", "source_url", "verified_on", "sandbox_id",
      "tenant_id", "session_id", "argv", "exit_code",    "error_code", "error",       NULL};
  static const char *const counters[] = {"bytes_in", "bytes_out", NULL};
  for (size_t i = 0; nullable[i]; i++)
    if (!cJSON_HasObjectItem(ev->obj, nullable[i])) cJSON_AddNullToObject(ev->obj, nullable[i]);
  for (size_t i = 0; counters[i]; i++)
    if (!cJSON_HasObjectItem(ev->obj, counters[i])) cJSON_AddNumberToObject(ev->obj, counters[i], 0);
  if (!cJSON_HasObjectItem(ev->obj, "outcome")) cJSON_AddStringToObject(ev->obj, "outcome", op_failed ? "error" : "ok");
}

#define AUDIT_LOCK_WAIT_NS 1000000000LL /* 1 s, for the host's life */
#define AUDIT_LOCK_SLICE_NS 5000000L    /* 5 ms between tries */

static ssize_t write_retry(int fd, const char *data, size_t len) {
  ssize_t n;
  do n = write(fd, data, len);
  while (n < 0 && errno == EINTR);
  return n;
}

/* Whether the file's last byte is not a newline: a line an earlier writer
 * could not finish (full disk). */
static int ends_mid_line(int fd) {
  struct stat st;
  char last;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
         last != '\n';
}

/* The audit file is a regular file, or a character device (/dev/null to
 * discard, /dev/full in the tests). A FIFO would block the open until a
 * reader comes, then every write while the reader stalls, with the
 * operation (and its caller's deadline) waiting behind it, and lines longer
 * than PIPE_BUF would interleave between writers; a socket is no log and a
 * block device would be overwritten. So the open is non-blocking (a FIFO
 * with no reader cannot hang it; a regular file ignores the flag, and a
 * device that honours it answers EAGAIN instead of blocking a write) and
 * write_file_line refuses the rest. Read access too, for ends_mid_line;
 * write-only when we may not read. */
static int open_for_append(const char *path) {
  const int flags = O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  int fd = open(path, O_RDWR | flags, 0600);
  if (fd >= 0 || errno != EACCES) return fd;
  return open(path, O_WRONLY | flags, 0600);
}

/* The advisory lock of write_file_line, waited for at most AUDIT_LOCK_WAIT_NS
 * over the host's life: another writer holds it for one write, but anyone
 * who may open the file can hold it for ever (`flock -s audit.log sleep
 * inf`), and every operation of every host writing there would hang behind
 * it. Without the lock the line is still appended whole (O_APPEND); only
 * the check for a line an earlier writer cut short may see a line in
 * progress. 1 when locked. Caller holds audit.lock. */
static int lock_bounded(sbio_host *host, int fd) {
  for (;;) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 1;
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK || host->audit.lock_waited_ns >= AUDIT_LOCK_WAIT_NS) return 0;
    struct timespec ts = {0, AUDIT_LOCK_SLICE_NS};
    nanosleep(&ts, NULL);
    host->audit.lock_waited_ns += AUDIT_LOCK_SLICE_NS;
  }
}

/* One write(2) per line on an O_APPEND descriptor: the kernel appends it
 * whole, so concurrent writers (threads or processes) never interleave on
 * a local file system. `framed` is "\n" LINE "\n"; the leading newline is
 * written only when a previous line was cut short (a full disk), so that
 * line stays one unparseable line instead of swallowing ours. The advisory
 * lock makes that check see only finished lines: another writer's line in
 * progress would otherwise look cut short. The file is opened per event: a
 * log rotated or removed meanwhile is recreated. */
static int write_file_line(sbio_host *host, const char *path, const char *framed, size_t framed_len, char *why,
                           size_t why_size) {
  int fd = open_for_append(path);
  if (fd < 0) {
    snprintf(why, why_size, "cannot open audit file %s: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISCHR(st.st_mode))) {
    snprintf(why, why_size,
             "cannot open audit file %s: not a regular file (FIFOs, sockets and block devices are refused)", path);
    close(fd);
    return -1;
  }
  int locked = lock_bounded(host, fd);
  const char *data = framed + 1;
  size_t len = framed_len - 1;
  if (locked && ends_mid_line(fd)) data = framed, len = framed_len;
  ssize_t n = write_retry(fd, data, len);
  int saved = errno;
  int rc = close(fd); /* also releases the lock */
  if (n < 0 || (size_t)n != len || rc != 0) {
    snprintf(why, why_size, "cannot append to audit file %s: %s", path,
             n < 0              ? strerror(saved)
             : (size_t)n != len ? "short write (is the disk full?)"
                                : strerror(errno));
    return -1;
  }
  return 0;
}

/* Waits for room on `fd` within what is left of `*budget_ns` (no wait once
 * it is spent), taking the time waited from it. 1: room; 0: none in time;
 * -1: the descriptor is broken (errno set). */
static int wait_writable(int fd, int64_t *budget_ns) {
  for (;;) {
    struct pollfd p = {fd, POLLOUT, 0};
    int64_t left = *budget_ns > 0 ? *budget_ns : 0, t0 = sbio__monotonic_ns();
    int r = poll(&p, 1, left ? (int)(left / 1000000) + 1 : 0);
    if (left) *budget_ns -= sbio__monotonic_ns() - t0;
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) {
      errno = (p.revents & POLLNVAL) ? EBADF : EPIPE;
      return -1;
    }
    if (r > 0) return 1;
    if (*budget_ns <= 0) return 0;
  }
}

/* A pipe or FIFO on fd 2, opened again as a non-blocking description of
 * its own (the shared one, and the other processes using it, keep their
 * flags): its writes take what fits and never wait in the kernel. -1 for
 * anything else, or when that cannot be done. */
static int reopen_fifo_nonblocking(const struct stat *st) {
  if (!S_ISFIFO(st->st_mode)) return -1;
  int fd = open("/proc/self/fd/2", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat again;
  if (fd >= 0 && (fstat(fd, &again) != 0 || again.st_ino != st->st_ino || again.st_dev != st->st_dev)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* stderr as a sink: one JSON object per line in a single write, the shape
 * journald and syslog collectors take one record per line from. A reader
 * that stops reading must not hold the operation (nor, behind audit.lock,
 * every other thread's): the host waits for room at most
 * SBIO_DEADLINE_MARGIN_S in all, then a line that does not fit at once
 * fails the sink ("stderr is not being read"). A regular file is written
 * as before; a pipe through a non-blocking description of its own; a
 * socket with MSG_DONTWAIT; anything else (a terminal) once poll() says
 * there is room, in PIPE_BUF pieces. Caller holds audit.lock. */
static int write_stderr_line(sbio_host *host, const char *line, size_t len, char *why, size_t why_size) {
  struct stat st;
  if (fstat(STDERR_FILENO, &st) != 0 || S_ISREG(st.st_mode)) {
    ssize_t n = write_retry(STDERR_FILENO, line, len);
    if (n >= 0 && (size_t)n == len) return 0;
    snprintf(why, why_size, "cannot write audit event to stderr: %s", n < 0 ? strerror(errno) : "short write");
    return -1;
  }
  const int64_t margin_ns = (int64_t)(SBIO_DEADLINE_MARGIN_S * 1e9);
  int64_t budget = margin_ns - host->audit.stderr_waited_ns, start = budget;
  int own = reopen_fifo_nonblocking(&st), sock = S_ISSOCK(st.st_mode);
  int fd = own >= 0 ? own : STDERR_FILENO;
  size_t done = 0;
  int failed = 0, stalled = 0;
  while (done < len && !failed && !stalled) {
    if (own < 0 && !sock) {
      int w = wait_writable(fd, &budget);
      if (w <= 0) {
        failed = w < 0;
        stalled = w == 0;
        break;
      }
    }
    size_t want = len - done;
    if (own < 0 && !sock && want > PIPE_BUF) want = PIPE_BUF; /* what a terminal with room takes at once */
    ssize_t n = sock ? send(fd, line + done, want, MSG_DONTWAIT | MSG_NOSIGNAL) : write(fd, line + done, want);
    if (n > 0) {
      done += (size_t)n;
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && (own >= 0 || sock)) {
      int w = wait_writable(fd, &budget);
      failed = w < 0;
      stalled = w == 0;
    } else {
      failed = 1;
      if (n == 0) errno = EIO;
    }
  }
  int saved = errno;
  if (own >= 0) close(own);
  host->audit.stderr_waited_ns += start - budget;
  if (done == len) return 0;
  if (stalled)
    snprintf(why, why_size, "cannot write audit event to stderr: stderr is not being read (no room for %.0f s)%s",
             SBIO_DEADLINE_MARGIN_S, done ? "; the line was cut short" : "");
  else
    snprintf(why, why_size, "cannot write audit event to stderr: %s", strerror(saved));
  return -1;
}

/* What failed, for warning once about each. */
enum sink_kind { SINK_EVENT = 1u, SINK_FILE = 2u, SINK_STDERR = 4u, SINK_CALLBACK = 8u };

static sbio_code sink_failed(sbio_host *host, unsigned kind, const char *why, int op_failed, sbio_error *err) {
  int fails = host->audit.on_failure == SBIO__ON_FAILURE_FAIL && !op_failed;
  /* Without an error object (host events, a close without one) the reason
   * would be lost: it goes to the log as well. A warning, though, is given
   * once per sink and host: the rest are counted for sbio__audit_close. */
  if (fails && !err) {
    sbio__log(host, SBIO_LOG_WARN, "audit sink failed: %s", why);
  } else if (!fails) {
    if (__atomic_fetch_or(&host->audit.warned, kind, __ATOMIC_RELAXED) & kind)
      __atomic_add_fetch(&host->audit.suppressed, 1, __ATOMIC_RELAXED);
    else
      sbio__log(host, SBIO_LOG_WARN,
                "audit sink failed: %s (later failures of this sink are counted and reported when the host closes)",
                why);
  }
  if (!fails) return SBIO_OK;
  return sbio__error_set(err, SBIO_E_AUDIT_SINK, "fix the audit sink (audit.path, audit.stderr, callbacks)",
                         "audit sink failed: %s", why);
}

/* Sends the line to every sink, in order: file, stderr, callbacks. Under
 * on_failure: fail the first failure stops (the operation fails with it);
 * otherwise every sink is tried. Caller holds audit.lock. */
static sbio_code send_to_sinks(sbio_host *host, const char *line, int op_failed, sbio_error *err) {
  sbio_code rc = SBIO_OK;
  size_t len = strlen(line);
  char *framed = (host->audit.path || host->audit.to_stderr) ? malloc(len + 3) : NULL;
  char why[512];
  if (framed) {
    framed[0] = '\n';
    memcpy(framed + 1, line, len);
    memcpy(framed + 1 + len, "\n", 2);
  } else if (host->audit.path || host->audit.to_stderr) {
    rc = sink_failed(host, SINK_EVENT, "out of memory", op_failed, err);
  }
  if (framed && host->audit.path && write_file_line(host, host->audit.path, framed, len + 2, why, sizeof why) != 0)
    rc = sink_failed(host, SINK_FILE, why, op_failed, err);
  if (framed && rc == SBIO_OK && host->audit.to_stderr &&
      write_stderr_line(host, framed + 1, len + 1, why, sizeof why) != 0)
    rc = sink_failed(host, SINK_STDERR, why, op_failed, err);
  free(framed);
  for (size_t i = 0; i < host->audit.n_cbs && rc == SBIO_OK; i++) {
    if (host->audit.cbs[i].fn(line, host->audit.cbs[i].user) != 0)
      rc = sink_failed(host, SINK_CALLBACK, "audit callback returned an error", op_failed, err);
  }
  return rc;
}

sbio_code sbio__audit_emit(sbio_host *host, sbio__event *ev, int op_failed, sbio_error *err) {
  if (!ev->listening) return SBIO_OK;
  if (!ev->obj) return sink_failed(host, SINK_EVENT, "out of memory building an event", op_failed, err);
  int64_t elapsed_ns = sbio__monotonic_ns() - ev->started_ns;
  sbio__event_int(ev, "duration_ms", elapsed_ns / 1000000);
  complete_record(ev, op_failed);
  char *raw = cJSON_PrintUnformatted(ev->obj);
  cJSON_Delete(ev->obj);
  ev->obj = NULL;
  /* Every field was redacted when set; this pass catches secrets split
   * across fields' formatting or added to the redactor meanwhile. */
  char *line = raw ? sbio__redact(&host->redactor, raw) : NULL;
  free(raw);
  /* cJSON passes bytes that are not UTF-8 through (an argv word, a file
   * path, a provider's message): the line, and the span made from it, must
   * still be valid JSON, so such a byte becomes U+FFFD. */
  if (line && !sbio__utf8_valid(line)) {
    char *valid = sbio__utf8_valid_copy(line);
    free(line);
    line = valid;
  }
  if (!line) return sink_failed(host, SINK_EVENT, "out of memory serialising an event", op_failed, err);

  pthread_mutex_lock(&host->audit.lock);
  sbio_code rc = send_to_sinks(host, line, op_failed, err);
  pthread_mutex_unlock(&host->audit.lock);
  /* The span is the same redacted record; it never fails the operation. */
  if (host->tracer) sbio__tracer_record(host->tracer, line, ev->started_unix_ns, ev->started_unix_ns + elapsed_ns);
  free(line);
  return rc;
}

sbio_code sbio__audit_finish(sbio_host *host, sbio__event *ev, sbio_code rc, sbio_error *err) {
  if (rc != SBIO_OK) sbio__host_redact_error(host, err);
  sbio__event_outcome(ev, rc, err);
  sbio_code sink = sbio__audit_emit(host, ev, rc != SBIO_OK, err);
  return rc != SBIO_OK ? rc : sink;
}

void sbio__audit_close(sbio_host *host) {
  size_t n = __atomic_load_n(&host->audit.suppressed, __ATOMIC_RELAXED);
  if (n)
    sbio__log(host, SBIO_LOG_WARN, "audit sink failed %zu more time%s after the warning%s above: %s not recorded there",
              n, n == 1 ? "" : "s", __builtin_popcount(host->audit.warned) == 1 ? "" : "s",
              n == 1 ? "that event was" : "those events were");
}
