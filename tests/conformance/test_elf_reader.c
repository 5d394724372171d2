/* SPDX-License-Identifier: MIT */
/* The kit's own ELF reader: right facts from real plugins, and no crash,
 * over-read or leak on any truncation or corruption of them (run it under
 * ASan to make the last part mean something). */
/* cmocka needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
/* clang-format on */

#include "elf_reader.h"

#include <sandboxio/backend.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long size = ftell(f);
  assert_true(size > 0);
  rewind(f);
  unsigned char *data = malloc((size_t)size);
  assert_non_null(data);
  assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  *len = (size_t)size;
  return data;
}

static int exports(const kit_elf *e, const char *name) {
  for (size_t i = 0; i < e->n_exports; i++)
    if (strcmp(e->exports[i], name) == 0) return 1;
  return 0;
}

static void good_plugin_facts(void **state) {
  (void)state;
  kit_elf e;
  char why[256] = "";
  assert_int_equal(kit_elf_read(CBK_DIR "/sbio-backend-cbk_good.so", &e, why, sizeof why), 0);
  assert_true(e.has_dynamic);
  assert_true(e.bind_now);
  assert_true(e.has_dynsym);
  assert_int_equal(e.n_exports, 1);
  assert_true(exports(&e, SBIO_BACKEND_ENTRY_SYMBOL));
  assert_int_equal(e.n_notes, 1);
  assert_true(e.note_terminated);
  assert_true(e.note_section);
  assert_non_null(strstr(e.note, "\"name\":\"cbk_good\""));
  kit_elf_free(&e);
}

static void link_defects_are_seen(void **state) {
  (void)state;
  kit_elf e;
  char why[256] = "";
  assert_int_equal(kit_elf_read(CBK_DIR "/sbio-backend-cbk_lazy.so", &e, why, sizeof why), 0);
  assert_true(e.has_dynamic);
  assert_false(e.bind_now);
  kit_elf_free(&e);
  assert_int_equal(kit_elf_read(CBK_DIR "/sbio-backend-cbk_exports.so", &e, why, sizeof why), 0);
  assert_true(exports(&e, SBIO_BACKEND_ENTRY_SYMBOL));
  assert_true(exports(&e, "cbk_debug_dump"));
  kit_elf_free(&e);
}

static void not_elf_is_refused(void **state) {
  (void)state;
  kit_elf e;
  char why[256] = "";
  static const unsigned char text[] = "#!/bin/sh\necho not a plugin\n";
  assert_int_equal(kit_elf_parse(text, sizeof text, &e, why, sizeof why), -1);
  assert_string_equal(why, "not an ELF file");
  assert_int_equal(kit_elf_parse(text, 0, &e, why, sizeof why), -1);
  assert_int_equal(kit_elf_read(CBK_DIR "/no-such-file.so", &e, why, sizeof why), -1);
  assert_non_null(strstr(why, "cannot open"));
}

/* Every prefix of a real plugin: parsed or refused, never read past. */
static void truncations_never_overread(void **state) {
  (void)state;
  size_t len;
  unsigned char *data = slurp(CBK_DIR "/sbio-backend-cbk_good.so", &len);
  for (size_t cut = 0; cut < len; cut += cut < 4096 ? 1 : 61) {
    unsigned char *copy = malloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
    assert_non_null(copy);
    memcpy(copy, data, cut);
    kit_elf e;
    char why[256];
    if (kit_elf_parse(copy, cut, &e, why, sizeof why) == 0) kit_elf_free(&e);
    free(copy);
  }
  free(data);
}

/* Deterministic corruption of the headers, tables and notes. */
static void corruption_never_crashes(void **state) {
  (void)state;
  size_t len;
  unsigned char *data = slurp(CBK_DIR "/sbio-backend-cbk_good.so", &len);
  unsigned char *copy = malloc(len);
  assert_non_null(copy);
  uint64_t seed = 0x5eed5eed5eedULL;
  for (int round = 0; round < 3000; round++) {
    memcpy(copy, data, len);
    for (int flips = 0; flips < 8; flips++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      /* Mostly the first 4 KiB (headers), sometimes anywhere. */
      size_t at = (seed >> 33) % (round % 4 ? (len < 4096 ? len : 4096) : len);
      copy[at] = (unsigned char)(seed >> 17);
    }
    kit_elf e;
    char why[256];
    if (kit_elf_parse(copy, len, &e, why, sizeof why) == 0) kit_elf_free(&e);
  }
  free(copy);
  free(data);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(good_plugin_facts),        cmocka_unit_test(link_defects_are_seen),
      cmocka_unit_test(not_elf_is_refused),       cmocka_unit_test(truncations_never_overread),
      cmocka_unit_test(corruption_never_crashes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
