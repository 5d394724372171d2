/* SPDX-License-Identifier: MIT */
/* The ELF note reader. A backend file is untrusted input until its metadata
 * has been read and validated, so nothing here trusts an offset, a size or
 * an alignment taken from the file: every one is checked against the buffer
 * with arithmetic that cannot overflow before it is used. Fields are copied
 * out with memcpy because the buffer (a fuzzer's, say) need not be aligned.
 *
 * Only files built for this very host are accepted: a plugin of another
 * class, byte order or machine could never be loaded, and refusing it here
 * gives a far better reason than dlopen would. */
#include "elfnote.h"

#include <sandboxio/backend.h>

#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------ the host, at compile time */
#if UINTPTR_MAX == UINT64_MAX
#define HOST_CLASS ELFCLASS64
typedef Elf64_Ehdr host_ehdr;
typedef Elf64_Phdr host_phdr;
#else
#define HOST_CLASS ELFCLASS32
typedef Elf32_Ehdr host_ehdr;
typedef Elf32_Phdr host_phdr;
#endif
/* Elf32_Nhdr and Elf64_Nhdr are the same three 32-bit words. */
typedef Elf64_Nhdr host_nhdr;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_DATA ELFDATA2MSB
#else
#error "cannot determine the host byte order"
#endif

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__i386__)
#define HOST_MACHINE EM_386
#elif defined(__riscv)
#define HOST_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#elif defined(__s390x__)
#define HOST_MACHINE EM_S390
#else
/* Unknown host: every file is refused with a reason saying so, rather than
 * guessing which machine's plugins are loadable. */
#define HOST_MACHINE EM_NONE
#endif

/* The SBIO_BACKEND macro writes the owner with its NUL: namesz 10. */
/* Real files carry a handful of notes. The cap keeps a crafted file (many
 * program headers all pointing at one large segment of tiny notes) from
 * turning the walk quadratic. */
#define MAX_NOTES 65536
#define OWNER_SIZE sizeof(SBIO_NOTE_OWNER)

/* ----------------------------------------------------------------- helpers */
static int fail(char *reason, size_t reason_size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *reason, size_t reason_size, const char *fmt, ...) {
  if (reason != NULL && reason_size > 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, reason_size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static const char *machine_name(unsigned machine) {
  switch (machine) {
  case EM_386:
    return "i386";
  case EM_X86_64:
    return "x86-64";
  case EM_AARCH64:
    return "AArch64";
  case EM_ARM:
    return "ARM";
  case EM_RISCV:
    return "RISC-V";
  case EM_PPC:
    return "PowerPC";
  case EM_PPC64:
    return "PowerPC64";
  case EM_S390:
    return "S/390";
  case EM_MIPS:
    return "MIPS";
  case EM_SPARCV9:
    return "SPARC v9";
  case 258:
    return "LoongArch"; /* EM_LOONGARCH, absent from older elf.h */
  default:
    return NULL;
  }
}

/* "183 (AArch64)" / "62, x86-64": the file's machine and the host's, each
 * with a short name when there is one. */
static int fail_machine(char *reason, size_t reason_size, unsigned file_machine) {
  const char *file_name = machine_name(file_machine);
  const char *host_name = machine_name(HOST_MACHINE);
  char file_part[48], host_part[48];
  if (file_name != NULL) {
    snprintf(file_part, sizeof file_part, "%u (%s)", file_machine, file_name);
  } else {
    snprintf(file_part, sizeof file_part, "%u", file_machine);
  }
  if (host_name != NULL) {
    snprintf(host_part, sizeof host_part, "%u, %s", (unsigned)HOST_MACHINE, host_name);
  } else {
    snprintf(host_part, sizeof host_part, "%u", (unsigned)HOST_MACHINE);
  }
  return fail(reason, reason_size, "ELF machine %s does not match this host (%s)", file_part, host_part);
}

static const char *class_name(unsigned char cls) {
  return cls == ELFCLASS64 ? "64-bit" : "32-bit";
}
static const char *data_name(unsigned char data) {
  return data == ELFDATA2LSB ? "little-endian" : "big-endian";
}

/* True when [offset, offset + size) lies inside a buffer of `len` bytes. */
static int in_bounds(uint64_t offset, uint64_t size, size_t len) {
  return offset <= (uint64_t)len && size <= (uint64_t)len - offset;
}

static uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

/* ---------------------------------------------------------------- headers */
static int check_ident(const unsigned char *buf, size_t len, char *reason, size_t reason_size) {
  if (buf == NULL || len < EI_NIDENT || memcmp(buf, ELFMAG, SELFMAG) != 0) {
    return fail(reason, reason_size, "not an ELF file");
  }
  unsigned char cls = buf[EI_CLASS];
  if (cls != ELFCLASS32 && cls != ELFCLASS64) return fail(reason, reason_size, "invalid ELF class %u", cls);
  if (cls != HOST_CLASS) {
    return fail(reason, reason_size, "ELF class %s does not match this host (%s)", class_name(cls),
                class_name(HOST_CLASS));
  }
  unsigned char data = buf[EI_DATA];
  if (data != ELFDATA2LSB && data != ELFDATA2MSB) {
    return fail(reason, reason_size, "invalid ELF data encoding %u", data);
  }
  if (data != HOST_DATA) {
    return fail(reason, reason_size, "ELF data encoding %s does not match this host (%s)", data_name(data),
                data_name(HOST_DATA));
  }
  if (buf[EI_VERSION] != EV_CURRENT) {
    return fail(reason, reason_size, "unsupported ELF version %u in e_ident", buf[EI_VERSION]);
  }
  return 0;
}

static int check_header(const host_ehdr *eh, size_t len, char *reason, size_t reason_size) {
  if (eh->e_version != EV_CURRENT) {
    return fail(reason, reason_size, "unsupported ELF version %lu", (unsigned long)eh->e_version);
  }
  if (HOST_MACHINE == EM_NONE) {
    return fail(reason, reason_size, "this host's ELF machine is not known to sandboxio; cannot check backend files");
  }
  if (eh->e_machine != HOST_MACHINE) return fail_machine(reason, reason_size, eh->e_machine);
  if (eh->e_phnum == 0) return fail(reason, reason_size, "no .note.sandboxio metadata note (no program headers)");
  if (eh->e_phnum == PN_XNUM) {
    return fail(reason, reason_size, "ELF program header count uses the PN_XNUM extension (not supported)");
  }
  if (eh->e_phentsize != sizeof(host_phdr)) {
    return fail(reason, reason_size, "ELF program header entry size %u is not %zu", (unsigned)eh->e_phentsize,
                sizeof(host_phdr));
  }
  uint64_t table_size = (uint64_t)eh->e_phnum * eh->e_phentsize;
  if (!in_bounds(eh->e_phoff, table_size, len)) {
    return fail(reason, reason_size, "ELF program headers out of bounds (offset %llu, %u entries, file %zu bytes)",
                (unsigned long long)eh->e_phoff, (unsigned)eh->e_phnum, len);
  }
  return 0;
}

/* The dynamic loader maps every PT_LOAD segment's file range and touches
 * its pages (relocations, the memset of the .bss tail); a page past the
 * end of the file is a SIGBUS, which no caller can catch. So a file whose
 * loadable segments reach past its end -- cut short by a half-written copy
 * or upgrade -- is refused here, before dlopen could ever see it. */
static int check_loadable(const unsigned char *buf, const host_ehdr *eh, size_t len, char *reason, size_t reason_size) {
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    host_phdr ph;
    memcpy(&ph, buf + eh->e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD || ph.p_filesz == 0 || in_bounds(ph.p_offset, ph.p_filesz, len)) continue;
    return fail(reason, reason_size,
                "ELF segment %u (PT_LOAD) reaches past the end of the file (offset %llu + %llu bytes, file %zu "
                "bytes): the file is truncated",
                i, (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, len);
  }
  return 0;
}

/* ------------------------------------------------------------------ notes */
typedef struct note_search {
  const unsigned char *buf;
  size_t len;
  uint64_t found_at; /* descriptor offset of the note found, 0 if none */
  size_t notes_seen;
  const char *json;
  size_t json_len;
} note_search;

static int take_descriptor(note_search *s, uint64_t desc_off, uint32_t descsz, char *reason, size_t reason_size) {
  if (descsz > SBIO_METADATA_MAX) {
    return fail(reason, reason_size, "malformed note: metadata note descriptor too large (%lu bytes, limit %d)",
                (unsigned long)descsz, SBIO_METADATA_MAX);
  }
  const char *desc = (const char *)s->buf + desc_off;
  const char *nul = memchr(desc, '\0', descsz);
  if (nul == NULL) return fail(reason, reason_size, "malformed note: metadata note descriptor is not NUL-terminated");
  if (nul == desc) return fail(reason, reason_size, "malformed note: metadata note JSON is empty");
  s->found_at = desc_off;
  s->json = desc;
  s->json_len = (size_t)(nul - desc);
  return 0;
}

/* Walks the notes of one PT_NOTE segment [start, start + size). */
static int scan_segment(note_search *s, unsigned index, uint64_t start, uint64_t size, uint64_t p_align, char *reason,
                        size_t reason_size) {
  /* The gABI pads notes to 4 bytes; 8-aligned note segments (GNU property
   * notes) pad name and descriptor to 8, as glibc and binutils read them. */
  uint64_t alignment;
  if (p_align <= 4) {
    alignment = 4;
  } else if (p_align == 8) {
    alignment = 8;
  } else {
    return fail(reason, reason_size, "malformed note: PT_NOTE segment %u has unsupported alignment %llu", index,
                (unsigned long long)p_align);
  }
  if (start % alignment != 0) {
    return fail(reason, reason_size, "malformed note: PT_NOTE segment %u is misaligned (offset %llu, alignment %llu)",
                index, (unsigned long long)start, (unsigned long long)alignment);
  }

  uint64_t end = start + size; /* in bounds: checked by the caller */
  uint64_t off = start;
  while (off < end) {
    if (end - off < sizeof(host_nhdr)) {
      return fail(reason, reason_size, "malformed note: note header at offset %llu is truncated",
                  (unsigned long long)off);
    }
    if (++s->notes_seen > MAX_NOTES) {
      return fail(reason, reason_size, "malformed note: more than %d notes", MAX_NOTES);
    }
    host_nhdr nh;
    memcpy(&nh, s->buf + off, sizeof nh);
    uint64_t name_off = off + sizeof nh;
    /* The descriptor starts at the next aligned offset after header and
     * name (for 8-aligned notes the 12-byte header counts toward it). */
    uint64_t desc_off = off + align_up(sizeof nh + (uint64_t)nh.n_namesz, alignment);
    /* Both sizes are 32-bit, so none of these sums can wrap in 64 bits. */
    if (desc_off > end || nh.n_descsz > end - desc_off) {
      return fail(reason, reason_size,
                  "malformed note: note at offset %llu: size out of bounds (namesz %lu, descsz %lu)",
                  (unsigned long long)off, (unsigned long)nh.n_namesz, (unsigned long)nh.n_descsz);
    }
    if (nh.n_type == SBIO_NOTE_TYPE && nh.n_namesz == OWNER_SIZE &&
        memcmp(s->buf + name_off, SBIO_NOTE_OWNER, OWNER_SIZE) == 0) {
      /* Two PT_NOTE segments may legitimately cover the same bytes; only a
       * second note at another place is ambiguous. */
      if (s->json != NULL && s->found_at != desc_off) {
        return fail(reason, reason_size, "more than one sandboxio metadata note");
      }
      if (take_descriptor(s, desc_off, nh.n_descsz, reason, reason_size) != 0) return -1;
    }
    uint64_t next = desc_off + align_up(nh.n_descsz, alignment);
    /* A last note whose padding was cut off at the segment end is harmless:
     * everything read above was in bounds. */
    off = next < end ? next : end;
  }
  return 0;
}

int sbio__elfnote_find(const unsigned char *buf, size_t len, const char **json, size_t *json_len, char *reason,
                       size_t reason_size) {
  if (check_ident(buf, len, reason, reason_size) != 0) return -1;
  if (len < sizeof(host_ehdr)) {
    return fail(reason, reason_size, "truncated ELF header (%zu bytes, need %zu)", len, sizeof(host_ehdr));
  }
  host_ehdr eh;
  memcpy(&eh, buf, sizeof eh);
  if (check_header(&eh, len, reason, reason_size) != 0) return -1;

  note_search s = {.buf = buf, .len = len, .found_at = 0, .notes_seen = 0, .json = NULL, .json_len = 0};
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    host_phdr ph;
    memcpy(&ph, buf + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_NOTE || ph.p_filesz == 0) continue;
    if (!in_bounds(ph.p_offset, ph.p_filesz, len)) {
      return fail(reason, reason_size, "PT_NOTE segment %u out of bounds (offset %llu, size %llu, file %zu bytes)", i,
                  (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, len);
    }
    if (scan_segment(&s, i, ph.p_offset, ph.p_filesz, ph.p_align, reason, reason_size) != 0) return -1;
  }
  if (s.json == NULL) return fail(reason, reason_size, "no .note.sandboxio metadata note");
  if (check_loadable(buf, &eh, len, reason, reason_size) != 0) return -1;
  if (json) *json = s.json;
  if (json_len) *json_len = s.json_len;
  return 0;
}

/* The whole file into memory with read(2). Not mmap: a file truncated by
 * someone else while we look at it would turn a mapped page into SIGBUS;
 * read only ever comes back short, which is refused like any truncation. */
static int read_whole(int fd, size_t len, unsigned char **out, char *reason, size_t reason_size) {
  unsigned char *buf = malloc(len);
  if (buf == NULL) return fail(reason, reason_size, "out of memory reading the file");
  size_t got = 0;
  while (got < len) {
    ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int saved = errno;
      free(buf);
      if (n == 0) return fail(reason, reason_size, "the file shrank while it was read (%zu of %zu bytes)", got, len);
      return fail(reason, reason_size, "cannot read file: %s", strerror(saved));
    }
    got += (size_t)n;
  }
  *out = buf;
  return 0;
}

int sbio__elfnote_read_fd(int fd, char **json_out, char *reason, size_t reason_size) {
  if (json_out) *json_out = NULL;
  struct stat st;
  if (fstat(fd, &st) != 0) return fail(reason, reason_size, "cannot stat file: %s", strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(reason, reason_size, "not a regular file");
  if (st.st_size <= 0) return fail(reason, reason_size, "empty file");
  if ((uint64_t)st.st_size > SBIO__ELF_FILE_MAX) {
    return fail(reason, reason_size, "file too large (%llu bytes; a backend may have at most %llu)",
                (unsigned long long)st.st_size, (unsigned long long)SBIO__ELF_FILE_MAX);
  }
  size_t len = (size_t)st.st_size;
  unsigned char *buf = NULL;
  if (read_whole(fd, len, &buf, reason, reason_size) != 0) return -1;

  const char *json = NULL;
  size_t json_len = 0;
  int rc = sbio__elfnote_find(buf, len, &json, &json_len, reason, reason_size);
  if (rc == 0 && json_out != NULL) {
    char *copy = malloc(json_len + 1);
    if (copy == NULL) {
      rc = fail(reason, reason_size, "out of memory reading metadata note");
    } else {
      memcpy(copy, json, json_len);
      copy[json_len] = '\0';
      *json_out = copy;
    }
  }
  free(buf);
  return rc;
}
