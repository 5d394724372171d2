/* SPDX-License-Identifier: MIT */
/* SHA-256: the FIPS 180-4 example vectors, padding boundaries, incremental
 * updates, and hashing a file descriptor. */
/* cmocka needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void to_hex(const unsigned char digest[32], char hex[65]) {
  for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

static void digest_of(const void *data, size_t len, char hex[65]) {
  sbio__sha256 ctx;
  unsigned char digest[32];
  sbio__sha256_init(&ctx);
  sbio__sha256_update(&ctx, data, len);
  sbio__sha256_final(&ctx, digest);
  to_hex(digest, hex);
}

static void test_empty(void **state) {
  (void)state;
  char hex[65];
  digest_of("", 0, hex);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_abc(void **state) {
  (void)state;
  char hex[65];
  digest_of("abc", 3, hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_448_bit_message(void **state) {
  (void)state;
  const char *msg = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  char hex[65];
  digest_of(msg, strlen(msg), hex);
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_million_a(void **state) {
  (void)state;
  /* Fed in odd-sized pieces so the block buffering is exercised too. */
  char chunk[997];
  memset(chunk, 'a', sizeof chunk);
  sbio__sha256 ctx;
  sbio__sha256_init(&ctx);
  size_t left = 1000000;
  while (left > 0) {
    size_t n = left < sizeof chunk ? left : sizeof chunk;
    sbio__sha256_update(&ctx, chunk, n);
    left -= n;
  }
  unsigned char digest[32];
  char hex[65];
  sbio__sha256_final(&ctx, digest);
  to_hex(digest, hex);
  assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Lengths around the 55/56/64-byte padding boundaries. */
static void test_padding_boundaries(void **state) {
  (void)state;
  static const struct {
    size_t len;
    const char *hex;
  } vectors[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
  };
  unsigned char data[128];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 7 + 3);
  for (size_t v = 0; v < sizeof vectors / sizeof vectors[0]; v++) {
    char hex[65];
    digest_of(data, vectors[v].len, hex);
    assert_string_equal(hex, vectors[v].hex);
  }
}

/* Any split of the input into updates gives the one-shot digest. */
static void test_incremental_equals_one_shot(void **state) {
  (void)state;
  unsigned char data[300];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i ^ 0x5a);
  for (size_t len = 0; len <= sizeof data; len += 13) {
    char expected[65];
    digest_of(data, len, expected);
    for (size_t split = 1; split <= 70; split += 3) {
      sbio__sha256 ctx;
      unsigned char digest[32];
      char hex[65];
      sbio__sha256_init(&ctx);
      for (size_t off = 0; off < len; off += split) {
        size_t n = len - off < split ? len - off : split;
        sbio__sha256_update(&ctx, data + off, n);
      }
      sbio__sha256_update(&ctx, data, 0); /* empty updates are no-ops */
      sbio__sha256_final(&ctx, digest);
      to_hex(digest, hex);
      assert_string_equal(hex, expected);
    }
  }
}

static int temp_file_with(const unsigned char *data, size_t len) {
  char path[] = "/tmp/sbio-sha256-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  assert_int_equal(write(fd, data, len), (ssize_t)len);
  return fd;
}

static void test_fd_hex_whole_file_keeps_offset(void **state) {
  (void)state;
  size_t len = 100000;
  unsigned char *data = malloc(len);
  assert_non_null(data);
  for (size_t i = 0; i < len; i++) data[i] = (unsigned char)i;
  int fd = temp_file_with(data, len);
  /* The file offset sits at the end after writing; the digest must still
   * cover the whole file, and the offset must not move. */
  off_t before = lseek(fd, 0, SEEK_CUR);
  char hex[65];
  assert_int_equal(sbio__sha256_fd_hex(fd, hex), 0);
  assert_string_equal(hex, "db8f1d69251d95e2c88268d3c540533cc5182e0e33065a6f3f322f606a574489");
  assert_int_equal(lseek(fd, 0, SEEK_CUR), before);
  close(fd);
  free(data);
}

static void test_fd_hex_empty_file(void **state) {
  (void)state;
  int fd = temp_file_with((const unsigned char *)"", 0);
  char hex[65];
  assert_int_equal(sbio__sha256_fd_hex(fd, hex), 0);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  close(fd);
}

static void test_fd_hex_pipe(void **state) {
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  assert_int_equal(write(fds[1], "abc", 3), 3);
  close(fds[1]);
  char hex[65];
  assert_int_equal(sbio__sha256_fd_hex(fds[0], hex), 0);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  close(fds[0]);
}

static void test_fd_hex_bad_fd(void **state) {
  (void)state;
  char hex[65];
  errno = 0;
  assert_int_equal(sbio__sha256_fd_hex(-1, hex), -1);
  assert_int_equal(errno, EBADF);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_abc),
      cmocka_unit_test(test_448_bit_message),
      cmocka_unit_test(test_million_a),
      cmocka_unit_test(test_padding_boundaries),
      cmocka_unit_test(test_incremental_equals_one_shot),
      cmocka_unit_test(test_fd_hex_whole_file_keeps_offset),
      cmocka_unit_test(test_fd_hex_empty_file),
      cmocka_unit_test(test_fd_hex_pipe),
      cmocka_unit_test(test_fd_hex_bad_fd),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
