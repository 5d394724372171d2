/* SPDX-License-Identifier: MIT */
/* A small, deterministic stand-in for libFuzzer, so every build (gcc
 * included) runs the fuzz targets under ctest in a few seconds.
 *
 *   fuzz_NAME [SEED_FILE_OR_DIR...]
 *
 * Each seed is run as is, then mutated (bit flips, random and "interesting"
 * bytes and integers, insertions, deletions, duplications, truncations, a
 * few JSON tokens) for a bounded number of iterations with a fixed xorshift
 * PRNG, so a failure reproduces exactly. It finds crashes, sanitizer
 * reports and broken invariants (the targets trap); it is no substitute for
 * the coverage-guided libFuzzer builds (see README.md).
 *
 * Environment: SBIO_FUZZ_ITERATIONS (default 20000, total over all seeds),
 * SBIO_FUZZ_SEED (PRNG seed, default fixed). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEED_BYTES (1024 * 1024)
#define MAX_GROWTH 4096
#define MAX_SEEDS 256

typedef struct buffer {
  uint8_t *data;
  size_t len;
} buffer;

typedef struct seeds {
  buffer items[MAX_SEEDS];
  size_t n;
} seeds;

/* ------------------------------------------------------------------ PRNG */
static uint64_t rng_state;

static uint64_t rng_next(void) {
  uint64_t x = rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  rng_state = x;
  return x;
}

/* Uniform enough in [0, n); n > 0. */
static size_t rng_below(size_t n) {
  return (size_t)(rng_next() % n);
}

/* ----------------------------------------------------------------- seeds */
static int add_seed_file(seeds *s, const char *path) {
  if (s->n == MAX_SEEDS) return 0;
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "fuzz driver: cannot open seed %s\n", path);
    return -1;
  }
  uint8_t *data = malloc(MAX_SEED_BYTES);
  if (data == NULL) {
    fclose(f);
    return -1;
  }
  size_t len = fread(data, 1, MAX_SEED_BYTES, f); /* larger seeds are cut */
  fclose(f);
  s->items[s->n].data = data;
  s->items[s->n].len = len;
  s->n++;
  return 0;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file in a directory, in name order for reproducibility. */
static int add_seed_dir(seeds *s, const char *dir) {
  DIR *d = opendir(dir);
  if (d == NULL) {
    fprintf(stderr, "fuzz driver: cannot open seed directory %s\n", dir);
    return -1;
  }
  char *names[MAX_SEEDS];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < MAX_SEEDS) {
    if (e->d_name[0] == '.') continue;
    names[n] = strdup(e->d_name);
    if (names[n] != NULL) n++;
  }
  closedir(d);
  qsort(names, n, sizeof names[0], compare_names);
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (rc == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode)) rc = add_seed_file(s, path);
    free(names[i]);
  }
  return rc;
}

/* ------------------------------------------------------------- mutations */
static const uint64_t interesting[] = {
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    12,
    16,
    56,
    64,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x10000,
    0x10001,
    0x7fffffff,
    0x80000000,
    0xffffffff,
    0x100000000,
    0x4f494253,
    0xfffffffffffffff0u,
    0x7fffffffffffffffu,
    0x8000000000000000u,
    0xffffffffffffffffu,
};

static const char *const tokens[] = {
    "\"",         "\\",         "{",           "}",           "[",          "]",       ",",        ":",
    "null",       "true",       "1e999",       "-0",          "1.5",        "\\u0000", "\\ud800",  "\xc3\x28",
    "\xff",       "\"abi\"",    "\"name\"",    "\"tier\"",    "\"source\"", "\"url\"", "https://", "http://",
    "2024-02-29", "9999-12-31", "\"microvm\"", "\"unknown\"", "sandboxio",  "\177ELF",
};

/* Offsets near the start are where headers live; favour them. */
static size_t pick_offset(size_t len) {
  if (len == 0) return 0;
  if (rng_below(2) == 0) return rng_below(len < 256 ? len : 256);
  return rng_below(len);
}

static void insert_bytes(buffer *b, size_t cap, size_t at, const void *bytes, size_t n) {
  if (b->len + n > cap) return;
  memmove(b->data + at + n, b->data + at, b->len - at);
  memcpy(b->data + at, bytes, n);
  b->len += n;
}

static void mutate_once(buffer *b, size_t cap) {
  switch (rng_below(10)) {
  case 0: /* bit flip */
    if (b->len > 0) b->data[pick_offset(b->len)] ^= (uint8_t)(1u << rng_below(8));
    break;
  case 1: /* random byte */
    if (b->len > 0) b->data[pick_offset(b->len)] = (uint8_t)rng_next();
    break;
  case 2: { /* interesting integer, 1/2/4/8 bytes, either byte order */
    uint64_t v = interesting[rng_below(sizeof interesting / sizeof interesting[0])];
    size_t width = (size_t)1 << rng_below(4);
    if (b->len < width) break;
    size_t at = pick_offset(b->len - width + 1);
    int big_endian = rng_below(4) == 0;
    for (size_t i = 0; i < width; i++) {
      size_t shift = 8 * (big_endian ? width - 1 - i : i);
      b->data[at + i] = (uint8_t)(v >> shift);
    }
    break;
  }
  case 3: { /* insert random bytes */
    uint8_t bytes[16];
    size_t n = 1 + rng_below(sizeof bytes);
    for (size_t i = 0; i < n; i++) bytes[i] = (uint8_t)rng_next();
    insert_bytes(b, cap, b->len ? rng_below(b->len + 1) : 0, bytes, n);
    break;
  }
  case 4: { /* delete a range */
    if (b->len == 0) break;
    size_t at = rng_below(b->len);
    size_t n = 1 + rng_below(b->len - at < 64 ? b->len - at : 64);
    memmove(b->data + at, b->data + at + n, b->len - at - n);
    b->len -= n;
    break;
  }
  case 5: /* truncate */
    if (b->len > 0) b->len = rng_below(b->len);
    break;
  case 6: { /* duplicate a chunk elsewhere (a second note, a repeated key) */
    if (b->len == 0) break;
    size_t from = rng_below(b->len);
    size_t n = 1 + rng_below(b->len - from < 128 ? b->len - from : 128);
    uint8_t chunk[128];
    memcpy(chunk, b->data + from, n);
    insert_bytes(b, cap, rng_below(b->len + 1), chunk, n);
    break;
  }
  case 7: { /* overwrite with a copy of another chunk */
    if (b->len < 2) break;
    size_t from = rng_below(b->len), to = rng_below(b->len);
    size_t n = 1 + rng_below(16);
    if (from + n > b->len) n = b->len - from;
    if (to + n > b->len) n = b->len - to;
    memmove(b->data + to, b->data + from, n);
    break;
  }
  case 8: { /* a token of the formats being parsed */
    const char *t = tokens[rng_below(sizeof tokens / sizeof tokens[0])];
    insert_bytes(b, cap, b->len ? rng_below(b->len + 1) : 0, t, strlen(t));
    break;
  }
  default: /* swap two bytes */
    if (b->len >= 2) {
      size_t i = rng_below(b->len), j = rng_below(b->len);
      uint8_t tmp = b->data[i];
      b->data[i] = b->data[j];
      b->data[j] = tmp;
    }
    break;
  }
}

/* Runs one input from an exactly sized heap copy, so AddressSanitizer sees
 * any read past its end. */
static void run_one(const uint8_t *data, size_t len) {
  uint8_t *copy = malloc(len ? len : 1);
  if (copy == NULL) abort();
  if (len > 0) memcpy(copy, data, len);
  LLVMFuzzerTestOneInput(copy, len);
  free(copy);
}

static unsigned long env_number(const char *name, unsigned long fallback) {
  const char *text = getenv(name);
  if (text == NULL || *text == '\0') return fallback;
  char *end;
  unsigned long v = strtoul(text, &end, 0);
  return *end == '\0' ? v : fallback;
}

int main(int argc, char **argv) {
  static seeds s;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "fuzz driver: no such seed %s\n", argv[i]);
      return 2;
    }
    int rc = S_ISDIR(st.st_mode) ? add_seed_dir(&s, argv[i]) : add_seed_file(&s, argv[i]);
    if (rc != 0) return 2;
  }
  if (s.n == 0) { /* no corpus yet: start from nothing */
    s.items[0].data = malloc(1);
    s.items[0].len = 0;
    s.n = 1;
  }

  unsigned long iterations = env_number("SBIO_FUZZ_ITERATIONS", 20000);
  rng_state = env_number("SBIO_FUZZ_SEED", 0x5eed5b10u);
  if (rng_state == 0) rng_state = 1; /* xorshift's one fixed point */

  for (size_t i = 0; i < s.n; i++) run_one(s.items[i].data, s.items[i].len);

  size_t max_len = 0;
  for (size_t i = 0; i < s.n; i++) max_len = s.items[i].len > max_len ? s.items[i].len : max_len;
  size_t cap = max_len + MAX_GROWTH;
  buffer work = {malloc(cap), 0};
  if (work.data == NULL) return 2;

  for (unsigned long it = 0; it < iterations; it++) {
    const buffer *seed = &s.items[it % s.n];
    memcpy(work.data, seed->data, seed->len);
    work.len = seed->len;
    size_t rounds = 1 + rng_below(rng_below(4) == 0 ? 32 : 4);
    for (size_t r = 0; r < rounds; r++) mutate_once(&work, cap);
    run_one(work.data, work.len);
  }

  printf("%s: %zu seed(s), %lu mutated inputs, no failures\n", argv[0], s.n, iterations);
  free(work.data);
  for (size_t i = 0; i < s.n; i++) free(s.items[i].data);
  return 0;
}
