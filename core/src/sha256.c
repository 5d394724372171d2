/* SPDX-License-Identifier: MIT */
/* SHA-256 as specified in FIPS 180-4, sections 4.1.2, 4.2.2, 5.1.1, 5.3.3
 * and 6.2. Operators pin plugin files by digest, so this must not depend on
 * any optional crypto library being present. */
#include "sha256.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* First 32 bits of the fractional parts of the cube roots of the first 64
 * primes (section 4.2.2). */
static const uint32_t K[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

static uint32_t rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32u - n));
}
static uint32_t ch(uint32_t x, uint32_t y, uint32_t z) {
  return (x & y) ^ (~x & z);
}
static uint32_t maj(uint32_t x, uint32_t y, uint32_t z) {
  return (x & y) ^ (x & z) ^ (y & z);
}
static uint32_t big_sigma0(uint32_t x) {
  return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22);
}
static uint32_t big_sigma1(uint32_t x) {
  return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25);
}
static uint32_t small_sigma0(uint32_t x) {
  return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3);
}
static uint32_t small_sigma1(uint32_t x) {
  return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10);
}

static uint32_t load_be32(const unsigned char *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

/* One 512-bit block (section 6.2.2). */
static void compress(uint32_t state[8], const unsigned char block[64]) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
  for (int t = 16; t < 64; t++) w[t] = small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16];

  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; t++) {
    uint32_t t1 = h + big_sigma1(e) + ch(e, f, g) + K[t] + w[t];
    uint32_t t2 = big_sigma0(a) + maj(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void sbio__sha256_init(sbio__sha256 *ctx) {
  /* First 32 bits of the fractional parts of the square roots of the first
   * 8 primes (section 5.3.3). */
  static const uint32_t H0[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
  memcpy(ctx->state, H0, sizeof H0);
  ctx->bytes = 0;
  ctx->used = 0;
}

void sbio__sha256_update(sbio__sha256 *ctx, const void *data, size_t len) {
  const unsigned char *p = data;
  ctx->bytes += len;
  if (ctx->used > 0) {
    size_t take = sizeof ctx->block - ctx->used;
    if (take > len) take = len;
    memcpy(ctx->block + ctx->used, p, take);
    ctx->used += take;
    p += take;
    len -= take;
    if (ctx->used < sizeof ctx->block) return;
    compress(ctx->state, ctx->block);
    ctx->used = 0;
  }
  for (; len >= 64; p += 64, len -= 64) compress(ctx->state, p);
  if (len > 0) {
    memcpy(ctx->block, p, len);
    ctx->used = len;
  }
}

void sbio__sha256_final(sbio__sha256 *ctx, unsigned char out[32]) {
  /* Padding (section 5.1.1): a 1 bit, zeros, then the message length in
   * bits as a 64-bit big-endian integer, ending on a block boundary. */
  uint64_t bits = ctx->bytes * 8u;
  ctx->block[ctx->used++] = 0x80;
  if (ctx->used > 56) {
    memset(ctx->block + ctx->used, 0, sizeof ctx->block - ctx->used);
    compress(ctx->state, ctx->block);
    ctx->used = 0;
  }
  memset(ctx->block + ctx->used, 0, 56 - ctx->used);
  store_be32(ctx->block + 56, (uint32_t)(bits >> 32));
  store_be32(ctx->block + 60, (uint32_t)bits);
  compress(ctx->state, ctx->block);
  for (int i = 0; i < 8; i++) store_be32(out + 4 * i, ctx->state[i]);
  /* The context may have hashed something sensitive; leave nothing behind. */
  memset(ctx, 0, sizeof *ctx);
}

int sbio__sha256_fd_hex(int fd, char hex[65]) {
  static const char digits[] = "0123456789abcdef";
  unsigned char buf[16384];
  sbio__sha256 ctx;
  off_t offset = 0;

  sbio__sha256_init(&ctx);
  for (;;) {
    /* pread keeps the caller's file offset untouched; a descriptor that
     * cannot seek (a pipe) falls back to plain reads. */
    ssize_t n = pread(fd, buf, sizeof buf, offset);
    if (n < 0 && errno == ESPIPE && offset == 0) {
      for (;;) {
        n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) break;
        sbio__sha256_update(&ctx, buf, (size_t)n);
      }
      break;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    sbio__sha256_update(&ctx, buf, (size_t)n);
    offset += n;
  }

  unsigned char digest[32];
  sbio__sha256_final(&ctx, digest);
  for (int i = 0; i < 32; i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 0xf];
  }
  hex[64] = '\0';
  return 0;
}
