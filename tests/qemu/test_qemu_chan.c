/* SPDX-License-Identifier: MIT */
/* The host side of the qemu backend's agent channel (plugins/qemu/chan.c,
 * exec.c, files.c) against a scripted guest on a socketpair: answers
 * dispatched by request, streams kept apart, errors mapped, and every
 * malformed, oversized, silent or vanished guest ending the call with an
 * error in time, never a hang and never a success. */
#include "qm.h"

#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

static int64_t mono(void *d) {
  (void)d;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static void no_log(void *d, int level, const char *m) {
  (void)d, (void)level, (void)m;
}
static const sbio_host_services host = {.size = sizeof host, .monotonic_ns = mono, .log = no_log};
static int never(const sbio_bk_call *c) {
  (void)c;
  return 0;
}
static sbio_bk_call call_for(double seconds) {
  sbio_bk_call c = {.size = sizeof c, .host = &host, .cancelled = never};
  c.deadline_ns = mono(NULL) + (int64_t)(seconds * 1e9);
  return c;
}

/* ------------------------------------------------------- the fake guest */
typedef struct guest {
  int fd;
  uint8_t reply[1024];
  size_t reply_len;
  int close_after; /* close the socket after replying */
  int patch_id;    /* write the request's id into each reply frame */
  uint8_t seen_types[16];
  int n_seen;
} guest;

static void frame(guest *g, uint8_t type, const uint8_t *payload, uint32_t len) {
  uint8_t h[12] = {
      0x53, 0x51, 1, type, 0, 0, 0, 0, (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16), (uint8_t)(len >> 24)};
  memcpy(g->reply + g->reply_len, h, 12);
  memcpy(g->reply + g->reply_len + 12, payload, len);
  g->reply_len += 12 + len;
}

static void *guest_main(void *arg) {
  guest *g = arg;
  uint8_t buf[4096];
  size_t have = 0;
  /* Read the first request frame (and its id), then answer. */
  for (;;) {
    ssize_t n = read(g->fd, buf + have, sizeof buf - have);
    if (n <= 0) return NULL;
    have += (size_t)n;
    qm_header h;
    if (sbio__qm_header_parse(buf, have, &h) == 1) {
      g->seen_types[g->n_seen++] = h.type;
      if (g->patch_id)
        for (size_t off = 0; off + 12 <= g->reply_len;) {
          memcpy(g->reply + off + 4, &h.id, 4);
          uint32_t len;
          memcpy(&len, g->reply + off + 8, 4);
          off += 12 + (len > sizeof g->reply ? sizeof g->reply : len);
        }
      break;
    }
  }
  if (g->reply_len && write(g->fd, g->reply, g->reply_len) != (ssize_t)g->reply_len) return NULL;
  if (g->close_after) {
    close(g->fd);
    return NULL;
  }
  /* Keep listening (e.g. for the KILL after a timeout). */
  for (;;) {
    ssize_t n = read(g->fd, buf, sizeof buf);
    if (n <= 0) break;
    qm_header h;
    if (n >= 12 && sbio__qm_header_parse(buf, (size_t)n, &h) >= 0 && g->n_seen < 16)
      g->seen_types[g->n_seen++] = h.type;
  }
  return NULL;
}

typedef struct fixture {
  qm_sandbox *sb;
  guest g;
  pthread_t t;
} fixture;

static void start(fixture *f) {
  int sv[2];
  assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  f->sb = calloc(1, sizeof *f->sb);
  f->sb->fd = sv[0];
  fcntl(sv[0], F_SETFL, O_NONBLOCK);
  snprintf(f->sb->id, sizeof f->sb->id, "qm-test");
  f->sb->expires_ns = INT64_MAX;
  f->sb->timeout_s = 300;
  f->g.fd = sv[1];
  f->g.patch_id = 1;
  assert_int_equal(pthread_create(&f->t, NULL, guest_main, &f->g), 0);
}

static void stop(fixture *f) {
  shutdown(f->sb->fd, SHUT_RDWR);
  pthread_join(f->t, NULL);
  close(f->sb->fd);
  if (!f->g.close_after) close(f->g.fd);
  free(f->sb->rx);
  free(f->sb);
}

typedef struct sink {
  char out[256], errout[256];
  size_t n_out, n_err;
} sink;
static void on_output(void *user, int stream, const char *data, size_t len) {
  sink *s = user;
  char *dst = stream == 1 ? s->out : s->errout;
  size_t *n = stream == 1 ? &s->n_out : &s->n_err;
  memcpy(dst + *n, data, len);
  *n += len;
}

static int run_sh(fixture *f, double seconds, sink *s, int *code, sbio_bk_error *err) {
  sbio_bk_exec_req req = {
      .size = sizeof req, .shell = "echo out; echo err >&2; exit 3", .output = on_output, .output_user = s};
  sbio_bk_call c = call_for(seconds);
  return sbio__qm_op_exec(f->sb, &req, &c, code, err);
}

static void exec_streams_and_status(void **state) {
  (void)state;
  fixture f = {0};
  frame(&f.g, QM_OUT, (const uint8_t *)"\x01\x04\0\0\0out\n", 9);
  frame(&f.g, QM_OUT, (const uint8_t *)"\x02\x04\0\0\0err\n", 9);
  frame(&f.g, QM_EXIT, (const uint8_t *)"\x00\x03\0\0\0", 5);
  start(&f);
  sink s = {0};
  int code = -1;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(run_sh(&f, 10, &s, &code, &err), SBIO_OK);
  assert_int_equal(code, 3);
  assert_int_equal(s.n_out, 4);
  assert_memory_equal(s.out, "out\n", 4);
  assert_int_equal(s.n_err, 4);
  assert_memory_equal(s.errout, "err\n", 4);
  assert_int_equal(f.g.seen_types[0], QM_EXEC);
  stop(&f);
}

static void exec_killed_by_signal(void **state) {
  (void)state;
  fixture f = {0};
  frame(&f.g, QM_EXIT, (const uint8_t *)"\x01\x09\0\0\0", 5);
  start(&f);
  sink s = {0};
  int code = -1;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(run_sh(&f, 10, &s, &code, &err), SBIO_OK);
  assert_int_equal(code, 137);
  stop(&f);
}

/* Each of these must end the exec with an error, and the channel must
 * refuse the next request: garbage is never success, never a hang. */
static void malformed(const uint8_t type, const uint8_t *payload, uint32_t len, int raw_garbage) {
  fixture f = {0};
  if (raw_garbage) {
    memcpy(f.g.reply, payload, len);
    f.g.reply_len = len;
    f.g.patch_id = 0;
  } else {
    frame(&f.g, type, payload, len);
  }
  start(&f);
  sink s = {0};
  int code = -1;
  sbio_bk_error err = {.size = sizeof err};
  int64_t t0 = mono(NULL);
  int rc = run_sh(&f, 20, &s, &code, &err);
  assert_int_equal(rc, SBIO_E_EXEC);
  assert_true(mono(NULL) - t0 < (int64_t)10e9);
  assert_non_null(strstr(err.message, "malformed"));
  assert_true(f.sb->broken);
  rc = run_sh(&f, 5, &s, &code, &err);
  assert_int_equal(rc, SBIO_E_EXEC);
  stop(&f);
}

static void bad_magic(void **state) {
  (void)state;
  malformed(0, (const uint8_t *)"HTTP/1.1 200 OK\r\n\r\n", 19, 1);
}
static void oversized_length(void **state) {
  (void)state;
  /* A header that announces 4 GiB of payload. */
  malformed(0, (const uint8_t *)"\x53\x51\x01\x02\x01\0\0\0\xff\xff\xff\xff", 12, 1);
}
static void wrong_version(void **state) {
  (void)state;
  malformed(0, (const uint8_t *)"\x53\x51\x07\x03\x01\0\0\0\x05\0\0\0\0\0\0\0\0", 17, 1);
}
static void bad_stream(void **state) {
  (void)state;
  malformed(QM_OUT, (const uint8_t *)"\x03\x01\0\0\0x", 6, 0);
}
static void data_longer_than_frame(void **state) {
  (void)state;
  malformed(QM_OUT, (const uint8_t *)"\x01\xff\0\0\0x", 6, 0);
}
static void exit_out_of_range(void **state) {
  (void)state;
  malformed(QM_EXIT, (const uint8_t *)"\x00\x00\x01\0\0", 5, 0);
}
static void unknown_type(void **state) {
  (void)state;
  malformed(99, (const uint8_t *)"", 0, 0);
}

static void guest_vanishes(void **state) {
  (void)state;
  fixture f = {0};
  frame(&f.g, QM_OUT, (const uint8_t *)"\x01\x04\0\0\0out\n", 9);
  f.g.close_after = 1;
  start(&f);
  sink s = {0};
  int code = -1;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(run_sh(&f, 10, &s, &code, &err), SBIO_E_GONE);
  assert_int_equal(s.n_out, 4); /* what came before the end was delivered */
  stop(&f);
}

/* The guest powered off at the end of its lifetime under a running
 * command: the command ran out of time (SBX_E1302), not "gone". */
static void lifetime_ends_during_exec(void **state) {
  (void)state;
  fixture f = {0};
  f.g.close_after = 1;
  start(&f);
  f.sb->expires_ns = mono(NULL) - 1;
  sink s = {0};
  int code = -1;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(run_sh(&f, 10, &s, &code, &err), SBIO_E_EXEC_TIMEOUT);
  assert_non_null(strstr(err.message, "lifetime"));
  stop(&f);
}

static void silent_guest_times_out(void **state) {
  (void)state;
  fixture f = {0};
  start(&f);
  sink s = {0};
  int code = -1;
  sbio_bk_error err = {.size = sizeof err};
  int64_t t0 = mono(NULL);
  assert_int_equal(run_sh(&f, 0.3, &s, &code, &err), SBIO_E_EXEC_TIMEOUT);
  /* The deadline plus the kill's own short budget, never more. */
  assert_true(mono(NULL) - t0 < (int64_t)((0.3 + QM_CLEANUP_S + 1) * 1e9));
  stop(&f);
  int killed = 0;
  for (int i = 0; i < f.g.n_seen; i++) killed |= f.g.seen_types[i] == QM_KILL;
  assert_true(killed);
}

static void missing_path_is_1701(void **state) {
  (void)state;
  fixture f = {0};
  static const char msg[] = "\x02\0\0\0\x19\0\0\0No such file or directory";
  frame(&f.g, QM_ERR, (const uint8_t *)msg, sizeof msg - 1);
  start(&f);
  sbio_bk_error err = {.size = sizeof err};
  sbio_bk_call c = call_for(10);
  assert_int_equal(sbio__qm_op_file_remove(f.sb, "/nope", &c, &err), SBIO_E_PATH_NOT_FOUND);
  assert_non_null(strstr(err.message, "/nope"));
  assert_false(f.sb->broken);
  stop(&f);
}

static void count_entry(void *user, const sbio_bk_dirent *e) {
  (void)e;
  (*(int *)user)++;
}

static void dirent_with_a_path_is_refused(void **state) {
  (void)state;
  fixture f = {0};
  frame(&f.g, QM_DIRENT, (const uint8_t *)"\x06\0\0\0../etc\0\0\0\0\0\0\0\0\0", 19);
  frame(&f.g, QM_DONE, (const uint8_t *)"", 0);
  start(&f);
  sbio_bk_error err = {.size = sizeof err};
  sbio_bk_call c = call_for(10);
  int n = 0;
  assert_int_equal(sbio__qm_op_file_list(f.sb, "/work", &c, count_entry, &n, &err), SBIO_E_FS);
  assert_int_equal(n, 0);
  assert_true(f.sb->broken);
  stop(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(exec_streams_and_status),
      cmocka_unit_test(exec_killed_by_signal),
      cmocka_unit_test(bad_magic),
      cmocka_unit_test(oversized_length),
      cmocka_unit_test(wrong_version),
      cmocka_unit_test(bad_stream),
      cmocka_unit_test(data_longer_than_frame),
      cmocka_unit_test(exit_out_of_range),
      cmocka_unit_test(unknown_type),
      cmocka_unit_test(guest_vanishes),
      cmocka_unit_test(lifetime_ends_during_exec),
      cmocka_unit_test(silent_guest_times_out),
      cmocka_unit_test(missing_path_is_1701),
      cmocka_unit_test(dirent_with_a_path_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
