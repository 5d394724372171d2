/* SPDX-License-Identifier: MIT */
/* Backend files that must be refused, not crash the command or be used:
 * through the real sbio binary.
 *
 * A copy of the fake backend cut inside its loadable segments (a half
 * written upgrade) used to be listed available, and `run`, `inspect
 * --load`, `backends --load` and `doctor` died of SIGBUS in the dynamic
 * loader (issue 10, finding 4). Each now reports the refusal and exits
 * with a status of its own. And a backend whose table offers create but no
 * kill (issue 10, finding 2) is refused when loaded, with the reason shown
 * by `sbio inspect --load`. A copy whose PT_DYNAMIC lies outside its
 * loadable segments crashed the same commands inside dlopen (SIGSEGV); it
 * is refused at scan too. */
#include "harness.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRUNCATED "reaches past the end of the file"

static unsigned char *slurp(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  unsigned char *data = malloc((size_t)st.st_size);
  assert_non_null(data);
  assert_int_equal(read(fd, data, (size_t)st.st_size), st.st_size);
  close(fd);
  *len = (size_t)st.st_size;
  return data;
}

/* scratch/NAME/ holding a copy of the fake backend, cut in the middle of
 * its last PT_LOAD segment's file range (the note, in the first one, still
 * reads). Returns the directory (malloc'd). */
static char *truncated_fake_dir(const char *name) {
  size_t len;
  unsigned char *data = slurp(SBIO_TEST_FAKE_PLUGIN, &len);
  Elf64_Ehdr eh;
  memcpy(&eh, data, sizeof eh);
  uint64_t start = 0, size = 0;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, data + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && ph.p_filesz > 0 && ph.p_offset >= start) start = ph.p_offset, size = ph.p_filesz;
  }
  assert_true(size > 1 && start + size <= len);
  char *dir = h_path(name);
  assert_int_equal(mkdir(dir, 0755), 0);
  char path[4096];
  snprintf(path, sizeof path, "%s/sbio-backend-fake.so", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  assert_true(fd >= 0);
  size_t cut = (size_t)(start + size / 2);
  assert_int_equal(write(fd, data, cut), (ssize_t)cut);
  close(fd);
  free(data);
  return dir;
}

/* Not killed by a signal, and the refusal `why` is on stdout or stderr. */
static void assert_reported_why(const h_result *r, const char *what, const char *why) {
  if (r->status >= 128) fail_msg("%s: killed by signal %d\n%s", what, r->status - 128, r->err);
  if (!h_contains(r->out, r->out_len, why) && !h_contains(r->err, r->err_len, why))
    fail_msg("%s: no refusal reported\nstdout: %s\nstderr: %s", what, r->out, r->err);
}

static void assert_reported(const h_result *r, const char *what) {
  assert_reported_why(r, what, TRUNCATED);
}

static void test_truncated_backend_is_refused_by_every_command(void **state) {
  (void)state;
  char *cfg = h_write("empty.yaml", "");
  char *dir = truncated_fake_dir("cut");
  h_result r;

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "backends");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "fake     refused"));
  assert_reported(&r, "backends");
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "backends", "--load");
  H_ASSERT_STATUS(&r, 0);
  assert_reported(&r, "backends --load");
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "inspect", "--load", "fake");
  assert_reported(&r, "inspect --load");
  assert_true(h_contains(r.out, r.out_len, "status:         refused"));
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "run", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 69);
  assert_reported(&r, "run");
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1002]"));
  assert_false(h_contains(r.out, r.out_len, "hi"));
  h_result_free(&r);

  /* Its exit status also reflects the other backends (an engine that is
   * not running here, say); what matters is that it reports, and lives. */
  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "doctor");
  assert_true(r.status != 0);
  assert_reported(&r, "doctor");
  h_result_free(&r);
  free(dir);
  free(cfg);
}

static void test_create_without_kill_is_refused_at_load_with_the_reason(void **state) {
  (void)state;
  char *cfg = h_write("empty.yaml", "");
  /* The fixture alone in a directory of its own. */
  char *dir = h_path("nokill");
  assert_int_equal(mkdir(dir, 0755), 0);
  size_t len;
  unsigned char *data = slurp(SBIO_TEST_LOADER_FIXTURES "/sbio-backend-loader_nokill.so", &len);
  char path[4096];
  snprintf(path, sizeof path, "%s/sbio-backend-loader_nokill.so", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, data, len), (ssize_t)len);
  close(fd);
  free(data);

  static const char reason[] =
      "incomplete operations table: create without kill (a sandbox it creates could never be destroyed)";
  h_result r;
  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "inspect", "--load", "loader_nokill");
  assert_true(r.status < 128);
  assert_true(h_contains(r.out, r.out_len, "status:         refused"));
  assert_true(h_contains(r.out, r.out_len, "reason:         "));
  assert_true(h_contains(r.out, r.out_len, reason));
  h_result_free(&r);
  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "backends", "--load");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "loader_nokill (refused): "));
  assert_true(h_contains(r.out, r.out_len, reason));
  h_result_free(&r);
  free(dir);
  free(cfg);
}

/* scratch/NAME/sbio-backend-fake.so: a copy of the fake backend whose
 * PT_DYNAMIC says the dynamic array is at an address no PT_LOAD maps (one
 * flipped bit, or a crafted file). Returns the directory (malloc'd). */
static char *dynamic_outside_fake_dir(const char *name) {
  size_t len;
  unsigned char *data = slurp(SBIO_TEST_FAKE_PLUGIN, &len);
  Elf64_Ehdr eh;
  memcpy(&eh, data, sizeof eh);
  int patched = 0;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, data + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type != PT_DYNAMIC) continue;
    ph.p_vaddr = 0x7fff0000;
    memcpy(data + eh.e_phoff + i * sizeof ph, &ph, sizeof ph);
    patched = 1;
  }
  assert_true(patched);
  char *dir = h_path(name);
  assert_int_equal(mkdir(dir, 0755), 0);
  char path[4096];
  snprintf(path, sizeof path, "%s/sbio-backend-fake.so", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, data, len), (ssize_t)len);
  close(fd);
  free(data);
  return dir;
}

/* dlopen follows PT_DYNAMIC without checking it against what it mapped:
 * such a file was listed available and every command that loads it died of
 * SIGSEGV inside dlopen. It is refused at scan, naming the file and the
 * segment, and the backends after it on the search path still load. */
static void test_dynamic_section_outside_image_is_refused_by_every_command(void **state) {
  (void)state;
  static const char why[] = "ELF dynamic section (segment ";
  static const char outside[] = "lies outside the file's loadable segments";
  char *cfg = h_write("empty.yaml", "");
  char *dir = dynamic_outside_fake_dir("dynamic");
  h_result r;

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "backends");
  H_ASSERT_STATUS(&r, 0);
  assert_true(h_contains(r.out, r.out_len, "fake     refused"));
  assert_reported_why(&r, "backends", why);
  assert_true(h_contains(r.err, r.err_len, "sbio-backend-fake.so) refused: "));
  assert_true(h_contains(r.err, r.err_len, outside));
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "backends", "--load");
  H_ASSERT_STATUS(&r, 0);
  assert_reported_why(&r, "backends --load", why);
  assert_true(h_contains(r.out, r.out_len, "e2b      loaded")); /* the next one on the path */
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "inspect", "--load", "fake");
  assert_reported_why(&r, "inspect --load", why);
  assert_true(h_contains(r.out, r.out_len, "status:         refused"));
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "run", "--", "echo", "hi");
  H_ASSERT_STATUS(&r, 69);
  assert_reported_why(&r, "run", why);
  assert_true(h_contains(r.err, r.err_len, "[SBX_E1002]"));
  h_result_free(&r);

  H_RUN(&r, NULL, "--config", cfg, "--backend-path", dir, "doctor");
  assert_true(r.status != 0);
  assert_reported_why(&r, "doctor", why);
  h_result_free(&r);
  free(dir);
  free(cfg);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_truncated_backend_is_refused_by_every_command),
      cmocka_unit_test(test_create_without_kill_is_refused_at_load_with_the_reason),
      cmocka_unit_test(test_dynamic_section_outside_image_is_refused_by_every_command),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
