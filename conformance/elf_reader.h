/* SPDX-License-Identifier: MIT */
/* A small, bounds-checked reader of the ELF facts the static checks need:
 * the dynamic flags (was it linked -z now?), the exported symbols (only the
 * entry point?) and the sandboxio metadata note. It reads the file itself
 * rather than using the core's reader, so the kit works against an
 * installed library, which does not export its internals. Every offset and
 * size taken from the file is checked before use; a malformed file yields
 * an error message, never a crash. ELF32 and ELF64, either byte order. */
#ifndef SBIO_KIT_ELF_READER_H
#define SBIO_KIT_ELF_READER_H

#include <stddef.h>

typedef struct kit_elf {
  int is64, big_endian;
  int has_dynamic;       /* a PT_DYNAMIC segment was found */
  int bind_now;          /* DT_BIND_NOW, DT_FLAGS BIND_NOW or DT_FLAGS_1 NOW */
  char bind_now_how[64]; /* which of them, for the report */
  int has_dynsym;        /* a .dynsym section was found */
  char **exports;        /* defined symbols other objects can bind to */
  size_t n_exports;
  int n_notes;         /* sandboxio notes in PT_NOTE segments */
  char *note;          /* the first one's descriptor, NUL-terminated copy */
  size_t note_size;    /* its descsz */
  int note_terminated; /* the descriptor holds a NUL */
  int note_section;    /* a section named .note.sandboxio exists */
} kit_elf;

/* Returns 0 on success; -1 with `why` filled when the file cannot be read
 * or is not a well-formed ELF shared object. */
int kit_elf_read(const char *path, kit_elf *out, char *why, size_t why_size);
/* The same, on a buffer (for tests and fuzzing). */
int kit_elf_parse(const unsigned char *data, size_t size, kit_elf *out, char *why, size_t why_size);
void kit_elf_free(kit_elf *e);

#endif
