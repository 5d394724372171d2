/* SPDX-License-Identifier: MIT */
/* SDK HTTP client over mutual TLS, against `openssl s_server` requiring a
 * client certificate (tls_server.sh): the client's certificate and key are
 * presented, a missing one is reported as refused by the server, a CA that
 * did not sign the server's certificate fails the handshake on our side,
 * and tls_no_verify (a user's documented insecure choice) skips only the
 * server's check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_host.h"

#include <sandboxio/sdk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512], base[64], ca[600], other_ca[600], cert[600], key[600];
static test_host host;

static int load_state(void) {
  const char *d = getenv("SBIO_TEST_TLS_STATE");
  if (!d) {
    fprintf(stderr, "SBIO_TEST_TLS_STATE is not set (run through ctest)\n");
    return 1;
  }
  snprintf(dir, sizeof dir, "%s", d);
  char path[600], line[256];
  snprintf(path, sizeof path, "%s/state", dir);
  FILE *f = fopen(path, "r");
  int port = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "skip=", 5)) {
      fprintf(stderr, "skipped: %s", line + 5);
      fclose(f);
      return 77;
    }
    sscanf(line, "port=%d", &port);
  }
  if (f) fclose(f);
  if (!port) {
    fprintf(stderr, "no TLS server: %s has no port\n", path);
    return 1;
  }
  snprintf(base, sizeof base, "https://127.0.0.1:%d", port);
  snprintf(ca, sizeof ca, "%s/ca.pem", dir);
  snprintf(other_ca, sizeof other_ca, "%s/other.pem", dir);
  snprintf(cert, sizeof cert, "%s/client.pem", dir);
  snprintf(key, sizeof key, "%s/client.key", dir);
  test_host_init(&host);
  return 0;
}

/* One GET / with these TLS options (no retries: each case is one try). */
static int get(const char *ca_file, const char *client_cert, const char *client_key, int no_verify,
               sbio_sdk_http_response *resp) {
  sbio_sdk_http_options opt = {.backend = "acme",
                               .base_url = base,
                               .host = &host.services,
                               .no_proxy = 1,
                               .max_attempts = 1,
                               .ca_file = ca_file,
                               .client_cert = client_cert,
                               .client_key = client_key,
                               .tls_no_verify = no_verify};
  sbio_sdk_http *c = NULL;
  sbio_bk_error err = {.size = sizeof err};
  assert_int_equal(sbio_sdk_http_new(&opt, &c, &err), SBIO_OK);
  sbio_bk_call call;
  test_call_init(&call, &host, 20);
  sbio_sdk_http_request req = {.path = "/"};
  int rc = sbio_sdk_http_send(c, &req, &call, resp);
  sbio_sdk_http_free(c);
  return rc;
}

static void client_certificate_is_presented(void **state) {
  (void)state;
  sbio_sdk_http_response resp;
  assert_int_equal(get(ca, cert, key, 0, &resp), 0);
  assert_int_equal(resp.status, 200);
  assert_non_null(strstr(resp.body, "<HTML>"));
  assert_int_equal(resp.tls_failure, 0);
  sbio_sdk_http_response_free(&resp);
}

static void missing_client_certificate_is_refused_by_the_server(void **state) {
  (void)state;
  sbio_sdk_http_response resp;
  assert_int_equal(get(ca, NULL, NULL, 0, &resp), -1);
  fprintf(stderr, "without a client certificate: %s\n", resp.error);
  assert_true(resp.outcome == SBIO_SDK_HTTP_BROKEN || resp.outcome == SBIO_SDK_HTTP_UNREACHABLE);
  assert_int_equal(resp.tls_failure, SBIO_SDK_TLS_REFUSED);
  sbio_sdk_http_response_free(&resp);
}

static void wrong_ca_fails_the_handshake_here(void **state) {
  (void)state;
  sbio_sdk_http_response resp;
  assert_int_equal(get(other_ca, cert, key, 0, &resp), -1);
  fprintf(stderr, "with another CA: %s\n", resp.error);
  assert_int_equal(resp.outcome, SBIO_SDK_HTTP_UNREACHABLE);
  assert_int_equal(resp.tls_failure, SBIO_SDK_TLS_HANDSHAKE);
  assert_int_equal(resp.failed_at, SBIO_SDK_HTTP_AT_TLS);
  sbio_sdk_http_response_free(&resp);
  /* A CA file that cannot be read is our side too. */
  char absent[700];
  snprintf(absent, sizeof absent, "%s/absent/ca.pem", dir);
  assert_int_equal(get(absent, cert, key, 0, &resp), -1);
  assert_int_equal(resp.tls_failure, SBIO_SDK_TLS_HANDSHAKE);
  sbio_sdk_http_response_free(&resp);
}

static void no_verify_skips_only_the_server_check(void **state) {
  (void)state;
  sbio_sdk_http_response resp;
  assert_int_equal(get(other_ca, cert, key, 1, &resp), 0);
  assert_int_equal(resp.status, 200);
  sbio_sdk_http_response_free(&resp);
  /* The server still wants our certificate. */
  assert_int_equal(get(other_ca, NULL, NULL, 1, &resp), -1);
  assert_int_equal(resp.tls_failure, SBIO_SDK_TLS_REFUSED);
  sbio_sdk_http_response_free(&resp);
}

int main(void) {
  int rc = load_state();
  if (rc) return rc;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(client_certificate_is_presented),
      cmocka_unit_test(missing_client_certificate_is_refused_by_the_server),
      cmocka_unit_test(wrong_ca_fails_the_handshake_here),
      cmocka_unit_test(no_verify_skips_only_the_server_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
