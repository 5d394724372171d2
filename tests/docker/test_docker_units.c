/* SPDX-License-Identifier: MIT */
/* The docker backend's pure parts, without an engine: frame demux, settings,
 * engine address, paths, version comparison, tar headers, which engine
 * answers mean the container is gone. */
#include "demux.h"
#include "endpoint.h"
#include "engine.h"
#include "errmap.h"
#include "exec_startfail.h"
#include "imageref.h"
#include "paths.h"
#include "settings.h"
#include "tarhdr.h"

#include <archive.h>
#include <archive_entry.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stub for what engine.h declares but these tests do not link. */
int64_t sbio__dk_now(const dk_instance *inst) {
  (void)inst;
  return 0;
}

typedef struct sink {
  char out[2][4096];
  size_t len[2];
} sink;

static void collect(void *user, int stream, const char *data, size_t len) {
  sink *s = user;
  memcpy(s->out[stream - 1] + s->len[stream - 1], data, len);
  s->len[stream - 1] += len;
}

static size_t frame(unsigned char *p, int type, const char *payload) {
  size_t n = strlen(payload);
  p[0] = (unsigned char)type;
  p[1] = p[2] = p[3] = 0;
  p[4] = (unsigned char)(n >> 24);
  p[5] = (unsigned char)(n >> 16);
  p[6] = (unsigned char)(n >> 8);
  p[7] = (unsigned char)n;
  memcpy(p + 8, payload, n);
  return n + 8;
}

/* Whatever way the bytes are cut, the same output comes out. */
static void test_demux_any_split(void **state) {
  (void)state;
  unsigned char buf[512];
  size_t n = 0;
  n += frame(buf + n, 1, "hello\n");
  n += frame(buf + n, 2, "oops\n");
  n += frame(buf + n, 1, "");
  n += frame(buf + n, 0, "echoed stdin\n");
  n += frame(buf + n, 2, "more err");
  for (size_t chunk = 1; chunk <= n; chunk++) {
    dk_demux d;
    sbio__dk_demux_init(&d);
    sink s = {0};
    for (size_t off = 0; off < n; off += chunk)
      assert_int_equal(sbio__dk_demux_feed(&d, buf + off, off + chunk > n ? n - off : chunk, collect, &s), 0);
    assert_true(sbio__dk_demux_at_boundary(&d));
    assert_int_equal(s.len[0], strlen("hello\nechoed stdin\n"));
    assert_memory_equal(s.out[0], "hello\nechoed stdin\n", s.len[0]);
    assert_memory_equal(s.out[1], "oops\nmore err", s.len[1]);
  }
}

static void test_demux_rejects_bad_type_and_notices_cut(void **state) {
  (void)state;
  dk_demux d;
  sbio__dk_demux_init(&d);
  sink s = {0};
  unsigned char bad[8] = {9, 0, 0, 0, 0, 0, 0, 1};
  assert_int_equal(sbio__dk_demux_feed(&d, bad, 8, collect, &s), -1);
  sbio__dk_demux_init(&d);
  unsigned char part[10];
  frame(part, 1, "ab");
  assert_int_equal(sbio__dk_demux_feed(&d, part, 9, collect, &s), 0);
  assert_false(sbio__dk_demux_at_boundary(&d));
}

static void test_settings(void **state) {
  (void)state;
  dk_settings s;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__dk_settings_parse("{}", &s, &err), SBIO_OK);
  assert_string_equal(s.image, DK_DEFAULT_IMAGE);
  assert_int_equal(s.pids_limit, 512);
  assert_int_equal(s.memory_mb, 512);
  assert_null(s.runtime);
  sbio__dk_settings_free(&s);
  assert_int_equal(sbio__dk_settings_parse("{\"runtime\":\"runsc\",\"pull\":\"never\",\"cpu\":0.5,\"memory_mb\":64,"
                                           "\"pids_limit\":300,\"socket\":\"/run/x.sock\"}",
                                           &s, &err),
                   SBIO_OK);
  assert_string_equal(s.runtime, "runsc");
  assert_int_equal(s.pull, DK_PULL_NEVER);
  assert_string_equal(s.host, "unix:///run/x.sock");
  sbio__dk_settings_free(&s);
  static const char *const bad[] = {"{\"imag\":\"x\"}",
                                    "{\"pull\":\"sometimes\"}",
                                    "{\"cpu\":0}",
                                    "{\"memory_mb\":2}",
                                    "{\"pids_limit\":1.5}",
                                    "{\"runtime\":\"a b\"}",
                                    "{\"host\":\"\"}",
                                    "[1]",
                                    "{\"image\":1}",
                                    "{\"host\":\"unix:///a\",\"socket\":\"/b\"}",
                                    "{\"image\":\"a\",\"image\":\"b\"}"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    memset(&err, 0, sizeof err);
    assert_int_equal(sbio__dk_settings_parse(bad[i], &s, &err), SBIO_E_CONFIG);
    assert_true(strlen(err.message) > 0);
  }
  sbio__dk_settings_parse("{\"imag\":\"x\"}", &s, &err);
  assert_non_null(strstr(err.message, "imag"));
}

static void test_endpoint(void **state) {
  (void)state;
  dk_endpoint ep;
  sbio_bk_error err = {.size = sizeof err};
  unsetenv("DOCKER_HOST");
  assert_int_equal(sbio__dk_endpoint_resolve(NULL, &ep, &err), SBIO_OK);
  assert_true(ep.is_unix);
  assert_string_equal(ep.socket_path, "/var/run/docker.sock");
  setenv("DOCKER_HOST", "tcp://127.0.0.1:2376", 1);
  setenv("DOCKER_TLS_VERIFY", "1", 1);
  setenv("DOCKER_CERT_PATH", "/certs", 1);
  assert_int_equal(sbio__dk_endpoint_resolve(NULL, &ep, &err), SBIO_OK);
  assert_false(ep.is_unix);
  assert_string_equal(ep.base_url, "https://127.0.0.1:2376");
  assert_string_equal(ep.ca, "/certs/ca.pem");
  assert_true(ep.tls_verify);
  unsetenv("DOCKER_TLS_VERIFY");
  setenv("DOCKER_HOST", "tcp://localhost", 1);
  assert_int_equal(sbio__dk_endpoint_resolve(NULL, &ep, &err), SBIO_OK);
  assert_string_equal(ep.base_url, "http://localhost:2375");
  /* The setting wins over DOCKER_HOST. */
  assert_int_equal(sbio__dk_endpoint_resolve("unix:///tmp/d.sock", &ep, &err), SBIO_OK);
  assert_string_equal(ep.socket_path, "/tmp/d.sock");
  unsetenv("DOCKER_HOST");
  char longpath[300];
  memset(longpath, 'a', sizeof longpath);
  memcpy(longpath, "unix:///", 8);
  longpath[sizeof longpath - 1] = '\0';
  assert_int_equal(sbio__dk_endpoint_resolve(longpath, &ep, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__dk_endpoint_resolve("ssh://me@host", &ep, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__dk_endpoint_resolve("tcp://h:1/path", &ep, &err), SBIO_E_CONFIG);
  assert_int_equal(sbio__dk_endpoint_resolve("unix://relative", &ep, &err), SBIO_E_CONFIG);
}

/* A refused docker address never repeats a password it carries, from the
 * setting or from DOCKER_HOST; nor does any other refusal repeat the
 * address. */
static void test_endpoint_refusals_never_echo_the_address(void **state) {
  (void)state;
  static const char *const bad[] = {"tcp://u:SECRET@127.0.0.1:2375", "tcp://SECRET@h:1",       "tcp://h:1/SECRET",
                                    "ssh://u:SECRET@host",           "http://u:SECRET@host:1", "unix://SECRET"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    for (int from_env = 0; from_env < 2; from_env++) {
      dk_endpoint ep;
      sbio_bk_error err = {.size = sizeof err};
      if (from_env) setenv("DOCKER_HOST", bad[i], 1);
      assert_int_equal(sbio__dk_endpoint_resolve(from_env ? NULL : bad[i], &ep, &err), SBIO_E_CONFIG);
      if (strstr(err.message, "SECRET") || strstr(err.hint, "SECRET"))
        fail_msg("%s: the refusal echoes it: %s", bad[i], err.message);
      assert_non_null(strstr(err.message, from_env ? "DOCKER_HOST" : "the host setting"));
      unsetenv("DOCKER_HOST");
    }
  }
  dk_endpoint ep;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__dk_endpoint_resolve("tcp://u:SECRET@127.0.0.1:2375", &ep, &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "password"));
}

/* An image reference is refused by what is wrong with it, never echoed;
 * userinfo in it is refused, a digest is not. */
static void test_image_check_never_echoes_the_reference(void **state) {
  (void)state;
  static const char *const bad[] = {"user:SECRET@img!", "user:SECRET@img", "u:SECRET@registry:5000/img:1",
                                    "img@SECRET",       "SECRET img",      "-SECRET"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    sbio_bk_error err = {.size = sizeof err};
    assert_int_equal(sbio__dk_image_check(bad[i], &err), SBIO_E_CONFIG);
    if (strstr(err.message, "SECRET") || strstr(err.hint, "SECRET"))
      fail_msg("%s: the refusal echoes it: %s", bad[i], err.message);
  }
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio__dk_image_check("user:SECRET@img!", &err), SBIO_E_CONFIG);
  assert_non_null(strstr(err.message, "offset 15"));
  assert_int_equal(sbio__dk_image_check("python:3.12-slim", &err), SBIO_OK);
  assert_int_equal(
      sbio__dk_image_check("registry:5000/img@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                           &err),
      SBIO_OK);
}

static void test_paths(void **state) {
  (void)state;
  char out[DK_PATH_MAX];
  static const char *const cases[][2] = {{"a.txt", "/work/a.txt"}, {"/etc/x", "/etc/x"}, {"a/./b/../c", "/work/a/c"},
                                         {"../../..", "/"},        {"/", "/"},           {"//x//y/", "/x/y"},
                                         {".", "/work"},           {"/a/b/..", "/a"}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    assert_int_equal(sbio__dk_path_resolve(cases[i][0], out, sizeof out, NULL), SBIO_OK);
    assert_string_equal(out, cases[i][1]);
  }
  assert_int_equal(sbio__dk_path_resolve("", out, sizeof out, NULL), SBIO_E_INVALID_ARGUMENT);
  char dir[64], base[64];
  sbio__dk_path_split("/work/a.txt", dir, sizeof dir, base, sizeof base);
  assert_string_equal(dir, "/work");
  assert_string_equal(base, "a.txt");
  sbio__dk_path_split("/a", dir, sizeof dir, base, sizeof base);
  assert_string_equal(dir, "/");
  assert_string_equal(base, "a");
  char url[512];
  assert_int_equal(sbio__dk_archive_url("abc", "/work/a b&c", NULL, url, sizeof url), 0);
  assert_string_equal(url, "/containers/abc/archive?path=%2Fwork%2Fa%20b%26c");
}

static void test_version_cmp(void **state) {
  (void)state;
  assert_true(sbio__dk_version_cmp("1.9", "1.10") < 0);
  assert_true(sbio__dk_version_cmp("1.41", "1.41") == 0);
  assert_true(sbio__dk_version_cmp("1.44", "1.41") > 0);
  assert_true(sbio__dk_version_cmp("1.41", "1.41.0") == 0);
  assert_true(sbio__dk_version_cmp("2.0", "1.99") > 0);
}

/* A streamed upload (header + data + trailer) is a tar libarchive reads back. */
static void test_tar_header_round_trip(void **state) {
  (void)state;
  char name[300];
  memset(name, 'n', sizeof name - 1);
  name[sizeof name - 1] = '\0'; /* longer than ustar's 100 bytes */
  const char data[] = "binary\0data\xff";
  unsigned char *hdr = NULL;
  size_t hlen = 0;
  assert_int_equal(sbio__dk_tar_file_header(name, sizeof data, &hdr, &hlen), 0);
  size_t tlen = sbio__dk_tar_trailer_len(sizeof data);
  assert_int_equal((sizeof data + tlen) % 512, 0);
  size_t total = hlen + sizeof data + tlen;
  unsigned char *tar = calloc(1, total);
  memcpy(tar, hdr, hlen);
  memcpy(tar + hlen, data, sizeof data);
  struct archive *a = archive_read_new();
  archive_read_support_format_tar(a);
  assert_int_equal(archive_read_open_memory(a, tar, total), ARCHIVE_OK);
  struct archive_entry *e;
  assert_int_equal(archive_read_next_header(a, &e), ARCHIVE_OK);
  assert_string_equal(archive_entry_pathname(e), name);
  assert_int_equal(archive_entry_size(e), sizeof data);
  char back[64];
  assert_int_equal(archive_read_data(a, back, sizeof back), sizeof data);
  assert_memory_equal(back, data, sizeof data);
  assert_int_equal(archive_read_next_header(a, &e), ARCHIVE_EOF);
  archive_read_free(a);
  free(tar);
  free(hdr);
  const char *dirs[] = {"a/", "a/b/"};
  unsigned char *t = NULL;
  size_t tl = 0;
  assert_int_equal(sbio__dk_tar_dirs(dirs, 2, &t, &tl), 0);
  a = archive_read_new();
  archive_read_support_format_tar(a);
  assert_int_equal(archive_read_open_memory(a, t, tl), ARCHIVE_OK);
  assert_int_equal(archive_read_next_header(a, &e), ARCHIVE_OK);
  assert_int_equal(archive_entry_filetype(e), AE_IFDIR);
  assert_int_equal(archive_read_next_header(a, &e), ARCHIVE_OK);
  assert_string_equal(archive_entry_pathname(e), "a/b/");
  archive_read_free(a);
  free(t);
}

/* What the exec passes on around the engine's text for a program that never
 * started (exec_startfail.c), delivered in pieces as the demuxer would. */
typedef struct sf_out {
  char data[3][4096];
  size_t len[3];
} sf_out;

static void sf_collect(void *user, int stream, const char *data, size_t len) {
  sf_out *o = user;
  memcpy(o->data[stream] + o->len[stream], data, len);
  o->len[stream] += len;
  o->data[stream][o->len[stream]] = '\0';
}

static int sf_feed(dk_startfail *h, const char *text, size_t split, int stream, int exit_code, long pid, sf_out *o) {
  memset(o, 0, sizeof *o);
  size_t n = strlen(text);
  if (split > n) split = n;
  sbio__dk_startfail_feed(h, stream, text, split, sf_collect, o);
  sbio__dk_startfail_feed(h, stream, text + split, n - split, sf_collect, o);
  int code = sbio__dk_startfail_finish(h, exit_code, pid, "/no/such", sf_collect, o);
  sbio__dk_startfail_flush(h, sf_collect, o); /* idempotent once finished */
  return code;
}

static int sf_run(const char *text, size_t split, int stream, int exit_code, long pid, sf_out *o) {
  dk_startfail h;
  sbio__dk_startfail_init(&h);
  return sf_feed(&h, text, split, stream, exit_code, pid, o);
}

static int sf_backstop(const char *text, size_t split, int stream, int exit_code, sf_out *o) {
  dk_startfail h;
  sbio__dk_startfail_init_backstop(&h);
  return sf_feed(&h, text, split, stream, exit_code, -1, o);
}

/* The one-shot run's `timeout` (busybox, coreutils) could not run the
 * program: the same message and codes as an exec's start failure. Its
 * line is rewritten only with exit 127/126, alone on stderr, naming the
 * program in quotes. */
static void test_backstop_failure_becomes_the_same_answer(void **state) {
  (void)state;
  static const char busybox[] = "timeout: can't execute '/no/such': No such file or directory\n";
  static const char coreutils[] = "timeout: failed to run command \xe2\x80\x98/no/such\xe2\x80\x99: No such file or "
                                  "directory\n";
  static const char not_exec[] = "timeout: can't execute '/no/such': Permission denied\n";
  sf_out o;
  for (size_t split = 0; split < sizeof busybox; split += 5) {
    assert_int_equal(sf_backstop(busybox, split, 2, 127, &o), 127);
    assert_int_equal(o.len[1], 0);
    assert_string_equal(o.data[2], "sbio: /no/such: command not found (timeout: can't execute '/no/such': No such "
                                   "file or directory)\n");
  }
  assert_int_equal(sf_backstop(coreutils, 9, 2, 127, &o), 127);
  assert_non_null(strstr(o.data[2], "sbio: /no/such: command not found (timeout: failed to run command"));
  assert_int_equal(sf_backstop(not_exec, 12, 2, 126, &o), 126);
  assert_non_null(strstr(o.data[2], "sbio: /no/such: cannot run it (timeout"));
  /* The command's own words pass through: another exit code, another
   * program named, more than one line, or on stdout. */
  assert_int_equal(sf_backstop(busybox, 4, 2, 1, &o), 1);
  assert_string_equal(o.data[2], busybox);
  assert_int_equal(sf_backstop("timeout: can't execute 'other': x\n", 4, 2, 127, &o), 127);
  assert_string_equal(o.data[2], "timeout: can't execute 'other': x\n");
  assert_int_equal(sf_backstop("timeout: '/no/such'\nmore\n", 4, 2, 127, &o), 127);
  assert_string_equal(o.data[2], "timeout: '/no/such'\nmore\n");
  assert_int_equal(sf_backstop(busybox, 4, 1, 127, &o), 127);
  assert_string_equal(o.data[1], busybox);
  /* No timeout in the image: docker's init says so, exit 127, and the
   * command never ran; its line is not passed on (the error says it). */
  static const char tini[] = "[FATAL tini (7)] exec timeout failed: No such file or directory\n";
  for (size_t split = 0; split < sizeof tini; split += 6) {
    assert_int_equal(sf_backstop(tini, split, 2, 127, &o), DK_STARTFAIL_NO_BACKSTOP);
    assert_int_equal(o.len[1] + o.len[2], 0);
  }
  assert_int_equal(sf_backstop(tini, 3, 2, 1, &o), 1);
  assert_string_equal(o.data[2], tini);
  assert_int_equal(sf_backstop("[FATAL tini (7)] exec other failed: x\n", 3, 2, 127, &o), 127);
  /* Output on stdout first: a process ran, the stderr line is its own. */
  dk_startfail h;
  sbio__dk_startfail_init_backstop(&h);
  memset(&o, 0, sizeof o);
  sbio__dk_startfail_feed(&h, 1, "hi\n", 3, sf_collect, &o);
  sbio__dk_startfail_feed(&h, 2, busybox, strlen(busybox), sf_collect, &o);
  assert_int_equal(sbio__dk_startfail_finish(&h, 127, -1, "/no/such", sf_collect, &o), 127);
  assert_string_equal(o.data[1], "hi\n");
  assert_string_equal(o.data[2], busybox);
}

static void test_start_failure_becomes_a_shell_answer(void **state) {
  (void)state;
  static const char missing[] = "OCI runtime exec failed: exec failed: unable to start container process: exec: "
                                "\"/no/such\": stat /no/such: no such file or directory: unknown\r\n";
  static const char not_exec[] = "OCI runtime exec failed: exec failed: unable to start container process: exec: "
                                 "\"/etc/passwd\": permission denied: unknown\r\n";
  static const char no_cwd[] = "OCI runtime exec failed: exec failed: unable to start container process: chdir to "
                               "cwd (\"/nope\") set in config.json failed: no such file or directory: unknown\r\n";
  static const char gvisor[] =
      "OCI runtime exec failed: executing processes for container: executing command "
      "\"/no/such\" in sandbox: failed to load /no/such: no such file or directory: unknown\r\n";
  sf_out o;
  for (size_t split = 0; split < sizeof missing; split += 7) {
    assert_int_equal(sf_run(missing, split, 1, 126, 0, &o), 127);
    assert_int_equal(o.len[1], 0);
    assert_non_null(strstr(o.data[2], "sbio: /no/such: command not found (OCI runtime exec failed"));
    assert_non_null(strstr(o.data[2], "unknown)\n")); /* one line, the engine's CR LF dropped */
  }
  assert_int_equal(sf_run(gvisor, 10, 1, 126, 0, &o), 127);
  assert_int_equal(sf_run(not_exec, 3, 1, 126, 0, &o), 126);
  assert_non_null(strstr(o.data[2], "cannot run it"));
  assert_int_equal(sf_run(no_cwd, 50, 1, 126, 0, &o), 126);
  /* A process ran (Pid), or another exit code, or stderr: passed through. */
  assert_int_equal(sf_run(missing, 10, 1, 126, 4242, &o), 126);
  assert_string_equal(o.data[1], missing);
  assert_int_equal(o.len[2], 0);
  assert_int_equal(sf_run(missing, 10, 1, 1, 0, &o), 1);
  assert_string_equal(o.data[1], missing);
  assert_int_equal(sf_run(missing, 10, 2, 126, 0, &o), 126);
  assert_string_equal(o.data[2], missing);
  /* Ordinary output is not held: it is passed on as it comes. */
  dk_startfail h;
  sbio__dk_startfail_init(&h);
  memset(&o, 0, sizeof o);
  sbio__dk_startfail_feed(&h, 1, "hello", 5, sf_collect, &o);
  assert_string_equal(o.data[1], "hello");
  /* A held prefix is released, in order, by the next stderr bytes. */
  sbio__dk_startfail_init(&h);
  memset(&o, 0, sizeof o);
  sbio__dk_startfail_feed(&h, 1, "OCI", 3, sf_collect, &o);
  assert_int_equal(o.len[1], 0);
  sbio__dk_startfail_feed(&h, 2, "e", 1, sf_collect, &o);
  assert_string_equal(o.data[1], "OCI");
  assert_string_equal(o.data[2], "e");
}

static sbio_sdk_http_response answer(long status, const char *body) {
  sbio_sdk_http_response r;
  memset(&r, 0, sizeof r);
  r.outcome = SBIO_SDK_HTTP_ANSWERED;
  r.status = status;
  r.body = (char *)body;
  r.len = strlen(body);
  return r;
}

/* The answers Podman 4.3 gave to an exec create and an inspect while a
 * container stopped and AutoRemove removed it (OBSERVED, racing execs
 * against a container's end), and Docker's: each means gone. */
static void test_dying_container_answers_are_gone(void **state) {
  (void)state;
  const char *removing = "{\"cause\":\"no such container\",\"message\":\"container c0ffee does not exist in "
                         "database: no such container\",\"response\":500}";
  const char *removed = "{\"cause\":\"no such container\",\"message\":\"no container with name or ID "
                        "\\\"c0ffee\\\" found: no such container\",\"response\":404}";
  const char *improper = "{\"cause\":\"container state improper\",\"message\":\"can only create exec sessions "
                         "on running containers: container state improper\",\"response\":500}";
  const char *not_running = "{\"message\":\"cannot exec in a container that is not running; container c0ffee is "
                            "stopped\"}";
  const char *docker = "{\"message\":\"Container c0ffee is not running\"}";
  sbio_sdk_http_response r = answer(500, removing);
  assert_true(sbio__dk_container_gone(&r));
  assert_true(sbio__dk_container_missing(&r));
  r = answer(404, removed);
  assert_true(sbio__dk_container_gone(&r));
  assert_true(sbio__dk_container_missing(&r));
  r = answer(500, improper);
  assert_true(sbio__dk_container_gone(&r));
  assert_false(sbio__dk_container_missing(&r)); /* it exists, stopped */
  r = answer(409, not_running);
  assert_true(sbio__dk_container_gone(&r));
  r = answer(409, docker);
  assert_true(sbio__dk_container_gone(&r));
  /* Not gone: another 500, a caller's error, an answer that never came. */
  r = answer(500, "{\"message\":\"OCI runtime error: something else\"}");
  assert_false(sbio__dk_container_gone(&r));
  assert_false(sbio__dk_container_missing(&r));
  r = answer(400, "{\"message\":\"no such container field: Cmd\"}");
  assert_false(sbio__dk_container_gone(&r));
  assert_false(sbio__dk_container_missing(&r));
  r = answer(500, removing);
  r.outcome = SBIO_SDK_HTTP_BROKEN;
  assert_false(sbio__dk_container_gone(&r));
  assert_false(sbio__dk_container_missing(&r));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_demux_any_split),
      cmocka_unit_test(test_demux_rejects_bad_type_and_notices_cut),
      cmocka_unit_test(test_settings),
      cmocka_unit_test(test_endpoint),
      cmocka_unit_test(test_endpoint_refusals_never_echo_the_address),
      cmocka_unit_test(test_image_check_never_echoes_the_reference),
      cmocka_unit_test(test_paths),
      cmocka_unit_test(test_version_cmp),
      cmocka_unit_test(test_tar_header_round_trip),
      cmocka_unit_test(test_start_failure_becomes_a_shell_answer),
      cmocka_unit_test(test_backstop_failure_becomes_the_same_answer),
      cmocka_unit_test(test_dying_container_answers_are_gone),
  };
  return cmocka_run_group_tests_name("docker_units", tests, NULL, NULL);
}
