/* SPDX-License-Identifier: MIT */
/* Reads the sandboxio metadata note from an ELF file without loading it.
 * This parses untrusted input: every offset and size is bounds-checked, and
 * sbio__elfnote_find is the fuzz target. */
#ifndef SBIO_ELFNOTE_H
#define SBIO_ELFNOTE_H

#include <stddef.h>

/* Searches the PT_NOTE segments of the ELF image `buf` for the note with
 * owner "sandboxio" and type SBIO_NOTE_TYPE. Checks that the ELF class, data
 * encoding and machine match the running host, that headers, segments and
 * notes are in bounds and 4-byte aligned, that the descriptor is a
 * NUL-terminated string no larger than SBIO_METADATA_MAX, that every
 * PT_LOAD segment lies inside the file (a truncated file would crash the
 * dynamic loader), and that what the dynamic loader follows unchecked (the
 * PT_DYNAMIC array, the tables it names, relocation targets) lies inside
 * the loadable segments. On success returns
 * 0 with *json pointing into buf and *json_len its strlen. On failure
 * returns -1 with a one-line reason ("not an ELF file", "ELF machine 183
 * (AArch64) does not match this host (62, x86-64)", "no .note.sandboxio
 * metadata note", "metadata note descriptor is not NUL-terminated", ...). */
int sbio__elfnote_find(const unsigned char *buf, size_t len, const char **json, size_t *json_len, char *reason,
                       size_t reason_size);

/* The largest backend file the core reads (a backend statically linked
 * with everything it needs is a few MiB; this is far beyond any). */
#define SBIO__ELF_FILE_MAX ((unsigned long long)256 * 1024 * 1024)

/* Same for an open file, of which only the ranges the checks look at are
 * read, with pread (never mapped: a file cut short meanwhile must not crash
 * us; a short read is refused). *json_out is a malloc'd copy. */
int sbio__elfnote_read_fd(int fd, char **json_out, char *reason, size_t reason_size);

#endif
