/* SPDX-License-Identifier: MIT */
#include "elf_reader.h"

#include <elf.h>
#include <errno.h>
#include <sandboxio/backend.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILE_BYTES ((size_t)512 * 1024 * 1024)
#define MAX_EXPORTS 100000

typedef struct reader {
  const unsigned char *data;
  size_t size;
  int is64, be;
} reader;

static int fail(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *why, size_t size, const char *fmt, ...) {
  if (why && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* [off, off + len) lies inside the buffer; no overflow possible. */
static int in_bounds(const reader *r, uint64_t off, uint64_t len) {
  return off <= r->size && len <= r->size - off;
}

static int rd(const reader *r, uint64_t off, unsigned width, uint64_t *out) {
  if (!in_bounds(r, off, width)) return -1;
  uint64_t v = 0;
  for (unsigned i = 0; i < width; i++) {
    unsigned shift = r->be ? 8 * (width - 1 - i) : 8 * i;
    v |= (uint64_t)r->data[off + i] << shift;
  }
  *out = v;
  return 0;
}

/* A class-sized word: 4 bytes in ELF32, 8 in ELF64. */
static int rd_word(const reader *r, uint64_t off, uint64_t *out) {
  return rd(r, off, r->is64 ? 8 : 4, out);
}

typedef struct header {
  uint64_t phoff, shoff;
  uint64_t phentsize, phnum, shentsize, shnum, shstrndx;
} header;

static int read_header(reader *r, header *h, char *why, size_t ws) {
  if (r->size < EI_NIDENT || memcmp(r->data, ELFMAG, SELFMAG) != 0) return fail(why, ws, "not an ELF file");
  if (r->data[EI_CLASS] != ELFCLASS32 && r->data[EI_CLASS] != ELFCLASS64)
    return fail(why, ws, "unknown ELF class %u", r->data[EI_CLASS]);
  if (r->data[EI_DATA] != ELFDATA2LSB && r->data[EI_DATA] != ELFDATA2MSB)
    return fail(why, ws, "unknown ELF byte order %u", r->data[EI_DATA]);
  r->is64 = r->data[EI_CLASS] == ELFCLASS64;
  r->be = r->data[EI_DATA] == ELFDATA2MSB;
  uint64_t type = 0;
  if (rd(r, 16, 2, &type) != 0) return fail(why, ws, "truncated ELF header");
  if (type != ET_DYN) return fail(why, ws, "not a shared object (e_type %llu)", (unsigned long long)type);
  int bad = r->is64 ? rd(r, 32, 8, &h->phoff) || rd(r, 40, 8, &h->shoff) || rd(r, 54, 2, &h->phentsize) ||
                          rd(r, 56, 2, &h->phnum) || rd(r, 58, 2, &h->shentsize) || rd(r, 60, 2, &h->shnum) ||
                          rd(r, 62, 2, &h->shstrndx)
                    : rd(r, 28, 4, &h->phoff) || rd(r, 32, 4, &h->shoff) || rd(r, 42, 2, &h->phentsize) ||
                          rd(r, 44, 2, &h->phnum) || rd(r, 46, 2, &h->shentsize) || rd(r, 48, 2, &h->shnum) ||
                          rd(r, 50, 2, &h->shstrndx);
  if (bad) return fail(why, ws, "truncated ELF header");
  if (h->phnum && h->phentsize < (r->is64 ? 56u : 32u))
    return fail(why, ws, "program header entries are too small (%llu bytes)", (unsigned long long)h->phentsize);
  if (h->phnum && !in_bounds(r, h->phoff, h->phnum * h->phentsize))
    return fail(why, ws, "program headers lie outside the file");
  /* e_shnum == 0 with sections present: the count is in section 0. */
  if (h->shoff && h->shnum == 0 && h->shentsize >= (r->is64 ? 64u : 40u))
    if (rd_word(r, h->shoff + (r->is64 ? 32 : 20), &h->shnum) != 0) return fail(why, ws, "truncated section 0");
  if (h->shnum > 65536 * 16) return fail(why, ws, "implausible section count %llu", (unsigned long long)h->shnum);
  if (h->shnum && h->shentsize < (r->is64 ? 64u : 40u))
    return fail(why, ws, "section header entries are too small (%llu bytes)", (unsigned long long)h->shentsize);
  if (h->shnum && !in_bounds(r, h->shoff, h->shnum * h->shentsize))
    return fail(why, ws, "section headers lie outside the file");
  if (h->shstrndx == SHN_XINDEX && h->shnum && rd(r, h->shoff + (r->is64 ? 40 : 24), 4, &h->shstrndx) != 0)
    return fail(why, ws, "truncated section 0");
  return 0;
}

typedef struct phdr {
  uint64_t type, offset, filesz, align;
} phdr;

static int read_phdr(const reader *r, const header *h, uint64_t i, phdr *p) {
  uint64_t base = h->phoff + i * h->phentsize;
  if (r->is64)
    return rd(r, base, 4, &p->type) || rd(r, base + 8, 8, &p->offset) || rd(r, base + 32, 8, &p->filesz) ||
                   rd(r, base + 48, 8, &p->align)
               ? -1
               : 0;
  return rd(r, base, 4, &p->type) || rd(r, base + 4, 4, &p->offset) || rd(r, base + 16, 4, &p->filesz) ||
                 rd(r, base + 28, 4, &p->align)
             ? -1
             : 0;
}

typedef struct shdr {
  uint64_t name, type, offset, size, link, entsize;
} shdr;

static int read_shdr(const reader *r, const header *h, uint64_t i, shdr *s) {
  uint64_t base = h->shoff + i * h->shentsize;
  if (r->is64)
    return rd(r, base, 4, &s->name) || rd(r, base + 4, 4, &s->type) || rd(r, base + 24, 8, &s->offset) ||
                   rd(r, base + 32, 8, &s->size) || rd(r, base + 40, 4, &s->link) || rd(r, base + 56, 8, &s->entsize)
               ? -1
               : 0;
  return rd(r, base, 4, &s->name) || rd(r, base + 4, 4, &s->type) || rd(r, base + 16, 4, &s->offset) ||
                 rd(r, base + 20, 4, &s->size) || rd(r, base + 24, 4, &s->link) || rd(r, base + 36, 4, &s->entsize)
             ? -1
             : 0;
}

/* A NUL-terminated string at strtab[off] within the section's bounds. */
static const char *str_at(const reader *r, const shdr *strtab, uint64_t off) {
  if (strtab->type != SHT_STRTAB || !in_bounds(r, strtab->offset, strtab->size) || off >= strtab->size) return NULL;
  const char *s = (const char *)r->data + strtab->offset + off;
  return memchr(s, '\0', strtab->size - off) ? s : NULL;
}

/* ------------------------------------------------------------- dynamic */
static int scan_dynamic(const reader *r, const phdr *p, kit_elf *out, char *why, size_t ws) {
  if (!in_bounds(r, p->offset, p->filesz)) return fail(why, ws, "PT_DYNAMIC lies outside the file");
  unsigned entsize = r->is64 ? 16 : 8;
  out->has_dynamic = 1;
  for (uint64_t off = 0; off + entsize <= p->filesz; off += entsize) {
    uint64_t tag = 0, val = 0;
    if (rd_word(r, p->offset + off, &tag) || rd_word(r, p->offset + off + entsize / 2, &val))
      return fail(why, ws, "truncated dynamic section");
    if (tag == DT_NULL) break;
    const char *how = NULL;
    if (tag == DT_BIND_NOW)
      how = "DT_BIND_NOW";
    else if (tag == DT_FLAGS && (val & DF_BIND_NOW))
      how = "DT_FLAGS BIND_NOW";
    else if (tag == DT_FLAGS_1 && (val & DF_1_NOW))
      how = "DT_FLAGS_1 NOW";
    if (how) {
      size_t used = strlen(out->bind_now_how);
      snprintf(out->bind_now_how + used, sizeof out->bind_now_how - used, "%s%s", used ? ", " : "", how);
      out->bind_now = 1;
    }
  }
  return 0;
}

/* --------------------------------------------------------------- notes */
static int is_sandboxio_note(const reader *r, uint64_t name_off, uint64_t namesz, uint64_t type) {
  return type == SBIO_NOTE_TYPE && namesz == sizeof SBIO_NOTE_OWNER &&
         memcmp(r->data + name_off, SBIO_NOTE_OWNER, sizeof SBIO_NOTE_OWNER) == 0;
}

static uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

static int scan_notes(const reader *r, const phdr *p, kit_elf *out, char *why, size_t ws) {
  if (!in_bounds(r, p->offset, p->filesz)) return fail(why, ws, "PT_NOTE segment lies outside the file");
  uint64_t align = p->align == 8 ? 8 : 4;
  uint64_t off = 0;
  while (off + 12 <= p->filesz) {
    uint64_t base = p->offset + off, namesz = 0, descsz = 0, type = 0;
    if (rd(r, base, 4, &namesz) || rd(r, base + 4, 4, &descsz) || rd(r, base + 8, 4, &type))
      return fail(why, ws, "truncated note header");
    uint64_t name_off = base + 12;
    /* Both sizes are 32-bit, so none of these sums can overflow. */
    uint64_t desc_rel = align_up(12 + namesz, align);
    if (desc_rel > p->filesz - off || descsz > p->filesz - off - desc_rel)
      return fail(why, ws, "a note runs past the end of its PT_NOTE segment");
    uint64_t desc_off = base + desc_rel;
    if (is_sandboxio_note(r, name_off, namesz, type) && out->n_notes++ == 0) {
      out->note = malloc(descsz + 1);
      if (!out->note) return fail(why, ws, "out of memory");
      memcpy(out->note, r->data + desc_off, descsz);
      out->note[descsz] = '\0';
      out->note_size = descsz;
      out->note_terminated = memchr(r->data + desc_off, '\0', descsz) != NULL;
    }
    off += desc_rel + align_up(descsz, align);
  }
  return 0;
}

/* -------------------------------------------------------------- dynsym */
static int add_export(kit_elf *out, const char *name) {
  if (out->n_exports >= MAX_EXPORTS) return -1;
  char **p = realloc(out->exports, (out->n_exports + 1) * sizeof *p);
  if (!p) return -1;
  out->exports = p;
  if (!(p[out->n_exports] = strdup(name))) return -1;
  out->n_exports++;
  return 0;
}

static int scan_dynsym(const reader *r, const header *h, const shdr *sym, kit_elf *out, char *why, size_t ws) {
  uint64_t entsize = r->is64 ? 24 : 16;
  if (sym->entsize && sym->entsize != entsize)
    return fail(why, ws, ".dynsym entries have size %llu, expected %llu", (unsigned long long)sym->entsize,
                (unsigned long long)entsize);
  if (!in_bounds(r, sym->offset, sym->size)) return fail(why, ws, ".dynsym lies outside the file");
  shdr strtab;
  if (sym->link >= h->shnum || read_shdr(r, h, sym->link, &strtab) != 0)
    return fail(why, ws, ".dynsym names a string table that does not exist");
  out->has_dynsym = 1;
  for (uint64_t off = entsize; off + entsize <= sym->size; off += entsize) { /* entry 0 is reserved */
    uint64_t base = sym->offset + off, name = 0, info = 0, other = 0, shndx = 0;
    int bad = r->is64 ? rd(r, base, 4, &name) || rd(r, base + 4, 1, &info) || rd(r, base + 5, 1, &other) ||
                            rd(r, base + 6, 2, &shndx)
                      : rd(r, base, 4, &name) || rd(r, base + 12, 1, &info) || rd(r, base + 13, 1, &other) ||
                            rd(r, base + 14, 2, &shndx);
    if (bad) return fail(why, ws, "truncated .dynsym entry");
    unsigned bind = (unsigned)(info >> 4), vis = (unsigned)(other & 3);
    int global = bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE;
    int visible = vis == STV_DEFAULT || vis == STV_PROTECTED;
    if (!global || !visible || shndx == SHN_UNDEF) continue;
    const char *s = str_at(r, &strtab, name);
    if (!s) return fail(why, ws, "a .dynsym name lies outside its string table");
    if (add_export(out, s) != 0) return fail(why, ws, "out of memory (or more than %d exports)", MAX_EXPORTS);
  }
  return 0;
}

static int scan_sections(const reader *r, const header *h, kit_elf *out, char *why, size_t ws) {
  if (!h->shnum) return 0;
  shdr names;
  int have_names = h->shstrndx < h->shnum && read_shdr(r, h, h->shstrndx, &names) == 0;
  for (uint64_t i = 0; i < h->shnum; i++) {
    shdr s;
    if (read_shdr(r, h, i, &s) != 0) return fail(why, ws, "truncated section header %llu", (unsigned long long)i);
    if (s.type == SHT_DYNSYM && !out->has_dynsym && scan_dynsym(r, h, &s, out, why, ws) != 0) return -1;
    const char *name = have_names ? str_at(r, &names, s.name) : NULL;
    if (name && strcmp(name, SBIO_NOTE_SECTION) == 0) out->note_section = 1;
  }
  return 0;
}

int kit_elf_parse(const unsigned char *data, size_t size, kit_elf *out, char *why, size_t ws) {
  memset(out, 0, sizeof *out);
  reader r = {data, size, 0, 0};
  header h = {0};
  if (read_header(&r, &h, why, ws) != 0) return -1;
  out->is64 = r.is64;
  out->big_endian = r.be;
  for (uint64_t i = 0; i < h.phnum; i++) {
    phdr p;
    if (read_phdr(&r, &h, i, &p) != 0) {
      kit_elf_free(out);
      return fail(why, ws, "truncated program header %llu", (unsigned long long)i);
    }
    int rc = 0;
    if (p.type == PT_DYNAMIC && !out->has_dynamic) rc = scan_dynamic(&r, &p, out, why, ws);
    if (p.type == PT_NOTE && p.filesz) rc = scan_notes(&r, &p, out, why, ws);
    if (rc != 0) {
      kit_elf_free(out);
      return -1;
    }
  }
  if (scan_sections(&r, &h, out, why, ws) != 0) {
    kit_elf_free(out);
    return -1;
  }
  return 0;
}

int kit_elf_read(const char *path, kit_elf *out, char *why, size_t ws) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "rb");
  if (!f) return fail(why, ws, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 || (uint64_t)st.st_size > MAX_FILE_BYTES) {
    fclose(f);
    return fail(why, ws, "%s is not a regular file of at most %zu bytes", path, MAX_FILE_BYTES);
  }
  size_t size = (size_t)st.st_size;
  unsigned char *data = malloc(size ? size : 1);
  if (!data) {
    fclose(f);
    return fail(why, ws, "out of memory reading %s", path);
  }
  size_t got = fread(data, 1, size, f);
  fclose(f);
  if (got != size) {
    free(data);
    return fail(why, ws, "short read of %s", path);
  }
  int rc = kit_elf_parse(data, size, out, why, ws);
  free(data);
  return rc;
}

void kit_elf_free(kit_elf *e) {
  if (!e) return;
  for (size_t i = 0; i < e->n_exports; i++) free(e->exports[i]);
  free(e->exports);
  free(e->note);
  memset(e, 0, sizeof *e);
}
