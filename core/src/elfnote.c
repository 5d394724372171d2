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
typedef Elf64_Dyn host_dyn;
typedef Elf64_Rel host_rel;
typedef Elf64_Rela host_rela;
typedef Elf64_Sym host_sym;
#define HOST_R_TYPE ELF64_R_TYPE
#else
#define HOST_CLASS ELFCLASS32
typedef Elf32_Ehdr host_ehdr;
typedef Elf32_Phdr host_phdr;
typedef Elf32_Dyn host_dyn;
typedef Elf32_Rel host_rel;
typedef Elf32_Rela host_rela;
typedef Elf32_Sym host_sym;
#define HOST_R_TYPE ELF32_R_TYPE
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

/* ------------------------------------------------------- the bytes looked at */
/* The image the checks read. From a buffer (the fuzzer's, a test's) it is
 * all there; from a file only the ranges the checks look at are read --
 * headers, notes, the dynamic array, its string and relocation tables, a
 * few dozen KiB of a backend of several hundred -- because reading every
 * installed backend whole was most of what a command spent on them. The
 * buffer is len bytes of zeroes (calloc: pages nobody reads stay untouched)
 * and every reader calls need() for its range first, so no check ever sees
 * a byte that was not read from the file. */
#define PAGE 4096u

typedef struct elf_src {
  unsigned char *buf;
  size_t len;
  int fd;              /* -1: buf holds the whole image */
  unsigned char *have; /* from a file: one bit per PAGE already read */
} elf_src;

/* Makes [off, off + size) of the image present; the range is in bounds
 * (every caller checked it against len first). */
static int need(elf_src *src, uint64_t off, uint64_t size, char *reason, size_t reason_size) {
  if (src->fd < 0 || size == 0) return 0;
  uint64_t page = off / PAGE, last = (off + size - 1) / PAGE;
  while (page <= last) {
    if (src->have[page / 8] & (1u << (page % 8))) {
      page++;
      continue;
    }
    uint64_t run = page;
    while (run <= last && !(src->have[run / 8] & (1u << (run % 8)))) run++;
    uint64_t from = page * PAGE, to = run * PAGE < src->len ? run * PAGE : src->len;
    while (from < to) {
      ssize_t n = pread(src->fd, src->buf + from, (size_t)(to - from), (off_t)from);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail(reason, reason_size, "cannot read file: %s", strerror(errno));
      if (n == 0) {
        return fail(reason, reason_size, "the file shrank while it was read (ended at byte %llu of %zu)",
                    (unsigned long long)from, src->len);
      }
      from += (uint64_t)n;
    }
    for (; page < run; page++) src->have[page / 8] |= (unsigned char)(1u << (page % 8));
  }
  return 0;
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
static int check_loadable(const elf_src *src, const host_ehdr *eh, char *reason, size_t reason_size) {
  size_t len = src->len;
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    host_phdr ph;
    memcpy(&ph, src->buf + eh->e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_LOAD || ph.p_filesz == 0 || in_bounds(ph.p_offset, ph.p_filesz, len)) continue;
    return fail(reason, reason_size,
                "ELF segment %u (PT_LOAD) reaches past the end of the file (offset %llu + %llu bytes, file %zu "
                "bytes): the file is truncated",
                i, (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, len);
  }
  return 0;
}

/* ---------------------------------------- what the dynamic loader trusts */
/* ld.so reads the dynamic array at the PT_DYNAMIC address until a DT_NULL
 * entry, then follows the addresses in it (string, symbol and hash tables,
 * relocation tables, init and fini arrays) and writes where each relocation
 * says, checking none of them against the segments it mapped: a PT_DYNAMIC,
 * a table or a relocation target outside the image is a SIGSEGV inside
 * dlopen, which kills the host. Those are checked here against the PT_LOAD
 * segments. This keeps a damaged or crafted header from crashing the host;
 * it cannot make damaged code safe to run (a sha256 pin detects that). */

/* A backend has four or five PT_LOADs and a few dozen dynamic entries; the
 * caps keep the checks below linear in the file for a crafted one. */
#define MAX_LOADS 16
#define MAX_DYNAMIC 4096

typedef struct load_seg {
  uint64_t vaddr, memsz, filesz, offset;
} load_seg;

typedef struct image_map {
  load_seg loads[MAX_LOADS];
  unsigned n;
} image_map;

/* Whether one PT_LOAD holds [addr, addr + size) in memory (p_memsz) or,
 * with file_backed, in its file-backed part (p_filesz, which check_loadable
 * found inside the file); then *file_off is the file offset of addr. */
static int image_holds(const image_map *map, uint64_t addr, uint64_t size, int file_backed, uint64_t *file_off) {
  for (unsigned i = 0; i < map->n; i++) {
    const load_seg *ld = &map->loads[i];
    uint64_t extent = ld->memsz;
    if (file_backed) {
      if (ld->filesz == 0) continue;
      if (ld->filesz < extent) extent = ld->filesz; /* only p_memsz is mapped */
    }
    if (addr < ld->vaddr || addr - ld->vaddr > extent || size > extent - (addr - ld->vaddr)) continue;
    if (file_off) *file_off = ld->offset + (addr - ld->vaddr);
    return 1;
  }
  return 0;
}

/* The dynamic tags ld.so dereferences, and the tag giving each one's size
 * (0: `unit` bytes, the least it reads there, are checked). */
typedef struct dyn_table {
  int64_t tag, size_tag;
  uint64_t unit;
  const char *name;
} dyn_table;

static const dyn_table dyn_tables[] = {
    {DT_STRTAB, DT_STRSZ, 1, "DT_STRTAB"},
    {DT_SYMTAB, 0, sizeof(host_sym), "DT_SYMTAB"},
    {DT_HASH, 0, 8, "DT_HASH"},
    {DT_GNU_HASH, 0, 16, "DT_GNU_HASH"},
    {DT_RELA, DT_RELASZ, 1, "DT_RELA"},
    {DT_REL, DT_RELSZ, 1, "DT_REL"},
    {DT_JMPREL, DT_PLTRELSZ, 1, "DT_JMPREL"},
    {DT_INIT_ARRAY, DT_INIT_ARRAYSZ, 1, "DT_INIT_ARRAY"},
    {DT_FINI_ARRAY, DT_FINI_ARRAYSZ, 1, "DT_FINI_ARRAY"},
    {DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ, 1, "DT_PREINIT_ARRAY"},
    {DT_INIT, 0, 1, "DT_INIT"},
    {DT_FINI, 0, 1, "DT_FINI"},
    {DT_PLTGOT, 0, 1, "DT_PLTGOT"},
    {DT_VERSYM, 0, 2, "DT_VERSYM"},
    {DT_VERDEF, 0, 1, "DT_VERDEF"},
    {DT_VERNEED, 0, 1, "DT_VERNEED"},
};
#define N_DYN_TABLES (sizeof dyn_tables / sizeof dyn_tables[0])

/* The value of the last `tag` of the dynamic array's first n entries (ld.so
 * keeps the last) in *value; 0 when there is none. */
static int dyn_value(const unsigned char *dyn, uint64_t n, int64_t tag, uint64_t *value) {
  int found = 0;
  for (uint64_t i = 0; i < n; i++) {
    host_dyn d;
    memcpy(&d, dyn + i * sizeof d, sizeof d);
    if ((int64_t)d.d_tag == tag) {
      *value = (uint64_t)d.d_un.d_val;
      found = 1;
    }
  }
  return found;
}

/* Every relocation of the table [off, off + size) in the file writes inside
 * the image (a word at r_offset). R_*_NONE writes nothing. */
static int check_relocs(elf_src *src, const image_map *map, uint64_t off, uint64_t size, int rela, const char *name,
                        char *reason, size_t reason_size) {
  uint64_t entsize = rela ? sizeof(host_rela) : sizeof(host_rel);
  if (need(src, off, size, reason, reason_size) != 0) return -1;
  for (uint64_t at = 0; at + entsize <= size; at += entsize) {
    host_rela r = {0};
    memcpy(&r, src->buf + off + at, entsize); /* a rel is a rela's first two fields */
    if (HOST_R_TYPE(r.r_info) == 0) continue;
    if (!image_holds(map, (uint64_t)r.r_offset, sizeof(uintptr_t), 0, NULL)) {
      return fail(reason, reason_size, "ELF %s relocation %llu writes at 0x%llx, outside the file's loadable segments",
                  name, (unsigned long long)(at / entsize), (unsigned long long)r.r_offset);
    }
  }
  return 0;
}

static int check_dynamic(elf_src *src, const host_ehdr *eh, char *reason, size_t reason_size) {
  host_phdr dyn_ph;
  unsigned n_dynamic = 0, dyn_index = 0;
  image_map map = {.n = 0};
  for (unsigned i = 0; i < eh->e_phnum; i++) {
    host_phdr ph;
    memcpy(&ph, src->buf + eh->e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD) {
      if (map.n == MAX_LOADS) {
        return fail(reason, reason_size, "ELF has more than %d PT_LOAD segments", MAX_LOADS);
      }
      map.loads[map.n++] = (load_seg){ph.p_vaddr, ph.p_memsz, ph.p_filesz, ph.p_offset};
    }
    if (ph.p_type != PT_DYNAMIC) continue;
    dyn_ph = ph;
    dyn_index = i;
    n_dynamic++;
  }
  /* Without one dlopen refuses the file by itself ("no dynamic section"). */
  if (n_dynamic == 0) return 0;
  if (n_dynamic > 1) return fail(reason, reason_size, "ELF has %u PT_DYNAMIC segments (one expected)", n_dynamic);
  /* ld.so reads the array from memory, i.e. from the PT_LOAD bytes at that
   * address, whatever p_offset says: those are the bytes checked. */
  uint64_t dyn_off = 0;
  if (dyn_ph.p_filesz < sizeof(host_dyn) ||
      !image_holds(&map, (uint64_t)dyn_ph.p_vaddr, (uint64_t)dyn_ph.p_filesz, 1, &dyn_off)) {
    return fail(reason, reason_size,
                "ELF dynamic section (segment %u, address 0x%llx, %llu bytes) lies outside the file's loadable "
                "segments",
                dyn_index, (unsigned long long)dyn_ph.p_vaddr, (unsigned long long)dyn_ph.p_filesz);
  }
  if (need(src, dyn_off, (uint64_t)dyn_ph.p_filesz, reason, reason_size) != 0) return -1;
  const unsigned char *dyn = src->buf + dyn_off;
  uint64_t n = (uint64_t)dyn_ph.p_filesz / sizeof(host_dyn), n_used = 0;
  for (; n_used < n && n_used <= MAX_DYNAMIC; n_used++) {
    host_dyn d;
    memcpy(&d, dyn + n_used * sizeof d, sizeof d);
    if (d.d_tag == DT_NULL) break;
  }
  if (n_used > MAX_DYNAMIC) {
    return fail(reason, reason_size, "ELF dynamic section has more than %d entries", MAX_DYNAMIC);
  }
  if (n_used == n) return fail(reason, reason_size, "ELF dynamic section has no DT_NULL terminator");

  for (size_t t = 0; t < N_DYN_TABLES; t++) {
    const dyn_table *tb = &dyn_tables[t];
    uint64_t addr = 0, size = tb->unit;
    if (!dyn_value(dyn, n_used, tb->tag, &addr)) continue;
    if (tb->size_tag && !dyn_value(dyn, n_used, tb->size_tag, &size)) {
      return fail(reason, reason_size, "ELF dynamic section has %s without its size", tb->name);
    }
    /* In the file-backed part: each is read (or run) before anything is
     * relocated, and a table or code in the zero-filled tail of a segment
     * is a file whose bytes are missing. */
    if (!image_holds(&map, addr, size, 1, NULL)) {
      return fail(reason, reason_size,
                  "ELF dynamic section's %s (address 0x%llx, size %llu) lies outside the file's loadable segments",
                  tb->name, (unsigned long long)addr, (unsigned long long)size);
    }
  }

  /* Names ld.so reads from the string table: DT_NEEDED (it opens those
   * files), DT_SONAME, DT_RPATH, DT_RUNPATH. */
  uint64_t strtab = 0, strsz = 0, str_off = 0;
  int have_strtab = dyn_value(dyn, n_used, DT_STRTAB, &strtab) && dyn_value(dyn, n_used, DT_STRSZ, &strsz);
  int strtab_in_file = have_strtab && image_holds(&map, strtab, strsz, 1, &str_off);
  if (strtab_in_file && need(src, str_off, strsz, reason, reason_size) != 0) return -1;
  for (uint64_t i = 0; i < n_used; i++) {
    host_dyn d;
    memcpy(&d, dyn + i * sizeof d, sizeof d);
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_SONAME && d.d_tag != DT_RPATH && d.d_tag != DT_RUNPATH) continue;
    uint64_t name = (uint64_t)d.d_un.d_val;
    if (!strtab_in_file || name >= strsz || memchr(src->buf + str_off + name, '\0', strsz - name) == NULL) {
      return fail(reason, reason_size,
                  "ELF dynamic entry %llu names a string outside the dynamic string table (offset %llu)",
                  (unsigned long long)i, (unsigned long long)name);
    }
  }

  /* Relocation tables: read from the file, every target inside the image. */
  static const struct {
    int64_t tag, size_tag;
    int rela;
    const char *name;
  } relocs[] = {
      {DT_RELA, DT_RELASZ, 1, "DT_RELA"}, {DT_REL, DT_RELSZ, 0, "DT_REL"}, {DT_JMPREL, DT_PLTRELSZ, -1, "DT_JMPREL"}};
  for (size_t r = 0; r < sizeof relocs / sizeof relocs[0]; r++) {
    uint64_t addr = 0, size = 0, off = 0, kind = DT_RELA;
    if (!dyn_value(dyn, n_used, relocs[r].tag, &addr)) continue;
    dyn_value(dyn, n_used, relocs[r].size_tag, &size); /* present: checked above */
    int rela = relocs[r].rela;
    if (rela < 0) {
      if (!dyn_value(dyn, n_used, DT_PLTREL, &kind) || (kind != DT_RELA && kind != DT_REL)) {
        return fail(reason, reason_size, "ELF dynamic section has DT_JMPREL without a DT_PLTREL of DT_RELA or DT_REL");
      }
      rela = kind == DT_RELA;
    }
    if (!image_holds(&map, addr, size, 1, &off)) {
      return fail(reason, reason_size, "ELF %s relocation table (address 0x%llx, %llu bytes) is not in the file",
                  relocs[r].name, (unsigned long long)addr, (unsigned long long)size);
    }
    if (check_relocs(src, &map, off, size, rela, relocs[r].name, reason, reason_size) != 0) return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ notes */
typedef struct note_search {
  elf_src *src;
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
  const char *desc = (const char *)s->src->buf + desc_off;
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
    memcpy(&nh, s->src->buf + off, sizeof nh);
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
        memcmp(s->src->buf + name_off, SBIO_NOTE_OWNER, OWNER_SIZE) == 0) {
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

static int find_in(elf_src *src, const char **json, size_t *json_len, char *reason, size_t reason_size) {
  const unsigned char *buf = src->buf;
  size_t len = src->len;
  uint64_t head = len < sizeof(host_ehdr) ? len : sizeof(host_ehdr);
  if (need(src, 0, head, reason, reason_size) != 0) return -1;
  if (check_ident(buf, len, reason, reason_size) != 0) return -1;
  if (len < sizeof(host_ehdr)) {
    return fail(reason, reason_size, "truncated ELF header (%zu bytes, need %zu)", len, sizeof(host_ehdr));
  }
  host_ehdr eh;
  memcpy(&eh, buf, sizeof eh);
  if (check_header(&eh, len, reason, reason_size) != 0) return -1;
  if (need(src, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(host_phdr), reason, reason_size) != 0) return -1;

  note_search s = {.src = src, .found_at = 0, .notes_seen = 0, .json = NULL, .json_len = 0};
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    host_phdr ph;
    memcpy(&ph, buf + eh.e_phoff + (uint64_t)i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_NOTE || ph.p_filesz == 0) continue;
    if (!in_bounds(ph.p_offset, ph.p_filesz, len)) {
      return fail(reason, reason_size, "PT_NOTE segment %u out of bounds (offset %llu, size %llu, file %zu bytes)", i,
                  (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, len);
    }
    if (need(src, ph.p_offset, ph.p_filesz, reason, reason_size) != 0) return -1;
    if (scan_segment(&s, i, ph.p_offset, ph.p_filesz, ph.p_align, reason, reason_size) != 0) return -1;
  }
  if (s.json == NULL) return fail(reason, reason_size, "no .note.sandboxio metadata note");
  if (check_loadable(src, &eh, reason, reason_size) != 0) return -1;
  if (check_dynamic(src, &eh, reason, reason_size) != 0) return -1;
  if (json) *json = s.json;
  if (json_len) *json_len = s.json_len;
  return 0;
}

int sbio__elfnote_find(const unsigned char *buf, size_t len, const char **json, size_t *json_len, char *reason,
                       size_t reason_size) {
  /* Never written through: need() returns at once for fd -1. */
  elf_src src = {.buf = (unsigned char *)buf, .len = len, .fd = -1, .have = NULL};
  return find_in(&src, json, json_len, reason, reason_size);
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
  /* Read with pread(2), never mapped: a file truncated by someone else
   * while we look at it would turn a mapped page into SIGBUS; pread only
   * ever comes back short, which need() refuses like any truncation. */
  size_t len = (size_t)st.st_size, pages = (len + PAGE - 1) / PAGE;
  elf_src src = {.buf = calloc(len, 1), .len = len, .fd = fd, .have = calloc(pages / 8 + 1, 1)};
  if (src.buf == NULL || src.have == NULL) {
    free(src.buf);
    free(src.have);
    return fail(reason, reason_size, "out of memory reading the file");
  }

  const char *json = NULL;
  size_t json_len = 0;
  int rc = find_in(&src, &json, &json_len, reason, reason_size);
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
  free(src.buf);
  free(src.have);
  return rc;
}
