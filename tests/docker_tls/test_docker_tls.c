/* SPDX-License-Identifier: MIT */
/* The docker backend over tcp:// with mutual TLS, configured the way the
 * docker CLI is (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH) and
 * through the `host` setting. The engine (tls_engine.sh) also listens on a
 * unix socket, which the test uses to check what really happened. Proves:
 * create, exec streams and exit codes, stdin with its half-close (over TLS
 * that is a bare TCP FIN, no close_notify: the engine must still see EOF),
 * large output, files, kill; and that a wrong CA, a missing client
 * certificate and plain HTTP to the TLS port each fail with SBX_E1201 and
 * a message that says what is wrong. */
#include "docker_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static dx_env env; /* the unix socket side, for checks */
static char tcp_host[256];
static char certs[512];

/* STATE_DIR/state from tls_engine.sh: 0, 77 (skip) or 1. */
static int load_state(void) {
  memset(&env, 0, sizeof env);
  const char *dir = getenv("SBIO_TEST_DOCKER_TLS_STATE");
  if (!dir || !dir[0]) {
    fprintf(stderr, "SKIP: SBIO_TEST_DOCKER_TLS_STATE is not set (run through ctest)\n");
    return 77;
  }
  char path[600], line[1024];
  snprintf(path, sizeof path, "%s/state", dir);
  FILE *fp = fopen(path, "r");
  if (!fp) {
    fprintf(stderr, "%s: no engine state at %s\n", dx_in_ci() ? "FAIL" : "SKIP", path);
    return dx_in_ci() ? 1 : 77;
  }
  int rc = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\n")] = '\0';
    if (!strncmp(line, "skip=", 5)) {
      fprintf(stderr, "SKIP: docker TLS tests: %s\n", line + 5);
      rc = 77;
    } else if (!strncmp(line, "error=", 6)) {
      fprintf(stderr, "FAIL: docker TLS tests: no engine: %s\n", line + 6);
      rc = 1;
    } else if (!strncmp(line, "unix=", 5)) {
      rc |= dx_copy_field(env.host, sizeof env.host, line + 5);
      rc |= dx_copy_field(env.socket, sizeof env.socket, strlen(line) > 12 ? line + 12 : "");
    } else if (!strncmp(line, "tcp=", 4)) {
      rc |= dx_copy_field(tcp_host, sizeof tcp_host, line + 4);
    } else if (!strncmp(line, "image=", 6)) {
      rc |= dx_copy_field(env.image, sizeof env.image, line + 6);
    } else if (!strncmp(line, "certs=", 6)) {
      rc |= dx_copy_field(certs, sizeof certs, line + 6);
    }
  }
  fclose(fp);
  if (rc == 0 && (!env.socket[0] || !tcp_host[0] || !certs[0])) {
    fprintf(stderr, "FAIL: incomplete engine state in %s\n", path);
    rc = 1;
  }
  return rc;
}

/* The environment the docker CLI reads; NULL unsets. */
static void set_docker_env(const char *host, const char *verify, const char *cert_dir) {
  char dir[700];
  if (host)
    setenv("DOCKER_HOST", host, 1);
  else
    unsetenv("DOCKER_HOST");
  if (verify)
    setenv("DOCKER_TLS_VERIFY", verify, 1);
  else
    unsetenv("DOCKER_TLS_VERIFY");
  unsetenv("DOCKER_TLS");
  if (cert_dir) {
    snprintf(dir, sizeof dir, "%s/%s", certs, cert_dir);
    setenv("DOCKER_CERT_PATH", dir, 1);
  } else {
    unsetenv("DOCKER_CERT_PATH");
  }
}

typedef struct th {
  char dir[64];
  char config[128];
  sbio_host *host;
} th;

/* A host whose docker settings name the image, and the engine only when
 * host_setting is given (else DOCKER_HOST decides). */
static void open_host(th *t, const char *host_setting) {
  memset(t, 0, sizeof *t);
  snprintf(t->dir, sizeof t->dir, "/tmp/sbio-dtls-XXXXXX");
  assert_non_null(mkdtemp(t->dir));
  snprintf(t->config, sizeof t->config, "%s/config.yaml", t->dir);
  FILE *fp = fopen(t->config, "w");
  assert_non_null(fp);
  fprintf(fp, "backends:\n  docker:\n    settings:\n      image: %s\n      pull: never\n", env.image);
  if (host_setting) fprintf(fp, "      host: %s\n", host_setting);
  fclose(fp);
  sbio_host_options *o = sbio_host_options_new();
  sbio_host_options_set_config_file(o, t->config);
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_host_open(o, &t->host, err);
  if (rc != SBIO_OK) fprintf(stderr, "host open: %s\n", sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  sbio_error_free(err);
  sbio_host_options_free(o);
}

static void close_host(th *t) {
  sbio_host_close(t->host);
  unlink(t->config);
  rmdir(t->dir);
}

static sbio_exec_result *run(sbio_sandbox *sb, const char *const *argv, const void *in, size_t in_len) {
  sbio_exec_options *o = sbio_exec_options_new();
  sbio_exec_options_set_timeout(o, 120);
  if (in) sbio_exec_options_set_stdin(o, in, in_len);
  sbio_exec_result *r = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_sandbox_exec(sb, argv, o, &r, err);
  if (rc != SBIO_OK) fprintf(stderr, "exec %s: [%s] %s\n", argv[0], sbio_code_name(rc), sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  sbio_error_free(err);
  sbio_exec_options_free(o);
  return r;
}

/* Everything a sandbox does, over the TLS connection. */
static void exercise(sbio_host *host) {
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(host, "docker://", NULL, &sb, err);
  if (rc != SBIO_OK) fprintf(stderr, "create: [%s] %s\n", sbio_code_name(rc), sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  assert_int_equal(sbio_sandbox_tier(sb), SBIO_TIER_CONTAINER);
  /* The container is real: the unix side of the same engine sees it. */
  cJSON *c = dx_inspect(&env, sbio_sandbox_id(sb));
  assert_non_null(c);
  cJSON_Delete(c);

  /* Both streams and the exit code. */
  const char *sh[] = {"sh", "-c", "echo out; echo err >&2; exit 7", NULL};
  sbio_exec_result *r = run(sb, sh, NULL, 0);
  size_t len;
  assert_string_equal(sbio_exec_result_stdout(r, &len), "out\n");
  assert_string_equal(sbio_exec_result_stderr(r, &len), "err\n");
  assert_int_equal(sbio_exec_result_exit_code(r), 7);
  sbio_exec_result_free(r);

  /* stdin, then its half-close: cat can only end if the engine saw EOF
   * after the TCP shutdown that stands in for close_notify. */
  size_t n = 3 * 1024 * 1024 + 11;
  unsigned char *in = malloc(n);
  assert_non_null(in);
  for (size_t i = 0; i < n; i++) in[i] = (unsigned char)(i * 13 + (i >> 11));
  const char *cat[] = {"cat", NULL};
  r = run(sb, cat, in, n);
  const char *got = sbio_exec_result_stdout(r, &len);
  assert_int_equal(len, n);
  assert_memory_equal(got, in, n);
  sbio_exec_result_free(r);
  free(in);
  const char *wc[] = {"wc", "-c", NULL};
  r = run(sb, wc, "", 0); /* empty stdin: EOF at once */
  assert_int_equal(atoi(sbio_exec_result_stdout(r, &len)), 0);
  sbio_exec_result_free(r);
  /* Output larger than many TLS records (the reader drains the TLS
   * buffer before it polls the socket again). */
  const char *big[] = {"head", "-c", "20000000", "/dev/zero", NULL};
  r = run(sb, big, NULL, 0);
  sbio_exec_result_stdout(r, &len);
  assert_int_equal(len, 16u * 1024 * 1024); /* the default buffer cap */
  assert_true(sbio_exec_result_truncated(r));
  sbio_exec_result_free(r);

  /* Files both ways (archive endpoints over TLS). */
  unsigned char data[70000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i % 251);
  assert_int_equal(sbio_file_mkdir(sb, "/tmp/tls", 1, err), SBIO_OK);
  rc = sbio_file_write(sb, "/tmp/tls/data.bin", data, sizeof data, err);
  if (rc) fprintf(stderr, "write: %s\n", sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  unsigned char *back = NULL;
  size_t blen = 0;
  rc = sbio_file_read(sb, "/tmp/tls/data.bin", 0, &back, &blen, err);
  if (rc) fprintf(stderr, "read: %s\n", sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  assert_int_equal(blen, sizeof data);
  assert_memory_equal(back, data, sizeof data);
  sbio_free(back);
  sbio_file_list *l = NULL;
  assert_int_equal(sbio_file_list_dir(sb, "/tmp/tls", &l, err), SBIO_OK);
  assert_int_equal(sbio_file_list_count(l), 1);
  assert_string_equal(sbio_file_list_name(l, 0), "data.bin");
  sbio_file_list_free(l);

  /* Managed listing over TLS sees it. */
  sbio_managed_list *ml = NULL;
  assert_int_equal(sbio_managed_list_get(host, "docker", NULL, &ml, err), SBIO_OK);
  int found = 0;
  for (size_t i = 0; i < sbio_managed_list_count(ml); i++)
    if (strstr(sbio_managed_list_id(ml, i), sbio_sandbox_id(sb)) ||
        strstr(sbio_sandbox_id(sb), sbio_managed_list_id(ml, i)))
      found = 1;
  assert_true(found);
  sbio_managed_list_free(ml);

  /* Kill removes the container. */
  char id[128];
  snprintf(id, sizeof id, "%s", sbio_sandbox_id(sb));
  assert_int_equal(sbio_sandbox_kill(sb, err), SBIO_OK);
  assert_false(sbio_sandbox_alive(sb));
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK);
  c = dx_inspect(&env, id);
  assert_null(c);
  sbio_error_free(err);
}

static void test_env_like_docker_cli(void **state) {
  (void)state;
  set_docker_env(tcp_host, "1", "good");
  th t;
  open_host(&t, NULL);
  exercise(t.host);
  close_host(&t);
}

/* The `host` setting names the address; TLS still comes from the
 * environment, as for the docker CLI's -H. */
static void test_host_setting(void **state) {
  (void)state;
  set_docker_env("unix:///nonexistent/docker.sock", "1", "good");
  th t;
  open_host(&t, tcp_host);
  exercise(t.host);
  close_host(&t);
}

/* Create must fail with SBX_E1201, the message and hint containing the needles. */
static void expect_create_error(const char *msg_needle, const char *hint_needle) {
  th t;
  open_host(&t, NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(t.host, "docker://", NULL, &sb, err);
  fprintf(stderr, "got: [%s] %s (hint: %s)\n", sbio_code_name(rc), sbio_error_message(err), sbio_error_hint(err));
  assert_int_equal(rc, SBIO_E_CREATE);
  assert_null(sb);
  assert_string_equal(sbio_code_name(rc), "SBX_E1201");
  assert_non_null(strstr(sbio_error_message(err), msg_needle));
  /* The address is named in the message or the hint. */
  assert_true(strstr(sbio_error_message(err), tcp_host) || strstr(sbio_error_hint(err), tcp_host));
  assert_non_null(strstr(sbio_error_hint(err), hint_needle));
  sbio_error_free(err);
  close_host(&t);
}

static void test_wrong_ca(void **state) {
  (void)state;
  set_docker_env(tcp_host, "1", "wrongca");
  expect_create_error("TLS verification", "ca.pem");
}

static void test_no_client_cert(void **state) {
  (void)state;
  set_docker_env(tcp_host, "1", "nocert");
  expect_create_error("TLS verification", "no cert.pem/key.pem");
}

static void test_missing_ca_file(void **state) {
  (void)state;
  set_docker_env(tcp_host, "1", "absent");
  expect_create_error("TLS verification", "absent/ca.pem");
}

static void test_plain_http_to_tls_port(void **state) {
  (void)state;
  set_docker_env(tcp_host, NULL, NULL);
  expect_create_error("HTTPS", "DOCKER_TLS_VERIFY");
}

/* DOCKER_TLS without DOCKER_TLS_VERIFY: TLS with the client certificate
 * but no check of the engine's (as the docker CLI does), so a CA that did
 * not sign the engine's certificate is not an error. */
static void test_tls_without_verify(void **state) {
  (void)state;
  set_docker_env(tcp_host, NULL, "wrongca");
  setenv("DOCKER_TLS", "1", 1);
  th t;
  open_host(&t, NULL);
  sbio_sandbox *sb = NULL;
  sbio_error *err = sbio_error_new();
  sbio_code rc = sbio_sandbox_create(t.host, "docker://", NULL, &sb, err);
  if (rc != SBIO_OK) fprintf(stderr, "create: [%s] %s\n", sbio_code_name(rc), sbio_error_message(err));
  assert_int_equal(rc, SBIO_OK);
  const char *echo[] = {"echo", "unverified", NULL};
  sbio_exec_result *r = run(sb, echo, NULL, 0);
  size_t len;
  assert_string_equal(sbio_exec_result_stdout(r, &len), "unverified\n");
  sbio_exec_result_free(r);
  assert_int_equal(sbio_sandbox_close(sb, err), SBIO_OK);
  sbio_error_free(err);
  close_host(&t);
  unsetenv("DOCKER_TLS");
}

static void test_nothing_left(void **state) {
  (void)state;
  assert_int_equal(dx_count_containers(&env, NULL), 0);
}

int main(void) {
  int rc = load_state();
  if (rc) return rc;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_env_like_docker_cli),
      cmocka_unit_test(test_host_setting),
      cmocka_unit_test(test_wrong_ca),
      cmocka_unit_test(test_no_client_cert),
      cmocka_unit_test(test_missing_ca_file),
      cmocka_unit_test(test_plain_http_to_tls_port),
      cmocka_unit_test(test_tls_without_verify),
      cmocka_unit_test(test_nothing_left),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
