/* SPDX-License-Identifier: MIT */
/* The ELF note reader, against images built in memory: a valid minimal
 * ELF with a PT_NOTE segment holding our note, then one mutation per way a
 * file can be wrong. Each refusal is checked for its specific reason. */
/* cmocka needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include "elfnote.h"

#include <sandboxio/backend.h>

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if UINTPTR_MAX == UINT64_MAX
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
typedef Elf64_Dyn dyn_t;
typedef Elf64_Rela rela_t;
#define HOST_CLASS ELFCLASS64
#define OTHER_CLASS ELFCLASS32
#else
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
typedef Elf32_Dyn dyn_t;
typedef Elf32_Rela rela_t;
#define HOST_CLASS ELFCLASS32
#define OTHER_CLASS ELFCLASS64
#endif

#define IMAGE_CAPACITY (256 * 1024)
#define N_PHDRS 2
#define NOTE_PHDR 1 /* index of the PT_NOTE program header */
#define NOTES_OFFSET (sizeof(ehdr_t) + N_PHDRS * sizeof(phdr_t))

static const char JSON[] = "{\"abi\":1,\"name\":\"fake\"}";

typedef struct image {
  unsigned char *buf;
  size_t len;
  size_t align; /* note padding of the PT_NOTE segment */
} image;

/* The machine this test (and so the reader) was compiled for. */
static unsigned host_machine(void) {
  ehdr_t self;
  int fd = open("/proc/self/exe", O_RDONLY);
  assert_true(fd >= 0);
  assert_int_equal(read(fd, &self, sizeof self), (ssize_t)sizeof self);
  close(fd);
  return self.e_machine;
}

static ehdr_t *ehdr(image *im) {
  return (ehdr_t *)im->buf;
}
static phdr_t *phdr(image *im, size_t i) {
  return (phdr_t *)(im->buf + sizeof(ehdr_t) + i * sizeof(phdr_t));
}

static size_t pad(size_t n, size_t align) {
  return (n + align - 1) & ~(align - 1);
}

/* Appends a note to the PT_NOTE segment (which ends the file). */
static size_t add_note(image *im, const void *owner, uint32_t namesz, uint32_t type, const void *desc,
                       uint32_t descsz) {
  size_t at = im->len;
  uint32_t words[3] = {namesz, descsz, type};
  /* The descriptor follows header and name at the next aligned offset. */
  size_t desc_at = pad(12 + namesz, im->align);
  size_t total = desc_at + pad(descsz, im->align);
  assert_true(at + total <= IMAGE_CAPACITY);
  memcpy(im->buf + at, words, sizeof words);
  memcpy(im->buf + at + 12, owner, namesz);
  memcpy(im->buf + at + desc_at, desc, descsz);
  im->len += total;
  phdr(im, NOTE_PHDR)->p_filesz = im->len - NOTES_OFFSET;
  phdr(im, NOTE_PHDR)->p_memsz = im->len - NOTES_OFFSET;
  return at;
}

static size_t add_our_note(image *im, const char *json) {
  return add_note(im, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER, SBIO_NOTE_TYPE, json, (uint32_t)strlen(json) + 1);
}

/* ELF header, a PT_LOAD and an empty PT_NOTE; notes are appended after. */
static void image_init_aligned(image *im, size_t align) {
  im->buf = calloc(1, IMAGE_CAPACITY);
  assert_non_null(im->buf);
  im->align = align;
  ehdr_t *eh = ehdr(im);
  memcpy(eh->e_ident, ELFMAG, SELFMAG);
  eh->e_ident[EI_CLASS] = HOST_CLASS;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
#else
  eh->e_ident[EI_DATA] = ELFDATA2MSB;
#endif
  eh->e_ident[EI_VERSION] = EV_CURRENT;
  eh->e_type = ET_DYN;
  eh->e_machine = (uint16_t)host_machine();
  eh->e_version = EV_CURRENT;
  eh->e_phoff = sizeof(ehdr_t);
  eh->e_ehsize = sizeof(ehdr_t);
  eh->e_phentsize = sizeof(phdr_t);
  eh->e_phnum = N_PHDRS;
  phdr(im, 0)->p_type = PT_LOAD;
  phdr(im, 0)->p_align = 4096;
  phdr(im, NOTE_PHDR)->p_type = PT_NOTE;
  phdr(im, NOTE_PHDR)->p_offset = NOTES_OFFSET;
  phdr(im, NOTE_PHDR)->p_align = align;
  im->len = NOTES_OFFSET;
}

static void image_init(image *im) {
  image_init_aligned(im, 4);
}

/* A valid image: a GNU build-id note, then ours. */
static void image_valid(image *im) {
  image_init(im);
  unsigned char build_id[20] = {1, 2, 3};
  add_note(im, "GNU", 4, NT_GNU_BUILD_ID, build_id, sizeof build_id);
  add_our_note(im, JSON);
}

static int temp_fd(const void *data, size_t len);

/* The same image read from a file, where only the ranges the checks look
 * at are read (elfnote.c, need()), must get the same verdict and the same
 * reason as the whole buffer: a range a check reads without need() would
 * be zeroes there, and this catches it on every image of this file. */
static void expect_same_from_file(const unsigned char *buf, size_t len, int rc, const char *reason) {
  if (buf == NULL || len == 0) return;
  int fd = temp_fd(buf, len);
  char *json = NULL;
  char file_reason[256] = "";
  int file_rc = sbio__elfnote_read_fd(fd, &json, file_reason, sizeof file_reason);
  close(fd);
  free(json);
  if (file_rc != rc || (rc != 0 && reason != NULL && strcmp(file_reason, reason) != 0)) {
    print_error("from a buffer: rc=%d \"%s\"; from a file: rc=%d \"%s\"\n", rc, reason ? reason : "", file_rc,
                file_reason);
    fail();
  }
}

static int find(image *im, const char **json, size_t *json_len, char *reason, size_t size) {
  char whole[256] = ""; /* the caller's may be short on purpose */
  expect_same_from_file(im->buf, im->len, sbio__elfnote_find(im->buf, im->len, NULL, NULL, whole, sizeof whole), whole);
  return sbio__elfnote_find(im->buf, im->len, json, json_len, reason, size);
}

/* Asserts a refusal whose reason contains `expected`. */
static void expect_refused(image *im, const char *expected) {
  char reason[256] = "";
  const char *json = NULL;
  size_t json_len = 0;
  int rc = find(im, &json, &json_len, reason, sizeof reason);
  if (rc != -1 || strstr(reason, expected) == NULL) {
    print_error("expected refusal containing \"%s\", got rc=%d reason \"%s\"\n", expected, rc, reason);
    fail();
  }
  assert_null(strchr(reason, '\n')); /* one line */
  free(im->buf);
}

static void test_valid_image(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  const char *json = NULL;
  size_t json_len = 0;
  char reason[256] = "";
  assert_int_equal(find(&im, &json, &json_len, reason, sizeof reason), 0);
  assert_int_equal(json_len, strlen(JSON));
  assert_memory_equal(json, JSON, json_len);
  assert_true(json >= (const char *)im.buf && json < (const char *)im.buf + im.len);
  /* NULL outputs are allowed. */
  assert_int_equal(sbio__elfnote_find(im.buf, im.len, NULL, NULL, NULL, 0), 0);
  free(im.buf);
}

static void test_json_ends_at_first_nul(void **state) {
  (void)state;
  image im;
  image_init(&im);
  static const char desc[] = "{}\0trailing bytes\0";
  add_note(&im, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER, SBIO_NOTE_TYPE, desc, sizeof desc);
  const char *json = NULL;
  size_t json_len = 0;
  assert_int_equal(find(&im, &json, &json_len, NULL, 0), 0);
  assert_int_equal(json_len, 2);
  assert_memory_equal(json, "{}", 2);
  free(im.buf);
}

static void test_eight_byte_aligned_segment(void **state) {
  (void)state;
  image im;
  image_init_aligned(&im, 8);
  unsigned char prop[12] = {0};
  add_note(&im, "GNU", 4, NT_GNU_PROPERTY_TYPE_0, prop, sizeof prop);
  add_our_note(&im, JSON);
  const char *json = NULL;
  size_t json_len = 0;
  assert_int_equal(find(&im, &json, &json_len, NULL, 0), 0);
  assert_memory_equal(json, JSON, json_len);
  free(im.buf);
}

static void test_not_elf(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  im.buf[1] = 'X';
  expect_refused(&im, "not an ELF file");

  image_valid(&im);
  im.len = 10; /* shorter than e_ident */
  expect_refused(&im, "not an ELF file");

  char reason[64];
  assert_int_equal(sbio__elfnote_find(NULL, 0, NULL, NULL, reason, sizeof reason), -1);
  assert_string_equal(reason, "not an ELF file");
  assert_int_equal(sbio__elfnote_find((const unsigned char *)"#!/bin/sh\n", 10, NULL, NULL, reason, sizeof reason), -1);
  assert_string_equal(reason, "not an ELF file");
}

static void test_class_mismatch(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  ehdr(&im)->e_ident[EI_CLASS] = OTHER_CLASS;
  expect_refused(&im, HOST_CLASS == ELFCLASS64 ? "ELF class 32-bit does not match this host (64-bit)"
                                               : "ELF class 64-bit does not match this host (32-bit)");
  image_valid(&im);
  ehdr(&im)->e_ident[EI_CLASS] = 7;
  expect_refused(&im, "invalid ELF class 7");
}

static void test_endianness_mismatch(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  ehdr(&im)->e_ident[EI_DATA] = ehdr(&im)->e_ident[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
  expect_refused(&im, "ELF data encoding");
  image_valid(&im);
  ehdr(&im)->e_ident[EI_DATA] = ehdr(&im)->e_ident[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
  expect_refused(&im, "does not match this host");
  image_valid(&im);
  ehdr(&im)->e_ident[EI_DATA] = 0;
  expect_refused(&im, "invalid ELF data encoding 0");
}

static void test_version(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  ehdr(&im)->e_ident[EI_VERSION] = 2;
  expect_refused(&im, "unsupported ELF version");
  image_valid(&im);
  ehdr(&im)->e_version = 0;
  expect_refused(&im, "unsupported ELF version 0");
}

static void test_machine_mismatch(void **state) {
  (void)state;
  unsigned host = host_machine();
  unsigned other = host == EM_X86_64 ? EM_AARCH64 : EM_X86_64;
  char expected[128];
  image im;
  image_valid(&im);
  ehdr(&im)->e_machine = (uint16_t)other;
  snprintf(expected, sizeof expected, "ELF machine %u (%s) does not match this host (%u", other,
           other == EM_X86_64 ? "x86-64" : "AArch64", host);
  expect_refused(&im, expected);

  image_valid(&im);
  ehdr(&im)->e_machine = 9999;
  snprintf(expected, sizeof expected, "ELF machine 9999 does not match this host (%u", host);
  expect_refused(&im, expected);

  if (host == EM_X86_64) {
    image_valid(&im);
    ehdr(&im)->e_machine = EM_AARCH64;
    expect_refused(&im, "ELF machine 183 (AArch64) does not match this host (62, x86-64)");
  }
}

static void test_truncated_header(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  im.len = sizeof(ehdr_t) - 1;
  expect_refused(&im, "truncated ELF header");
}

static void test_program_header_table(void **state) {
  (void)state;
  image im;

  image_valid(&im);
  ehdr(&im)->e_phentsize = sizeof(phdr_t) + 8;
  expect_refused(&im, "program header entry size");

  image_valid(&im);
  im.len = sizeof(ehdr_t) + sizeof(phdr_t) + 10; /* second header cut */
  expect_refused(&im, "ELF program headers out of bounds");

  image_valid(&im);
  ehdr(&im)->e_phnum = 0xfffe; /* far past the end */
  expect_refused(&im, "ELF program headers out of bounds");

  image_valid(&im);
  ehdr(&im)->e_phoff = (__typeof__(ehdr(&im)->e_phoff))-8; /* offset + size wraps around */
  expect_refused(&im, "ELF program headers out of bounds");

  image_valid(&im);
  ehdr(&im)->e_phoff = im.len;
  expect_refused(&im, "ELF program headers out of bounds");

  image_valid(&im);
  ehdr(&im)->e_phnum = PN_XNUM;
  expect_refused(&im, "PN_XNUM");

  image_valid(&im);
  ehdr(&im)->e_phnum = 0;
  expect_refused(&im, "no .note.sandboxio metadata note");
}

static void test_note_segment_out_of_bounds(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  phdr(&im, NOTE_PHDR)->p_filesz += 1;
  expect_refused(&im, "PT_NOTE segment 1 out of bounds");

  image_valid(&im);
  phdr(&im, NOTE_PHDR)->p_offset = (__typeof__(phdr(&im, 0)->p_offset))-4;
  expect_refused(&im, "PT_NOTE segment 1 out of bounds");

  image_valid(&im);
  phdr(&im, NOTE_PHDR)->p_offset = im.len + 4096;
  expect_refused(&im, "PT_NOTE segment 1 out of bounds");
}

static void test_note_sizes_out_of_bounds(void **state) {
  (void)state;
  image im;
  image_init(&im);
  size_t at = add_our_note(&im, JSON);
  uint32_t huge = 0xffffffffu;
  memcpy(im.buf + at + 4, &huge, 4); /* descsz */
  expect_refused(&im, "size out of bounds");

  image_init(&im);
  at = add_our_note(&im, JSON);
  memcpy(im.buf + at, &huge, 4); /* namesz */
  expect_refused(&im, "size out of bounds");

  image_init(&im);
  at = add_our_note(&im, JSON);
  uint32_t one_more = (uint32_t)(strlen(JSON) + 1 + 4);
  memcpy(im.buf + at + 4, &one_more, 4);
  expect_refused(&im, "malformed note");
}

static void test_truncated_note_header(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  phdr(&im, NOTE_PHDR)->p_filesz = 8;
  expect_refused(&im, "malformed note: note header at offset");
}

static void test_misaligned(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  /* Shift the segment by one byte: the notes no longer start aligned. */
  memmove(im.buf + NOTES_OFFSET + 1, im.buf + NOTES_OFFSET, im.len - NOTES_OFFSET);
  phdr(&im, NOTE_PHDR)->p_offset += 1;
  im.len += 1;
  expect_refused(&im, "misaligned");

  image_valid(&im);
  phdr(&im, NOTE_PHDR)->p_align = 16;
  expect_refused(&im, "unsupported alignment 16");
}

static void test_descriptor_not_nul_terminated(void **state) {
  (void)state;
  image im;
  image_init(&im);
  add_note(&im, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER, SBIO_NOTE_TYPE, "{}{}", 4);
  expect_refused(&im, "metadata note descriptor is not NUL-terminated");
}

static void test_descriptor_too_large(void **state) {
  (void)state;
  image im;
  image_init(&im);
  size_t size = SBIO_METADATA_MAX + 4;
  char *big = malloc(size);
  assert_non_null(big);
  memset(big, ' ', size);
  big[0] = '{';
  big[size - 2] = '}';
  big[size - 1] = '\0';
  add_note(&im, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER, SBIO_NOTE_TYPE, big, (uint32_t)size);
  free(big);
  expect_refused(&im, "too large");
}

static void test_descriptor_at_limit_accepted(void **state) {
  (void)state;
  image im;
  image_init(&im);
  size_t size = SBIO_METADATA_MAX;
  char *big = malloc(size);
  assert_non_null(big);
  memset(big, ' ', size);
  big[0] = '{';
  big[size - 2] = '}';
  big[size - 1] = '\0';
  add_note(&im, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER, SBIO_NOTE_TYPE, big, (uint32_t)size);
  free(big);
  size_t json_len = 0;
  assert_int_equal(find(&im, NULL, &json_len, NULL, 0), 0);
  assert_int_equal(json_len, SBIO_METADATA_MAX - 1);
  free(im.buf);
}

static void test_empty_json(void **state) {
  (void)state;
  image im;
  image_init(&im);
  add_note(&im, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER, SBIO_NOTE_TYPE, "\0\0\0", 4);
  expect_refused(&im, "empty");
}

static void test_duplicate_note(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  add_our_note(&im, "{\"other\":1}");
  expect_refused(&im, "more than one sandboxio metadata note");
}

/* Two PT_NOTE headers over the same bytes are not two notes. */
static void test_same_note_through_two_segments(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  *phdr(&im, 0) = *phdr(&im, NOTE_PHDR);
  const char *json = NULL;
  size_t json_len = 0;
  assert_int_equal(find(&im, &json, &json_len, NULL, 0), 0);
  assert_memory_equal(json, JSON, json_len);
  free(im.buf);
}

static void test_foreign_notes_ignored(void **state) {
  (void)state;
  image im;
  image_init(&im);
  add_note(&im, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER, SBIO_NOTE_TYPE + 1, "{}", 3); /* wrong type */
  add_note(&im, "Sandboxio", 10, SBIO_NOTE_TYPE, "{}", 3);                             /* owner case */
  add_note(&im, "sandboxio", 9, SBIO_NOTE_TYPE, "{}", 3);                              /* no NUL */
  add_note(&im, "sandboxi", 9, SBIO_NOTE_TYPE, "{}", 3);                               /* prefix */
  add_note(&im, "sandboxiox", 11, SBIO_NOTE_TYPE, "{}", 3);                            /* longer */
  add_note(&im, "", 0, SBIO_NOTE_TYPE, "{}", 3);                                       /* no owner */
  expect_refused(&im, "no .note.sandboxio metadata note");

  image_init(&im); /* an empty note segment */
  expect_refused(&im, "no .note.sandboxio metadata note");
}

/* Many program headers over one segment of many empty notes: the walk is
 * capped instead of going quadratic. */
static void test_note_walk_is_bounded(void **state) {
  (void)state;
  image im;
  image_init(&im);
  for (int i = 0; i < 8000; i++) add_note(&im, "", 0, 1, "", 0);
  add_our_note(&im, JSON);
  /* A new program header table at the end: ten PT_NOTEs over the same bytes. */
  size_t table = pad(im.len, 8);
  for (size_t i = 0; i < 10; i++) memcpy(im.buf + table + i * sizeof(phdr_t), phdr(&im, NOTE_PHDR), sizeof(phdr_t));
  ehdr(&im)->e_phoff = table;
  ehdr(&im)->e_phnum = 10;
  im.len = table + 10 * sizeof(phdr_t);
  expect_refused(&im, "malformed note: more than 65536 notes");
}

static void test_reason_truncated_safely(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  ehdr(&im)->e_machine = 9999;
  char reason[8];
  memset(reason, 'x', sizeof reason);
  assert_int_equal(find(&im, NULL, NULL, reason, sizeof reason), -1);
  assert_int_equal(reason[sizeof reason - 1], '\0');
  assert_int_equal(find(&im, NULL, NULL, reason, 0), -1);
  free(im.buf);
}

/* ------------------------------------------------------------- from files */
static int temp_fd(const void *data, size_t len) {
  char path[] = "/tmp/sbio-elfnote-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  unlink(path);
  if (len > 0) assert_int_equal(write(fd, data, len), (ssize_t)len);
  return fd;
}

static void test_read_fd_valid(void **state) {
  (void)state;
  image im;
  image_valid(&im);
  int fd = temp_fd(im.buf, im.len);
  char *json = NULL;
  char reason[256] = "";
  assert_int_equal(sbio__elfnote_read_fd(fd, &json, reason, sizeof reason), 0);
  assert_non_null(json);
  assert_string_equal(json, JSON);
  free(json);
  close(fd);
  free(im.buf);
}

static void test_read_fd_refusals(void **state) {
  (void)state;
  char *json = (char *)"sentinel";
  char reason[256] = "";

  int fd = temp_fd("", 0);
  assert_int_equal(sbio__elfnote_read_fd(fd, &json, reason, sizeof reason), -1);
  assert_null(json);
  assert_string_equal(reason, "empty file");
  close(fd);

  fd = open("/tmp", O_RDONLY | O_DIRECTORY);
  assert_true(fd >= 0);
  assert_int_equal(sbio__elfnote_read_fd(fd, &json, reason, sizeof reason), -1);
  assert_string_equal(reason, "not a regular file");
  close(fd);

  int fds[2];
  assert_int_equal(pipe(fds), 0);
  assert_int_equal(sbio__elfnote_read_fd(fds[0], &json, reason, sizeof reason), -1);
  assert_string_equal(reason, "not a regular file");
  close(fds[0]);
  close(fds[1]);

  assert_int_equal(sbio__elfnote_read_fd(-1, &json, reason, sizeof reason), -1);
  assert_non_null(strstr(reason, "cannot stat"));

  fd = temp_fd("hello, world\n", 13);
  assert_int_equal(sbio__elfnote_read_fd(fd, &json, reason, sizeof reason), -1);
  assert_string_equal(reason, "not an ELF file");
  close(fd);
}

/* A real linked executable has PT_NOTE segments (build id, ABI tag) but no
 * sandboxio note. */
static void test_own_executable_has_no_note(void **state) {
  (void)state;
  int fd = open("/proc/self/exe", O_RDONLY);
  assert_true(fd >= 0);
  char *json = NULL;
  char reason[256] = "";
  assert_int_equal(sbio__elfnote_read_fd(fd, &json, reason, sizeof reason), -1);
  assert_string_equal(reason, "no .note.sandboxio metadata note");
  close(fd);
}

/* A plugin compiled with SBIO_BACKEND, when the build has made one. */
static void read_real_plugin(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    skip();
  }
  char *json = NULL;
  char reason[256] = "";
  int rc = sbio__elfnote_read_fd(fd, &json, reason, sizeof reason);
  close(fd);
  if (rc != 0) {
    print_error("%s: %s\n", path, reason);
    fail();
  }
  assert_true(strncmp(json, "{\"abi\":1,", 9) == 0);
  free(json);
}

static void test_real_seed_plugin(void **state) {
  (void)state;
  read_real_plugin(SBIO_TEST_BINARY_DIR "/fuzz/seed/sbio-backend-fuzzseed.so");
}

static void test_real_fake_plugin(void **state) {
  (void)state;
  read_real_plugin(SBIO_TEST_BACKEND_DIR "/sbio-backend-fake.so");
}

/* Bytes this process has read(2)/pread(2) so far (/proc/self/io). */
static unsigned long long bytes_read_so_far(void) {
  FILE *f = fopen("/proc/self/io", "r");
  if (f == NULL) return 0;
  char line[128];
  unsigned long long n = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "rchar: %llu", &n) == 1) break;
  fclose(f);
  return n;
}

/* Every command reads the note of every installed backend: reading each
 * file whole was most of the time a command spent on them. A real plugin
 * is checked by reading its headers and tables, a small part of it. */
static void test_real_plugin_is_not_read_whole(void **state) {
  (void)state;
  int fd = open(SBIO_TEST_BACKEND_DIR "/sbio-backend-fake.so", O_RDONLY);
  if (fd < 0) skip();
  off_t size = lseek(fd, 0, SEEK_END);
  assert_true(size > 64 * 1024);
  char *json = NULL;
  char reason[256] = "";
  unsigned long long before = bytes_read_so_far();
  assert_int_equal(sbio__elfnote_read_fd(fd, &json, reason, sizeof reason), 0);
  unsigned long long read = bytes_read_so_far() - before;
  close(fd);
  free(json);
  if (before == 0) skip(); /* no /proc/self/io */
  if (read * 4 > (unsigned long long)size) {
    print_error("read %llu of the file's %lld bytes\n", read, (long long)size);
    fail();
  }
}

/* ------------------------------------------- what the dynamic loader trusts */
/* The real fake plugin, read whole, and where its dynamic array is: each
 * test below breaks one thing dlopen would follow blindly (before the
 * check, each of these files crashed the host inside dlopen). */
typedef struct real_image {
  unsigned char *buf;
  size_t len;
  ehdr_t eh;
  size_t dyn_phdr, dyn_off, dyn_n; /* program header index, file offset, entries */
} real_image;

static int real_fake_plugin(real_image *ri) {
  int fd = open(SBIO_TEST_BACKEND_DIR "/sbio-backend-fake.so", O_RDONLY);
  if (fd < 0) return -1;
  off_t size = lseek(fd, 0, SEEK_END);
  assert_true(size > 0);
  ri->len = (size_t)size;
  ri->buf = malloc(ri->len);
  assert_non_null(ri->buf);
  assert_int_equal(pread(fd, ri->buf, ri->len, 0), (ssize_t)ri->len);
  close(fd);
  memcpy(&ri->eh, ri->buf, sizeof ri->eh);
  ri->dyn_n = 0;
  for (size_t i = 0; i < ri->eh.e_phnum; i++) {
    phdr_t ph;
    memcpy(&ph, ri->buf + ri->eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_DYNAMIC) continue;
    ri->dyn_phdr = i;
    ri->dyn_off = ph.p_offset; /* the linker makes it equal to the PT_LOAD bytes at p_vaddr */
    ri->dyn_n = ph.p_filesz / sizeof(dyn_t);
  }
  assert_true(ri->dyn_n > 0);
  return 0;
}

static phdr_t *real_phdr(real_image *ri, size_t i) {
  return (phdr_t *)(ri->buf + ri->eh.e_phoff + i * sizeof(phdr_t));
}
static dyn_t *real_dyn(real_image *ri, size_t i) {
  return (dyn_t *)(ri->buf + ri->dyn_off + i * sizeof(dyn_t));
}
/* The dynamic entry with `tag` (the first one), or NULL. */
static dyn_t *real_dyn_find(real_image *ri, int64_t tag) {
  for (size_t i = 0; i < ri->dyn_n; i++)
    if ((int64_t)real_dyn(ri, i)->d_tag == tag) return real_dyn(ri, i);
  return NULL;
}
static dyn_t *real_dyn_tag(real_image *ri, int64_t tag) {
  dyn_t *d = real_dyn_find(ri, tag);
  if (!d) fail_msg("the fake plugin has no dynamic tag %lld", (long long)tag);
  return d;
}

static void expect_real_refused(real_image *ri, const char *expected) {
  char reason[256] = "";
  int rc = sbio__elfnote_find(ri->buf, ri->len, NULL, NULL, reason, sizeof reason);
  expect_same_from_file(ri->buf, ri->len, rc, reason);
  if (rc != -1 || strstr(reason, expected) == NULL)
    fail_msg("expected refusal containing \"%s\", got rc=%d reason \"%s\"", expected, rc, reason);
  free(ri->buf);
}

static void test_dynamic_section_outside_image(void **state) {
  (void)state;
  real_image ri;
  if (real_fake_plugin(&ri) != 0) skip();
  char reason[256] = "";
  assert_int_equal(sbio__elfnote_find(ri.buf, ri.len, NULL, NULL, reason, sizeof reason), 0);
  real_phdr(&ri, ri.dyn_phdr)->p_vaddr = 0x7fff0000;
  expect_real_refused(&ri, "ELF dynamic section (segment ");

  if (real_fake_plugin(&ri) != 0) skip();
  for (size_t i = 0; i < ri.eh.e_phnum; i++)
    if (real_phdr(&ri, i)->p_type == PT_GNU_STACK) real_phdr(&ri, i)->p_type = PT_DYNAMIC;
  expect_real_refused(&ri, "ELF has 2 PT_DYNAMIC segments");
}

static void test_dynamic_section_without_terminator(void **state) {
  (void)state;
  real_image ri;
  if (real_fake_plugin(&ri) != 0) skip();
  for (size_t i = 0; i < ri.dyn_n; i++)
    if (real_dyn(&ri, i)->d_tag == DT_NULL) real_dyn(&ri, i)->d_tag = DT_DEBUG;
  expect_real_refused(&ri, "ELF dynamic section has no DT_NULL terminator");
}

static void test_dynamic_tables_outside_image(void **state) {
  (void)state;
  real_image ri;
  if (real_fake_plugin(&ri) != 0) skip();
  real_dyn_tag(&ri, DT_STRTAB)->d_un.d_ptr = 0x7fff0000;
  expect_real_refused(&ri, "dynamic section's DT_STRTAB (address 0x7fff0000");

  if (real_fake_plugin(&ri) != 0) skip();
  real_dyn_tag(&ri, DT_SYMTAB)->d_un.d_ptr = (uint64_t)-16; /* wraps past the end of the address space */
  expect_real_refused(&ri, "dynamic section's DT_SYMTAB");

  if (real_fake_plugin(&ri) != 0) skip();
  real_dyn_tag(&ri, DT_RELASZ)->d_un.d_val = (uint64_t)-1;
  expect_real_refused(&ri, "dynamic section's DT_RELA");

  if (real_fake_plugin(&ri) != 0) skip();
  real_dyn_tag(&ri, DT_NEEDED)->d_un.d_val = 0x7fffffff;
  expect_real_refused(&ri, "names a string outside the dynamic string table (offset 2147483647)");
}

/* Code whose bytes are not in the file: the executable segment's file size
 * set to 0 leaves DT_INIT pointing into zero-filled memory. */
static void test_code_not_in_file(void **state) {
  (void)state;
  real_image ri;
  if (real_fake_plugin(&ri) != 0) skip();
  uint64_t init = real_dyn_tag(&ri, DT_INIT)->d_un.d_ptr;
  int cut = 0;
  for (size_t i = 0; i < ri.eh.e_phnum; i++) {
    phdr_t *ph = real_phdr(&ri, i);
    if (ph->p_type == PT_LOAD && init >= ph->p_vaddr && init < ph->p_vaddr + ph->p_memsz) ph->p_filesz = 0, cut = 1;
  }
  assert_true(cut);
  expect_real_refused(&ri, "dynamic section's DT_INIT");
}

static void test_relocation_outside_image(void **state) {
  (void)state;
  real_image ri;
  if (real_fake_plugin(&ri) != 0) skip();
  if (!real_dyn_find(&ri, DT_RELA)) { /* a REL platform (i386, ARM) */
    free(ri.buf);
    skip();
  }
  uint64_t rela = real_dyn_tag(&ri, DT_RELA)->d_un.d_ptr;
  /* The relocation table is in the first PT_LOAD, at offset = address. */
  rela_t r;
  memcpy(&r, ri.buf + rela, sizeof r);
  r.r_offset = 0x7fff0000;
  memcpy(ri.buf + rela, &r, sizeof r);
  expect_real_refused(&ri, "ELF DT_RELA relocation 0 writes at 0x7fff0000, outside the file's loadable segments");
}

/* The last entry of each relocation table, the bytes farthest from the
 * other tables: a table checked without being read from the file would
 * be zeroes there (R_*_NONE, skipped), and the file path would pass it. */
static void break_last_relocation(int64_t table_tag, int64_t size_tag, const char *expected) {
  real_image ri;
  if (real_fake_plugin(&ri) != 0) skip();
  dyn_t *table = real_dyn_find(&ri, table_tag), *size = real_dyn_find(&ri, size_tag);
  if (!table || !size || size->d_un.d_val < sizeof(rela_t) || !real_dyn_find(&ri, DT_RELA)) {
    free(ri.buf);
    skip(); /* a REL platform, or a plugin without that table */
  }
  uint64_t n = size->d_un.d_val / sizeof(rela_t), at = table->d_un.d_ptr + (n - 1) * sizeof(rela_t);
  rela_t r;
  memcpy(&r, ri.buf + at, sizeof r);
  r.r_offset = 0x7fff0000;
  memcpy(ri.buf + at, &r, sizeof r);
  char want[160];
  snprintf(want, sizeof want, "%s relocation %llu writes at 0x7fff0000", expected, (unsigned long long)(n - 1));
  expect_real_refused(&ri, want);
}

static void test_last_relocation_outside_image(void **state) {
  (void)state;
  break_last_relocation(DT_RELA, DT_RELASZ, "ELF DT_RELA");
  break_last_relocation(DT_JMPREL, DT_PLTRELSZ, "ELF DT_JMPREL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_valid_image),
      cmocka_unit_test(test_json_ends_at_first_nul),
      cmocka_unit_test(test_eight_byte_aligned_segment),
      cmocka_unit_test(test_not_elf),
      cmocka_unit_test(test_class_mismatch),
      cmocka_unit_test(test_endianness_mismatch),
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_machine_mismatch),
      cmocka_unit_test(test_truncated_header),
      cmocka_unit_test(test_program_header_table),
      cmocka_unit_test(test_note_segment_out_of_bounds),
      cmocka_unit_test(test_note_sizes_out_of_bounds),
      cmocka_unit_test(test_truncated_note_header),
      cmocka_unit_test(test_misaligned),
      cmocka_unit_test(test_descriptor_not_nul_terminated),
      cmocka_unit_test(test_descriptor_too_large),
      cmocka_unit_test(test_descriptor_at_limit_accepted),
      cmocka_unit_test(test_empty_json),
      cmocka_unit_test(test_duplicate_note),
      cmocka_unit_test(test_same_note_through_two_segments),
      cmocka_unit_test(test_foreign_notes_ignored),
      cmocka_unit_test(test_note_walk_is_bounded),
      cmocka_unit_test(test_reason_truncated_safely),
      cmocka_unit_test(test_read_fd_valid),
      cmocka_unit_test(test_read_fd_refusals),
      cmocka_unit_test(test_own_executable_has_no_note),
      cmocka_unit_test(test_real_seed_plugin),
      cmocka_unit_test(test_real_fake_plugin),
      cmocka_unit_test(test_real_plugin_is_not_read_whole),
      cmocka_unit_test(test_dynamic_section_outside_image),
      cmocka_unit_test(test_dynamic_section_without_terminator),
      cmocka_unit_test(test_dynamic_tables_outside_image),
      cmocka_unit_test(test_code_not_in_file),
      cmocka_unit_test(test_relocation_outside_image),
      cmocka_unit_test(test_last_relocation_outside_image),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
